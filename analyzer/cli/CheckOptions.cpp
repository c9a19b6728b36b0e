#include "cli/CheckOptions.h"

#include "config/Config.h"
#include "config/Glob.h"

#include <regex>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "rules/Rule.h"

namespace sl::cli {

const char* kCheckHelp = R"(usage: streamlint check [options] [PATH...] [@PATHS_FILE] [-- COMPILER FLAGS...]

Analyses Python files and C/C++/CUDA translation units under each PATH (default: .).
@PATHS_FILE reads more paths from a file, one per line (lintrunner's @{{PATHSFILE}}).
C/C++ files a directory walk finds are analysed with a compilation database, else listed
once as not analysed (see --lang). A directory with nothing to check is a warning (exit 0).
Exit status: 0 no findings, 1 findings, 2 usage, input or config errors (a C/C++ file that
could not be parsed included, unless --keep-going).

output:
  --format FORMAT            text (default), concise (one line per finding), json, sarif
                             (SARIF 2.1.0 for code scanning), github (workflow annotations),
                             lintrunner (LintMessage JSON lines; exits 0 with findings, as
                             lintrunner expects); --output-format is the same option
  -o, --output FILE          write findings to FILE instead of stdout
  --statistics               print the number of findings per rule instead of the findings
  --color / --no-color       colour text output (default: when stdout is a terminal)
  --no-source                do not echo source lines under text diagnostics
  -q, --quiet                print findings only, no summary or progress
  --exit-zero                exit 0 even when there are findings
rules and configuration:
  --select IDS               only these rules (comma-separated IDs or prefixes: SL3,SL401);
                             replaces the config's `select`
  --ignore IDS               skip these rules (added to the config's `ignore`)
  --extend-exclude GLOBS     also skip these paths (comma-separated globs, relative to the
                             current directory; config: exclude / extend-exclude)
  --config FILE              use FILE for every input instead of the nearest
                             .streamlint.toml / pyproject.toml [tool.streamlint]
  --report-unused-suppressions
                             report `# noqa: SLnnn` / `NOLINT(SLnnn)` that suppress nothing
  --check-deliberate-code    also report performance notes (SL3, SL5, SL6) in deliberate code:
                             tests/, benchmarks/, examples/, archive/, test_*.py, one-time
                             set-up (`__init__`, `load_state_dict`, `warmup`...), logging
                             calls, `__repr__`... (default: counted as hidden; config:
                             check-deliberate-code = true)
  --min-confidence LEVEL     low, medium (default) or high: hide findings less sure than LEVEL
                             that their values are CUDA tensors (config `min-confidence`)
fixes:
  --fix                      apply the mechanical fixes (SL103: current_stream() for
                             default_stream(); SL501: a device sync before the closing clock
                             read), then check again and report what is left
  --diff-only                with --fix: print the fixes as a unified diff, change no file
                             (exit 1 when there is something to fix)
  --show-fixes               list the fixes per file and rule: those applied (--fix), else
                             those --fix would apply; --statistics marks fixable rules [*]
gating:
  --write-baseline FILE      record the current findings in FILE and exit 0
  --baseline FILE            report only findings that FILE does not record
  --diff REV                 report only findings on lines changed since git revision REV (the
                             same as a full run's there); analyses only the changed files and
                             the files they import or are imported by (Python), the changed
                             translation units (C/C++; all when a header changed)
C/C++:
  -p DIR                     read DIR/compile_commands.json for C/C++ inputs
  --cuda-path DIR            CUDA toolkit for .cu files (default: autodetect)
  --libtorch DIR             LibTorch headers root (default: $LIBTORCH, then an installed torch)
  --lang LANGS               python, cpp or python,cpp (config: languages = [...]). Default:
                             Python always; C/C++ when a compilation database is given (-p)
                             or found (compile_commands.json in PATH or PATH/build), and for
                             C/C++ files named as inputs. Other C/C++ files a directory walk
                             finds are listed once as not analysed, never a failure
  --keep-going               C/C++ files that cannot be parsed (or a missing C/C++ frontend)
                             are reported but do not make the run exit 2 (config:
                             keep-going = true)
other:
  -j, --jobs N               parallel workers (default: all cores)
  --no-cache                 analyse even when nothing changed (also STREAMLINT_NO_CACHE=1;
                             default: a Python-only run whose
                             inputs, configs, options and binary are unchanged reuses the last
                             result from .streamlint_cache/)
  --cache-dir DIR            keep the cache in DIR (default: $STREAMLINT_CACHE_DIR, else
                             .streamlint_cache in the current directory)
  --dump-model               print the StreamModel of each input (for debugging frontends)
  --no-prefilter             Python: parse every file whole (default: only code that can matter
                             to a rule; same findings, syntax errors in skipped code unreported)
)";

namespace {

// Rule IDs are matched in upper case; lower case is accepted like ruff's `--select e501`.
std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(ruleCode(item));
  return out;
}

int usageError(const std::string& msg) {
  std::fprintf(stderr, "streamlint check: %s\n(see `streamlint check --help`)\n", msg.c_str());
  return 2;
}

}  // namespace

int parseCheckArgs(const Args& args, CheckCli& cli) {
  CheckOptions& opts = cli.check;
  bool pathsFile = false;  // an empty @file means no inputs, not "."
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& dst) {
      if (i + 1 >= args.size()) return false;
      dst = args[++i];
      return true;
    };
    std::string v;
    if (a == "-h" || a == "--help") { std::fputs(kCheckHelp, stdout); return 0; }
    else if (a == "--") { opts.cxx.extraArgs.assign(args.begin() + long(i) + 1, args.end()); break; }
    else if (a == "--format" || a == "--output-format") {
      if (!value(v) || !parseFormat(v, cli.out.format))
        return usageError(a + " takes text, concise, json, sarif, github or lintrunner");
    }
    else if (a == "-o" || a == "--output") { if (!value(cli.outputFile)) return usageError(a + " takes a file"); }
    else if (a == "--select") { if (!value(v) || (opts.select = splitList(v)).empty()) return usageError("--select takes rule IDs"); }
    else if (a == "--ignore") { if (!value(v) || (opts.ignore = splitList(v)).empty()) return usageError("--ignore takes rule IDs"); }
    else if (a == "--config") { if (!value(opts.configFile)) return usageError("--config takes a file"); }
    else if (a == "--write-baseline") { if (!value(cli.writeBaseline)) return usageError("--write-baseline takes a file"); }
    else if (a == "--baseline") { if (!value(cli.baseline)) return usageError("--baseline takes a file"); }
    else if (a == "--diff") { if (!value(cli.diffRev) || cli.diffRev.empty()) return usageError("--diff takes a git revision"); }
    else if (a == "--statistics") cli.statistics = true;
    else if (a == "--report-unused-suppressions") opts.reportUnusedSuppressions = true;
    else if (a == "--check-deliberate-code") opts.checkDeliberateCode = true;
    else if (a == "--exit-zero") cli.exitZero = true;
    else if (a == "--min-confidence") {
      std::string level;
      if (!value(level) || (opts.minConfidence = model::parseConfidence(level)) < 0)
        return usageError("--min-confidence takes low, medium or high");
    }
    else if (a == "-p") { if (!value(opts.cxx.compileDbDir)) return usageError("-p takes a directory"); }
    else if (a == "--cuda-path") { if (!value(opts.cxx.cudaPath)) return usageError("--cuda-path takes a directory"); }
    else if (a == "--libtorch") { if (!value(opts.cxx.libtorchDir)) return usageError("--libtorch takes a directory"); }
    else if (a == "-j" || a == "--jobs") {
      if (!value(v) || v.find_first_not_of("0123456789") != std::string::npos || v.empty() || v.size() > 4 ||
          std::stoul(v) == 0)
        return usageError(a + " takes a number of workers from 1 to 9999");
      opts.jobs = unsigned(std::stoul(v));
    }
    else if (a == "--color") cli.color = 1;
    else if (a == "--no-color") cli.color = 0;
    else if (a == "--no-source") cli.out.showSource = false;
    else if (a == "-q" || a == "--quiet") cli.quiet = true;
    else if (a == "--dump-model") opts.dumpModel = true;
    else if (a == "--no-prefilter") opts.prefilter = false;
    else if (a == "--keep-going") opts.keepGoing = true;
    else if (a == "--lang" || a == "--languages") {
      if (!value(v)) return usageError(a + " takes python, cpp or python,cpp");
      opts.languages.clear();
      std::stringstream ss(v);
      for (std::string item; std::getline(ss, item, ',');) {
        std::string lang = languageName(item);
        if (lang.empty()) return usageError(a + ": unknown language '" + item + "' (python, cpp)");
        opts.languages.push_back(lang);
      }
      if (opts.languages.empty()) return usageError(a + " takes python, cpp or python,cpp");
    }
    else if (a == "--extend-exclude") {
      if (!value(v)) return usageError("--extend-exclude takes globs");
      std::stringstream ss(v);
      for (std::string g; std::getline(ss, g, ',');) {
        if (g.empty()) continue;
        try {
          if (g.size() > 512) throw std::regex_error(std::regex_constants::error_complexity);
          Glob check(g);
        } catch (const std::regex_error&) {
          return usageError("--extend-exclude: malformed or too long glob '" + g.substr(0, 80) + "'");
        }
        opts.extendExclude.push_back(g);
      }
    }
    else if (a == "--show-fixes") cli.showFixes = true;
    else if (a == "--no-cache") cli.noCache = true;
    else if (a == "--fix") cli.fix = true;
    else if (a == "--diff-only") cli.fixDiffOnly = true;
    else if (a == "--cache-dir") { if (!value(cli.cacheDir) || cli.cacheDir.empty()) return usageError("--cache-dir takes a directory"); }
    else if (a.size() > 1 && a[0] == '@') {
      std::ifstream in(a.substr(1));
      if (!in) return usageError("cannot read paths file '" + a.substr(1) + "'");
      pathsFile = true;
      for (std::string line; std::getline(in, line);)
        if (!line.empty()) opts.paths.push_back(line);
    }
    else if (!a.empty() && a[0] == '-' && a != "-") return usageError("unknown option '" + a + "'");
    else opts.paths.push_back(a);
  }
  for (const auto& id : opts.select)
    if (!namesAnyRule(id)) return usageError("--select: unknown rule '" + id + "' (see `streamlint list-rules`)");
  for (const auto& id : opts.ignore)
    if (!namesAnyRule(id)) return usageError("--ignore: unknown rule '" + id + "' (see `streamlint list-rules`)");
  if (cli.fixDiffOnly && !cli.fix) return usageError("--diff-only previews --fix: give both");
  if (!cli.writeBaseline.empty() && !cli.baseline.empty())
    return usageError("--write-baseline and --baseline cannot be combined");
  if (opts.paths.empty() && opts.cxx.compileDbDir.empty() && !pathsFile) opts.paths.push_back(".");
  cli.pathsFromFile = pathsFile;
  return -1;
}

}  // namespace sl::cli
