// One entry point per subcommand; main.cpp dispatches on argv[1]. Each returns the exit code:
// 0 clean, 1 findings, 2 usage or input errors.
#pragma once
#include <string>
#include <vector>

namespace sl::cli {

using Args = std::vector<std::string>;  // arguments after the subcommand name

int checkMain(const Args& args);
int explainMain(const Args& args);
int listRulesMain(const Args& args);

}  // namespace sl::cli

#ifdef SL_HAVE_RUNTIME
namespace sl::runtime {
int runMain(const sl::cli::Args& args);     // streamlint run [--out DIR] -- CMD...
}  // namespace sl::runtime
namespace sl::cli {
int reportMain(const Args& args);  // streamlint report DIR [PATH...]: cli/ReportCommand.cpp
}  // namespace sl::cli
#endif
