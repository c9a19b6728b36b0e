# End-to-end tests of the CLI binary (exit codes, formats, bad input).
add_test(NAME cli.tests COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_tests.sh $<TARGET_FILE:streamlint>
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
