// streamlint: finds CUDA stream misuse in PyTorch Python and C++/CUDA/LibTorch code, and
// measures what it costs at run time.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/Commands.h"
#include "sl_version.h"

namespace {

struct Command {
  const char* name;
  int (*main)(const sl::cli::Args&);
  const char* summary;
};

const Command kCommands[] = {
    {"check", sl::cli::checkMain, "analyse Python and C/C++/CUDA sources for stream misuse"},
    {"explain", sl::cli::explainMain, "print a rule's documentation with its examples"},
    {"list-rules", sl::cli::listRulesMain, "list every rule with its severity and summary"},
#ifdef SL_HAVE_RUNTIME
    {"run", sl::runtime::runMain, "run a program with the CUDA recorder preloaded"},
    {"report", sl::cli::reportMain, "turn recorded runtime logs into measured findings"},
#endif
};

void usage(FILE* out) {
  std::fprintf(out, "usage: streamlint <command> [options]\n\ncommands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-11s %s\n", c.name, c.summary);
  std::fprintf(out, "\n`streamlint <command> --help` describes a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    usage(stdout);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("streamlint %s\n", SL_VERSION);  // the wheel's version (cmake/version.cmake)
    return 0;
  }
  for (const auto& c : kCommands)
    if (cmd == c.name) return c.main(sl::cli::Args(argv + 2, argv + argc));
  std::fprintf(stderr, "streamlint: unknown command '%s'\n", cmd.c_str());
  usage(stderr);
  return 2;
}
