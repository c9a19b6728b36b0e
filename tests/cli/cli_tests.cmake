# End-to-end tests of the CLI binary (exit codes, formats, bad input).
add_test(NAME cli.tests COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_tests.sh $<TARGET_FILE:streamlint>
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# What a pull-request gate uses: CI formats, statistics, unused suppressions, config, baseline, diff.
add_test(NAME cli.gating COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/gating_tests.sh $<TARGET_FILE:streamlint>
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
