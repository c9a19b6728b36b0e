# End-to-end tests of the CLI binary (exit codes, formats, bad input).
add_test(NAME cli.tests COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_tests.sh $<TARGET_FILE:streamlint>
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# What a pull-request gate uses: CI formats, statistics, unused suppressions, config, baseline, diff.
add_test(NAME cli.gating COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/gating_tests.sh $<TARGET_FILE:streamlint>
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# Issue 33: --fix, the cache, -o, baselines and --diff never lose or leak a user's data.
add_test(NAME cli.check_safety COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_safety_tests.sh $<TARGET_FILE:streamlint>
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.check_safety PROPERTIES TIMEOUT 300)
# `check --diff` on Python analyses only what the change can affect, with a full run's findings.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME cli.diff_scope COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/diff_scope_test.py
         $<TARGET_FILE:streamlint> ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.diff_scope PROPERTIES TIMEOUT 120)
# Issue 32: mixed Python + C/C++ repositories (Python first), portable baselines, ruff parity,
# docs/github-actions.md's Annotate step on push and pull_request events.
add_test(NAME cli.mixed_repo COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/mixed_repo_tests.sh $<TARGET_FILE:streamlint>
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cli.mixed_repo PROPERTIES TIMEOUT 300)
