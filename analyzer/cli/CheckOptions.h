// `streamlint check`'s command line, parsed apart from running it (CheckCommand.cpp).
#pragma once
#include <string>

#include "cli/Commands.h"
#include "driver/Check.h"
#include "output/Output.h"

namespace sl::cli {

struct CheckCli {
  CheckOptions check;
  OutputOptions out;
  std::string outputFile;
  std::string writeBaseline;  // --write-baseline FILE
  std::string baseline;       // --baseline FILE
  std::string diffRev;        // --diff REV
  bool statistics = false;
  bool exitZero = false;
  bool quiet = false;
  bool noCache = false;       // --no-cache
  bool pathsFromFile = false; // inputs came from @PATHS_FILE (lintrunner: an empty list is fine)
  bool fix = false;           // --fix: apply the mechanical fixes (driver/Fixes.h)
  bool fixDiffOnly = false;   // --diff-only (with --fix): print them as a diff, write nothing
  bool showFixes = false;     // --show-fixes: list the fixes (applied, or available) per file and rule
  std::string cacheDir;       // --cache-dir DIR ("" = ResultCache::defaultDir())
  int color = -1;  // -1: when stdout is a terminal
};

extern const char* kCheckHelp;

// Fills `cli` from `args`. Returns -1 to go on, or the exit code to stop with (0 after --help,
// 2 after a usage error, which it prints).
int parseCheckArgs(const Args& args, CheckCli& cli);

}  // namespace sl::cli
