#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/Commands.h"
#include "driver/Check.h"
#include "output/Output.h"
#include "rules/Rule.h"

namespace sl::cli {
namespace {

const char* kHelp = R"(usage: streamlint check [options] [PATH...] [-- COMPILER FLAGS...]

Analyses Python files and C/C++/CUDA translation units under each PATH (default: .).
Exit status: 0 no findings, 1 findings, 2 usage or input errors.

options:
  --format text|json|sarif   output format (default: text)
  -o, --output FILE          write findings to FILE instead of stdout
  --select IDS               only these rules (comma-separated IDs or prefixes: SL3,SL401)
  --ignore IDS               skip these rules
  -p DIR                     read DIR/compile_commands.json for C/C++ inputs
  --cuda-path DIR            CUDA toolkit for .cu files (default: autodetect)
  --libtorch DIR             LibTorch headers root (default: $LIBTORCH, then an installed torch)
  -j, --jobs N               parallel workers (default: all cores)
  --color / --no-color       colour text output (default: when stdout is a terminal)
  --no-source                do not echo source lines under text diagnostics
  -q, --quiet                print findings only, no summary or progress
  --dump-model               print the StreamModel of each input (for debugging frontends)
)";

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

int usageError(const std::string& msg) {
  std::fprintf(stderr, "streamlint check: %s\n(see `streamlint check --help`)\n", msg.c_str());
  return 2;
}

}  // namespace

int checkMain(const Args& args) {
  CheckOptions opts;
  OutputOptions out;
  std::string outputFile;
  bool quiet = false;
  int color = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& dst) {
      if (i + 1 >= args.size()) return false;
      dst = args[++i];
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") { std::fputs(kHelp, stdout); return 0; }
    else if (a == "--") { opts.cxx.extraArgs.assign(args.begin() + long(i) + 1, args.end()); break; }
    else if (a == "--format") { if (!value(v) || !parseFormat(v, out.format)) return usageError("--format takes text, json or sarif"); }
    else if (a == "-o" || a == "--output") { if (!value(outputFile)) return usageError(a + " takes a file"); }
    else if (a == "--select") { if (!value(v)) return usageError("--select takes rule IDs"); opts.select = splitList(v); }
    else if (a == "--ignore") { if (!value(v)) return usageError("--ignore takes rule IDs"); opts.ignore = splitList(v); }
    else if (a == "-p") { if (!value(opts.cxx.compileDbDir)) return usageError("-p takes a directory"); }
    else if (a == "--cuda-path") { if (!value(opts.cxx.cudaPath)) return usageError("--cuda-path takes a directory"); }
    else if (a == "--libtorch") { if (!value(opts.cxx.libtorchDir)) return usageError("--libtorch takes a directory"); }
    else if (a == "-j" || a == "--jobs") {
      if (!value(v) || v.find_first_not_of("0123456789") != std::string::npos || v.empty())
        return usageError(a + " takes a number");
      opts.jobs = unsigned(std::stoul(v));
    }
    else if (a == "--color") color = 1;
    else if (a == "--no-color") color = 0;
    else if (a == "--no-source") out.showSource = false;
    else if (a == "-q" || a == "--quiet") quiet = true;
    else if (a == "--dump-model") opts.dumpModel = true;
    else if (!a.empty() && a[0] == '-' && a != "-") return usageError("unknown option '" + a + "'");
    else opts.paths.push_back(a);
  }
  for (const auto& id : opts.select)
    if (!findRule(id) && id.rfind("SL", 0) != 0) return usageError("--select: unknown rule '" + id + "'");
  if (opts.paths.empty() && opts.cxx.compileDbDir.empty()) opts.paths.push_back(".");
  opts.progress = !quiet && ::isatty(2);
  out.color = color < 0 ? (outputFile.empty() && ::isatty(1)) : color == 1;
  out.rules = &ruleCatalogue();
  out.toolCommand = "streamlint check";

  CheckResult res = runCheck(opts);
  if (opts.dumpModel) std::fputs(res.modelDump.c_str(), stdout);
  // Input problems go to stderr in every format, and into SARIF's notifications too.
  for (const auto& d : res.diagnostics) {
    std::string where = d.path + (d.loc.line ? ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) : "");
    std::fprintf(stderr, "%s: error: %s [%s]\n", where.c_str(), d.message.c_str(), d.ruleId.c_str());
    out.inputErrors.push_back(where + ": " + d.message);
  }
  std::ofstream file;
  if (!outputFile.empty()) {
    file.open(outputFile);
    if (!file) return usageError("cannot write " + outputFile);
  }
  std::ostream& os = outputFile.empty() ? std::cout : file;
  writeFindings(os, res.findings, out);
  if (!quiet && out.format == Format::Text && res.findings.empty())
    std::fprintf(stderr, "streamlint: %zu files analysed, no findings\n", res.files);
  if (!res.diagnostics.empty()) return 2;
  return res.findings.empty() ? 0 : 1;
}

}  // namespace sl::cli
