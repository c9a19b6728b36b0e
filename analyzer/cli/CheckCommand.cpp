// `streamlint check`: run the analysis, narrow the findings for gating (baseline, diff), write
// them. Options are parsed in CheckOptions.cpp.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <map>

#include "cli/CheckOptions.h"
#include "config/Config.h"
#include "core/AtomicWrite.h"
#include "core/TextEdits.h"
#include "core/PhaseTimes.h"
#include "driver/Baseline.h"
#include "driver/FileWalk.h"
#include "driver/FixApply.h"
#include "driver/GitDiff.h"
#include "driver/ResultCache.h"
#include "rules/Rule.h"

namespace sl::cli {
namespace {

int fail(const std::string& msg) {
  std::fprintf(stderr, "streamlint check: error: %s\n", msg.c_str());
  return 2;
}

// -o FILE: a file is replaced atomically; a device or pipe (-o /dev/stdout) is written as it is.
bool writeOutputFile(const std::string& path, std::string_view bytes, std::string& err) {
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (out.flush()) return true;
    err = path + ": " + std::strerror(errno ? errno : EIO);
    return false;
  }
  if (writeFileAtomically(path, bytes, err)) return true;
  err = path + ": " + err;
  return false;
}

// The compilation database beside the inputs, clang-tidy's way: DIR/compile_commands.json or
// DIR/build/compile_commands.json of the first directory input (or the current directory).
// "" when there is none, or when --lang leaves C/C++ out.
std::string foundCompileDb(const CheckOptions& opts) {
  if (!opts.languages.empty() && std::find(opts.languages.begin(), opts.languages.end(), "cpp") == opts.languages.end())
    return "";
  std::error_code ec;
  for (const auto& p : opts.paths) {
    if (!std::filesystem::is_directory(p, ec)) continue;
    for (const std::string& dir : {p, p + "/build"})
      if (std::filesystem::is_regular_file(dir + "/compile_commands.json", ec)) return dir;
    break;
  }
  return "";
}

// The walked C/C++ files the default left out, once: how many, a few of them, the switch.
std::string cppOffNote(const std::vector<std::string>& files) {
  std::string some;
  for (size_t i = 0; i < files.size() && i < 3; ++i) some += (i ? ", " : "") + files[i];
  if (files.size() > 3) some += ", ...";
  return plural(files.size(), "C/C++/CUDA file", "C/C++/CUDA files") + " not analysed (" + some +
         "): C/C++ is analysed with a compilation database (-p BUILD_DIR, or compile_commands.json in PATH or "
         "PATH/build), for files named as inputs, or with --lang python,cpp (config: languages = [\"python\", \"cpp\"])";
}

// --show-fixes: each file's fixes counted per rule, as ruff's "Fixed N errors:" list.
void showFixes(std::ostream& os, const std::vector<Finding>& findings, const char* done = nullptr) {
  std::map<std::string, std::map<std::string, size_t>> perFile;
  size_t n = 0;
  for (const auto& f : findings)
    if (!f.fixes.empty()) ++perFile[f.path][f.ruleId], ++n;
  if (!n) {
    os << "streamlint: no fixes" << (done ? " applied" : " available") << "\n";
    return;
  }
  os << (done ? "Fixed " : "Fixable with --fix: ") << plural(n, "finding", "findings") << ":\n";
  for (const auto& [path, rules] : perFile) {
    os << "- " << path << ":\n";
    for (const auto& [id, k] : rules) {
      const RuleInfo* r = findRule(id);
      os << "    " << k << " \u00d7 " << id << " (" << (r ? r->name : id) << ")\n";
    }
  }
}

}  // namespace

// Bad input exits 2, C/C++ files that could not be parsed included: the run did not cover
// them. --keep-going (config: keep-going = true) accepts partial C/C++ coverage: those files
// are still reported, and the exit status depends on the findings only.
static bool fatal(const CheckResult& res) {
  for (const auto& d : res.diagnostics)
    if (!(d.properties.is_object() && d.properties.value("keepGoing", false))) return true;
  return false;
}

// --fix: write the fixes (or, with --diff-only, print them), then check again: fixed findings
// are gone and the others' lines may have moved. A file that changed since it was analysed, or
// cannot be written back as it was stored, is left alone with a warning and the run exits 2; a
// failed write stops the run (exit 2) with the file as it was.
static int applyFixes(const Args& args, const CheckCli& cli, const CheckResult& res, const std::vector<Finding>& findings,
                      bool inputFailed) {
  FixRun plan = planFixes(findings, res.fixBasis, cli.check.paths);
  auto warn = [](const std::string& why) { std::fprintf(stderr, "streamlint check: warning: %s\n", why.c_str()); };
  for (const auto& why : plan.refused) warn(why);
  const bool refused = !plan.refused.empty();
  if (cli.fixDiffOnly) {
    for (const auto& [path, ff] : plan.files) std::cout << unifiedDiff(path, ff.before, ff.edits);
    if (!cli.quiet)
      std::fprintf(stderr, "streamlint: %zu fixes in %zu files, not applied (--diff-only)\n", plan.fixes, plan.files.size());
    return inputFailed || refused ? 2 : plan.fixes ? 1 : 0;
  }
  size_t skipped = 0, written = 0;
  bool unwritable = false;
  for (const auto& [path, ff] : plan.files) {
    std::string bytes, err;
    if (!fixedBytes(ff, bytes, skipped, err)) {
      warn(path + ": " + err);
      unwritable = true;
      continue;
    }
    if (!writeFileAtomically(path, bytes, err)) return fail("cannot write the fixes to " + path + ": " + err);
    ++written;
  }
  const size_t fixed = plan.fixes > skipped ? plan.fixes - skipped : 0;
  if (!cli.quiet)
    std::fprintf(stderr, "streamlint: fixed %s in %s%s\n", plural(fixed, "finding", "findings").c_str(),
                 plural(written, "file", "files").c_str(), skipped ? " (overlapping fixes left for a second --fix)" : "");
  if (cli.showFixes && !skipped) {  // with overlaps left, which ones were applied is the second run's to say
    std::vector<Finding> applied;
    for (const auto& f : findings)
      if (!f.fixes.empty() && plan.files.count(f.path)) applied.push_back(f);
    showFixes(std::cerr, applied, "applied");
  }
  Args again;
  for (const auto& a : args)
    if (a != "--fix" && a != "--show-fixes") again.push_back(a);
  const int rc = checkMain(again);
  return refused || unwritable ? 2 : rc;
}

int checkMain(const Args& args) {
  CheckCli cli;
  if (int rc = parseCheckArgs(args, cli); rc >= 0) return rc;
  CheckOptions& opts = cli.check;
  OutputOptions& out = cli.out;
  opts.progress = !cli.quiet && ::isatty(2);
  opts.exitsAfter = true;  // main() returns what this returns
  opts.progressLines = !cli.quiet && !opts.progress && out.format != Format::Lintrunner;
  out.color = cli.color < 0 ? (cli.outputFile.empty() && ::isatty(1)) : cli.color == 1;
  out.rules = &ruleCatalogue();
  out.toolCommand = commandLine("streamlint check", args);
  out.summary = !cli.quiet;

  // Ask git first: a bad revision should not cost a whole analysis.
  ChangedLines changed;
  std::string err;
  const std::string where = opts.paths.empty() ? "." : opts.paths.front();
  {
    // SARIF helpUri: the `docs-url` of the config governing the first input (a bad config is
    // reported by the check itself).
    std::error_code ec;
    ConfigResolver configs(opts.configFile);
    auto config = configs.forFile(std::filesystem::is_directory(where, ec) ? where + "/-" : where);
    if (config) out.docsUrl = config->docsUrl;
  }
  if (!cli.diffRev.empty()) {
    if (!changed.load(cli.diffRev, where, err)) return fail(err);
    // C/C++ translation units are independent: unchanged ones cannot gain findings on changed
    // lines, unless a header or build file changed. Python is project-wide: the changed files
    // are judged with what they depend on (driver/DiffScope.h).
    opts.cxx.only = changed.cppSourcesToAnalyse();
    opts.pythonOnly = changed.changedFiles();
  }

  // clang-tidy's rule: a compilation database beside the inputs says how to compile them.
  if (opts.cxx.compileDbDir.empty()) opts.compileDbFound = !(opts.cxx.compileDbDir = foundCompileDb(opts)).empty();

  // An unchanged Python tree is answered from the cache (driver/ResultCache.h); the C/C++ half
  // of the run, when there is one, is analysed every time and added.
  const ResultCache cache(cli.cacheDir);
  const char* noCacheEnv = std::getenv("STREAMLINT_NO_CACHE");  // benchmarks: always analyse
  const bool noCache = cli.noCache || (noCacheEnv && *noCacheEnv);
  bool cppWork = true;
  auto walked = std::make_shared<WalkResult>();
  const std::string key = noCache ? "" : ResultCache::keyFor(opts, &cppWork, walked.get());
  if (!key.empty()) opts.walked = walked;  // both halves use the key's walk: one walk a run
  std::optional<CheckResult> cached = cache.load(key);
  phaseDone("setup");
  CheckOptions pythonHalf = opts;
  pythonHalf.runCpp = key.empty();  // uncached: one run does both halves
  CheckResult res = cached ? std::move(*cached) : runCheck(pythonHalf);
  phaseDone("release");
  auto hasConfigError = [](const CheckResult& r) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [](const Finding& d) { return d.ruleId == "config-error"; });
  };
  bool configFailed = hasConfigError(res);
  // A cache entry that could not be written is reported, and the run exits 2 once its findings
  // are out (they are right; the disk is not).
  bool cacheFailed = false;
  if (!cached && !configFailed) {
    auto stored = cache.store(key, res);
    cacheFailed = stored.failed;
    if (stored.failed) fail(stored.note);
    else if (!stored.note.empty() && !cli.quiet) std::fprintf(stderr, "streamlint: note: %s\n", stored.note.c_str());
  }
  if (!key.empty() && cppWork && !configFailed) {
    CheckOptions cppHalf = opts;
    cppHalf.runPython = false;
    CheckResult cpp = runCheck(cppHalf);
    if (hasConfigError(cpp)) res = std::move(cpp);  // a config only C/C++ files use: its errors alone, as a whole run
    else mergeResults(res, std::move(cpp));
  }
  if (opts.dumpModel) std::fputs(res.modelDump.c_str(), stdout);
  // Input problems go to stderr in every format, and into SARIF's notifications and
  // lintrunner's messages too.
  bool configError = false;
  for (const auto& d : res.diagnostics) {
    std::string where = d.path + (d.loc.line ? ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) : "");
    std::fprintf(stderr, "%s: error: %s [%s]\n", where.c_str(), d.message.c_str(), d.ruleId.c_str());
    out.inputErrors.push_back(where + ": " + d.message);
    configError |= d.ruleId == "config-error";
  }
  if (configError) return 2;
  // Like ruff, a directory holding nothing to check (`check docs`) is a warning with exit 0; a
  // path that does not exist is an input error (above). Files the config excludes say nothing
  // (pre-commit names them), nor does an empty @PATHS_FILE (lintrunner: no files) or, under
  // --diff, C/C++ files skipped as unchanged.
  if (res.files == 0 && res.diagnostics.empty() && (opts.cxx.compileDbDir.empty() || opts.compileDbFound) && !cli.pathsFromFile &&
      !opts.cxx.only) {
    WalkResult found = walkInputs(opts.paths);
    if (found.python.empty() && found.cpp.empty()) {
      std::string where;
      for (const auto& p : opts.paths) where += (where.empty() ? "" : ", ") + p;
      std::fprintf(stderr, "streamlint check: warning: no Python or C/C++/CUDA files under %s\n", where.c_str());
      return 0;
    }
  }
  if (!res.cppOff.empty() && !cli.quiet) std::fprintf(stderr, "streamlint: note: %s\n", cppOffNote(res.cppOff).c_str());
  out.diagnostics = res.diagnostics;
  if ((res.cppSkipped || res.cppPartial) && !cli.quiet) {
    std::string what = res.cppPartial ? std::to_string(res.cppPartial) + " analysed only in part" : "";
    if (res.cppSkipped)
      what += (what.empty() ? "" : ", ") + std::to_string(res.cppSkipped) + " skipped (could not be parsed)";
    std::fprintf(stderr, "streamlint: of %s, %s%s\n", plural(res.cppUnits, "C/C++ file", "C/C++ files").c_str(), what.c_str(),
                 fatal(res) ? "" : "; accepted (keep-going, or sources compiled at run time)");
  }

  if (!cli.writeBaseline.empty()) {
    if (!writeBaseline(cli.writeBaseline, res.findings, err)) return fail(err);
    if (!cli.quiet)
      std::fprintf(stderr, "streamlint: wrote %zu findings to %s\n", res.findings.size(), cli.writeBaseline.c_str());
    return fatal(res) || cacheFailed ? 2 : 0;
  }
  std::vector<Finding> findings = std::move(res.findings);
  // The baseline sees every finding (occurrence counts must match the run that wrote it);
  // the diff narrows what is left.
  if (!cli.baseline.empty()) {
    BaselineResult b;
    if (!applyBaseline(cli.baseline, std::move(findings), b, err)) return fail(err);
    findings = std::move(b.fresh);
    if (!cli.quiet)
      std::fprintf(stderr, "streamlint: %zu findings accepted by the baseline, %zu new; %zu baseline entries no longer found\n",
                   b.known, findings.size(), b.stale);
  }
  if (!cli.diffRev.empty()) {
    if (!cli.quiet)
      std::fprintf(stderr, "streamlint: --diff %s: %s analysed (the changed ones and the files their findings depend on)\n",
                   cli.diffRev.c_str(), plural(res.files, "file", "files").c_str());
    auto narrow = [&](std::vector<Finding>& list) {
      std::vector<Finding> touched;
      for (auto& f : list)
        if (changed.contains(f.path, f.loc.line)) touched.push_back(std::move(f));
      list = std::move(touched);
    };
    narrow(findings);
    narrow(res.hiddenDeliberate);
  }
  out.hidden = std::move(res.hiddenDeliberate);
  if (cli.fix) return applyFixes(args, cli, res, findings, fatal(res) || cacheFailed);

  // -o FILE: the whole output, then one atomic write (a full disk leaves the old file, not a part).
  std::ostringstream file;
  std::ostream& os = cli.outputFile.empty() ? std::cout : file;
  // Text and concise end with the summary, all of it on the same stream as the findings (as
  // ruff's "Found N errors."); machine formats keep stdout for their document.
  const bool humanSummary = !cli.quiet && !cli.statistics && (out.format == Format::Text || out.format == Format::Concise);
  std::string unsure = res.hiddenUnsure ? plural(res.hiddenUnsure, "less certain finding", "less certain findings") +
                                              " not shown (--min-confidence low shows them)" : "";
  if (cli.statistics) writeStatistics(os, findings, out);
  else writeFindings(os, findings, out);
  if (humanSummary) {
    if (out.format == Format::Concise && !findings.empty()) os << findingsSummary(findings, out.hidden.size()) << "\n";
    // After an input error "no findings" would read as a clean run: the errors said enough.
    if (findings.empty() && res.diagnostics.empty())
      os << "streamlint: " << plural(res.files, "file", "files") << " analysed, no findings"
         << (out.hidden.empty() ? "" : "; " + hiddenSummary(out.hidden.size())) << "\n";
    if (!unsure.empty()) os << "streamlint: " << unsure << "\n";
  }
  if (cli.showFixes) showFixes(humanSummary ? os : std::cerr, findings);
  phaseDone("output");
  if (!cli.outputFile.empty()) {
    if (!writeOutputFile(cli.outputFile, file.view(), err)) return fail("cannot write the findings to " + err);
  } else if (!os.flush()) {  // a full disk or a closed pipe must not look like success with the findings lost
    return fail(std::string("cannot write the findings to standard output: ") + std::strerror(errno ? errno : EIO));
  }
  if (!cli.quiet && !humanSummary && !unsure.empty()) std::fprintf(stderr, "streamlint: %s\n", unsure.c_str());
  // lintrunner reads a non-zero exit as a broken linter; its messages carry the errors.
  if (out.format == Format::Lintrunner) return 0;
  if (fatal(res) || cacheFailed) return 2;
  return findings.empty() || cli.exitZero ? 0 : 1;
}

}  // namespace sl::cli
