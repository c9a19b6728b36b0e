#include "driver/Check.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <thread>
#include <unordered_map>

#include "config/Config.h"
#include "driver/DeliberateCode.h"
#include "driver/DiffScope.h"
#include "driver/DeliberatePolicy.h"
#include "driver/FileWalk.h"
#include "driver/HotHelpers.h"
#include "driver/ProjectIndex.h"
#include "core/Executable.h"
#include "core/PhaseTimes.h"
#include "driver/DeepStack.h"
#include "driver/FixApply.h"
#include "driver/Fixes.h"
#include "driver/Suppressions.h"
#include "model/ModelDump.h"
#include "python/PythonFrontend.h"
#include "rules/EventIndex.h"
#include "rules/Rule.h"

namespace sl {
namespace {

struct ActiveRule {
  const RuleInfo* info;
  std::unique_ptr<Rule> rule;
};

std::vector<ActiveRule> activeRules(const CheckOptions& opts) {
  std::vector<ActiveRule> out;
  for (const auto& r : ruleCatalogue())
    if (!r.runtime && ruleSelected(r.id, opts)) out.push_back({&r, makeRule(r.id)});
  return out;
}

// Whether `rule` applies to `path`: the command line's --select replaces the config's select,
// ignores from both add up, then the config's per-file-ignores.
bool enabled(const std::string& rule, const std::string& path, const Config& cfg, const CheckOptions& opts) {
  if (!opts.select.empty() ? !matchesAny(rule, opts.select) : cfg.select && !matchesAny(rule, *cfg.select))
    return false;
  return !matchesAny(rule, opts.ignore) && !matchesAny(rule, cfg.ignore) && !cfg.ignoredFor(rule, path);
}

// Why a performance note `f` of module `m` is left out as deliberate code, or "" (shown).
// `pathReason`: why m's file is deliberate code ("" when it is not).
std::string hiddenAsDeliberate(const Finding& f, const model::Module& m, const std::string& pathReason,
                               const Config& cfg, const CheckOptions& opts, const SourceFile* file) {
  if (opts.checkDeliberateCode || cfg.checkDeliberateCode) return "";
  const RuleInfo* rule = findRule(f.ruleId);
  if (!rule || !rule->performance()) return "";
  // The module's own text, for Python (a private helper's callers); C++ is judged by lines.
  // Not `cond ? file->text() : ""`: that conditional is a std::string temporary, and the view
  // would dangle (the set-up-by-callers search then read freed memory and found no callers).
  std::string_view src;
  if (file && m.lang == model::Lang::Python && f.path == file->path()) src = file->text();
  return deliberatePolicyReason({f, m, src, pathReason});
}

// --min-confidence, else the config's `min-confidence`, else medium.
int minConfidence(const CheckOptions& opts, const Config& cfg) {
  return opts.minConfidence >= 0 ? opts.minConfidence : cfg.minConfidence.value_or(int(model::Confidence::Medium));
}

// Runs rules on one module, drops findings the config disables or an inline marker
// suppresses, sets aside performance notes in deliberate code (`deliberate`), applies
// severity overrides and reports unused suppressions when asked. Returns how many findings
// were hidden for being less sure than the minimum confidence.
size_t judge(const model::Module& m, const SourceFile* file, const std::vector<ActiveRule>& rules,
             const Config& cfg, const CheckOptions& opts, const std::string& pathReason,
             std::vector<Finding>& out, std::vector<Finding>& deliberate,
             const model::ModuleSummary* projectSummary = nullptr) {
  const int minConf = minConfidence(opts, cfg);
  size_t hidden = 0;
  std::optional<model::ModuleSummary> own;
  if (!projectSummary) own.emplace(m);
  const model::ModuleSummary& summary = projectSummary ? *projectSummary : *own;
  std::vector<Finding> found;
  rules::EventIndexScope indices;  // the module is not changed while it is judged
  for (const auto& r : rules) {
    RuleContext ctx(*r.info, m, summary, found);
    r.rule->check(ctx);
  }
  std::optional<SuppressionLedger> ledger;
  if (file) ledger.emplace(*file);
  // C++: one finding per rule and line. Inlined helpers, macro-pasted code and several uses
  // dying at one closing brace all map onto one line; the first finding there says it.
  std::set<std::pair<std::string, uint32_t>> seen;
  // Python: one performance note per rule and position. A closure called directly is lowered at its call
  // too (PyLowering.cpp inlineClosure), so its enclosing function can report what the closure
  // reports of itself; the closure's own finding (a later function of the module) says more
  // (`in show2(), which runs on every iteration of...`) and is the one kept.
  // Two findings of one correctness rule at one position can be two problems (two tensors of
  // one call): they differ in their message, and only an identical one is a repeat.
  std::vector<bool> repeated(found.size(), false);
  if (m.lang == model::Lang::Python) {
    std::set<std::tuple<std::string, std::string, uint32_t, uint32_t, std::string>> later;
    for (size_t i = found.size(); i-- > 0;) {
      const RuleInfo* rule = findRule(found[i].ruleId);
      std::string message = rule && rule->performance() ? "" : found[i].message;
      repeated[i] = !later.insert({found[i].ruleId, found[i].path, found[i].loc.line, found[i].loc.col, message}).second;
    }
  }
  for (size_t i = 0; i < found.size(); ++i) {
    Finding& f = found[i];
    if (repeated[i]) continue;
    if (m.lang == model::Lang::Cpp && f.path == m.path && !seen.insert({f.ruleId, f.loc.line}).second) continue;
    if (!enabled(f.ruleId, f.path, cfg, opts)) continue;
    if (ledger && f.path == file->path() && ledger->suppress(f)) continue;
    attachEvidence(f, m);
    if (model::parseConfidence(f.properties.value("confidence", "high")) < minConf) {
      ++hidden;
      continue;
    }
    f.severity = cfg.severityOf(f.ruleId, f.severity);
    // After the suppressions: a `# noqa` in a test file still counts as used.
    if (std::string why = hiddenAsDeliberate(f, m, pathReason, cfg, opts, file); !why.empty()) {
      f.properties["deliberate"] = why;
      deliberate.push_back(std::move(f));
      continue;
    }
    if (file) attachFix(f, *file);
    out.push_back(std::move(f));
  }
  if (ledger && opts.reportUnusedSuppressions) {
    auto active = [&](const std::string& code) {
      bool ran = std::any_of(rules.begin(), rules.end(), [&](const ActiveRule& r) { return r.info->id == code; });
      return ran && enabled(code, file->path(), cfg, opts);
    };
    ledger->reportUnused(active, out);
  }
  return hidden;
}

// Records the text of `file` as the basis of the fixes among `findings` (from index `from` on).
void noteFixBasis(const std::vector<Finding>& findings, size_t from, const SourceFile& file, CheckResult& res) {
  for (size_t i = from; i < findings.size(); ++i)
    if (!findings[i].fixes.empty()) {
      res.fixBasis[file.path()] = textDigest(file.text());
      return;
    }
}

// The Clang frontend lives in a plugin so the main binary needs no LLVM at run time.
cxx::AnalyzeFn loadCxxPlugin(std::string& error) {
  std::string path = executableDir() + "/../lib/" + cxx::kPluginFile;
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    // Installed from the wheel, the frontend is its own wheel (it needs LLVM 19's libraries).
    error = std::string("C/C++ analysis needs the Clang 19 frontend (") + path + "): " + ::dlerror() +
            " (from a wheel: pip install streamlint-cxx, with LLVM 19's shared libraries installed)";
    return nullptr;
  }
  auto abi = reinterpret_cast<cxx::AbiFn>(::dlsym(h, cxx::kAbiSymbol));
  const std::string theirs = abi ? abi() : "none", ours = cxx::abiStamp();
  if (theirs != ours) {
    error = "C/C++ analysis: the Clang 19 frontend " + path + " was built for another streamlint (layout " + theirs +
            ", this binary " + ours + "); install the frontend built with this binary";
    ::dlclose(h);
    return nullptr;
  }
  auto fn = reinterpret_cast<cxx::AnalyzeFn>(::dlsym(h, cxx::kAnalyzeSymbol));
  if (!fn) error = path + ": has no " + cxx::kAnalyzeSymbol;
  return fn;
}

// C/C++ parse failures: accepted under --keep-going (or the file's config); a missing header
// is reported once with the files it cost, since one missing include path (a submodule, a
// generated or fetched header) typically touches dozens of files. The frontend skips the
// missing `#include` and analyses the rest of the file; a file is skipped only when what is
// left does not parse into a program.
void reportCppDiagnostics(const CheckOptions& opts, cxx::Result& out, ConfigResolver& configs, CheckResult& res) {
  res.cppUnits += out.translationUnits;
  std::map<std::string, std::vector<Finding>> byHeader;
  for (auto& d : out.diagnostics) {
    if (d.ruleId != "parse-error") {
      res.diagnostics.push_back(std::move(d));
      continue;
    }
    if (!d.properties.is_object()) d.properties = nlohmann::json::object();
    bool skipped = d.properties.value("skipped", false);
    res.cppSkipped += skipped;
    res.cppPartial += !skipped;
    auto cfg = configs.forFile(d.path);
    d.properties["keepGoing"] = opts.keepGoing || (cfg && cfg->keepGoing) || d.properties.contains("runtimeCompiled");
    std::string header = d.properties.value("missingHeader", std::string());
    if (!header.empty()) byHeader[header].push_back(std::move(d));
    else res.diagnostics.push_back(std::move(d));
  }
  for (auto& [header, ds] : byHeader) {
    if (ds.size() == 1) {
      res.diagnostics.push_back(std::move(ds[0]));
      continue;
    }
    sortFindings(ds);
    Finding f = ds[0];
    bool keepGoing = true;
    size_t skipped = 0;
    nlohmann::json files = nlohmann::json::array();
    for (const auto& d : ds) {
      keepGoing = keepGoing && d.properties.value("keepGoing", false);
      skipped += d.properties.value("skipped", false);
      files.push_back(d.path);
    }
    std::string cost = skipped == ds.size() ? std::to_string(ds.size()) + " files skipped"
        : std::to_string(ds.size() - skipped) + " files analysed without it" +
              (skipped ? ", " + std::to_string(skipped) + " skipped" : "") + " (findings there may be incomplete)";
    f.message = "'" + header + "' not found: " + cost + "; first included at " +
                ds[0].properties.value("includedAt", ds[0].path) +
                "; add its directory with -- -I DIR, or analyse with -p BUILD_DIR";
    f.loc = {};
    f.properties["files"] = std::move(files);
    f.properties["keepGoing"] = keepGoing;
    f.properties["skipped"] = skipped == ds.size();
    res.diagnostics.push_back(std::move(f));
  }
}

// A CUDA source that a Python file names ("chunked_kernel.cu") is usually compiled at run time
// (NVRTC, cupy.RawKernel, torch.utils.cpp_extension.load) with flags only that code knows:
// its parse failure says so, and is accepted like --keep-going's (the run is not failed for
// a file no build compiles). Only failing files are looked up, so a clean run reads nothing.
void explainRuntimeCompiled(std::vector<Finding>& diagnostics, const std::vector<std::string>& pythonFiles) {
  std::map<std::string, std::vector<Finding*>> byName;  // quoted basename -> its failures
  for (auto& d : diagnostics)
    if (d.ruleId == "parse-error") byName["\"" + std::filesystem::path(d.path).filename().string() + "\""].push_back(&d);
  if (byName.empty()) return;
  for (const auto& py : pythonFiles) {  // each file read once, however many failures
    std::string e;
    auto file = SourceFile::load(py, e);
    if (!file) continue;
    const std::string_view text = file->text();
    for (auto it = byName.begin(); it != byName.end();) {
      const std::string& quoted = it->first;
      std::string single = "'" + quoted.substr(1, quoted.size() - 2) + "'";
      if (text.find(quoted) == std::string_view::npos && text.find(single) == std::string_view::npos) {
        ++it;
        continue;
      }
      for (Finding* d : it->second) {
        d->message += "; " + py + " names it: a source compiled at run time (NVRTC, cupy, cpp_extension.load) is not"
                      " counted as a failure (give its flags after --, or exclude it)";
        if (!d->properties.is_object()) d->properties = nlohmann::json::object();
        d->properties["runtimeCompiled"] = py;
      }
      it = byName.erase(it);
    }
    if (byName.empty()) return;
  }
}

void checkCpp(const CheckOptions& opts, const std::vector<std::string>& files,
              const std::vector<std::string>& pythonFiles,
              const std::vector<ActiveRule>& rules, ConfigResolver& configs, ProjectRoots& roots,
              CheckResult& res) {
  std::string err;
  cxx::AnalyzeFn analyze = loadCxxPlugin(err);
  if (!analyze) {
    // Like a file that cannot be parsed, a missing frontend costs C/C++ coverage only:
    // --keep-going (or the config's keep-going) accepts that too.
    const std::string where = files.empty() ? opts.cxx.compileDbDir : files[0];
    auto cfg = configs.forFile(where);
    Finding f{"input-error", Severity::Error, where, {}, err + "; or leave C/C++ out: --lang python", {}, {}};
    f.properties = {{"keepGoing", opts.keepGoing || (cfg && cfg->keepGoing)}};
    res.diagnostics.push_back(std::move(f));
    return;
  }
  cxx::Request req = opts.cxx;
  req.files = files;
  if (!req.jobs) req.jobs = opts.jobs;
  req.progress = opts.progress ? 1 : opts.progressLines ? 2 : 0;
  cxx::Result out;
  analyze(req, out);
  explainRuntimeCompiled(out.diagnostics, pythonFiles);
  reportCppDiagnostics(opts, out, configs, res);
  res.files += out.analyzed;
  for (const auto& m : out.modules) {
    // Files from a compilation database were not walked: their config is looked up here.
    std::string canonical;
    auto cfg = configs.forFile(m.path, &canonical);
    if (!cfg || cfg->excluded(m.path)) continue;
    std::string e;
    auto file = SourceFile::load(m.path, e);
    const size_t before = res.findings.size();
    res.hiddenUnsure += judge(m, file ? &*file : nullptr, rules, *cfg, opts, roots.deliberateReason(canonical, cfg->dir),
                              res.findings, res.hiddenDeliberate);
    if (file) noteFixBasis(res.findings, before, *file, res);
    for (const auto& c : out.configurations)
      if (c.path == m.path)
        for (size_t i = before; i < res.findings.size(); ++i) {
          res.findings[i].notes.push_back({c.path, {c.line, 1}, c.note});
          res.findings[i].properties["configuration"] = c.note;
        }
    if (opts.dumpModel) res.modelDump += "# " + m.path + "\n" + model::dump(m);
  }
}

}  // namespace

namespace {

bool hasLanguage(const std::vector<std::string>& list, const char* lang) {
  return std::find(list.begin(), list.end(), lang) != list.end();
}

// --lang, else the config's `languages`, else on (Python's default).
bool languageWanted(const CheckOptions& opts, const Config& cfg, const char* lang) {
  if (!opts.languages.empty()) return hasLanguage(opts.languages, lang);
  return !cfg.languages || hasLanguage(*cfg.languages, lang);
}

// Whether a C/C++ file is analysed. Python-first, as clang-tidy is compile-database-first: a
// PyTorch repository's C/C++ (extensions built by setup.py, kernels read by NVRTC) usually
// has flags only its build knows, so a walk analyses it when a compilation database says how
// to compile, or when asked (--lang, `languages`); a file named as an input is always asked
// for. nullopt: left out by that default (listed, never a failure); false: left out by choice.
std::optional<bool> cppWanted(const CheckOptions& opts, const Config& cfg, bool named) {
  if (!opts.languages.empty()) return hasLanguage(opts.languages, "cpp");
  if (cfg.languages) return hasLanguage(*cfg.languages, "cpp");
  if (named || !opts.cxx.compileDbDir.empty()) return true;
  return std::nullopt;
}

}  // namespace

void mergeResults(CheckResult& whole, CheckResult part) {
  auto append = [](std::vector<Finding>& to, std::vector<Finding>& from) {
    for (auto& f : from) to.push_back(std::move(f));
    sortFindings(to);
  };
  append(whole.findings, part.findings);
  append(whole.diagnostics, part.diagnostics);
  append(whole.hiddenDeliberate, part.hiddenDeliberate);
  whole.files += part.files;
  whole.cppUnits += part.cppUnits;
  whole.cppSkipped += part.cppSkipped;
  whole.cppPartial += part.cppPartial;
  for (auto& f : part.cppOff) whole.cppOff.push_back(std::move(f));
  whole.bytes += part.bytes;
  whole.hiddenUnsure += part.hiddenUnsure;
  whole.modelDump += part.modelDump;
  whole.fixBasis.merge(part.fixBasis);
}

bool ruleSelected(const std::string& id, const CheckOptions& opts) {
  auto matches = [&](const std::vector<std::string>& list) {
    for (const auto& s : list)
      if (id.rfind(s, 0) == 0) return true;
    return false;
  };
  if (!opts.select.empty() && !matches(opts.select)) return false;
  return !matches(opts.ignore);
}

CheckResult runCheck(const CheckOptions& opts) {
  CheckResult res;
  WalkResult inputs = opts.walked ? *opts.walked : walkInputs(opts.paths);
  phaseDone("walk");
  const std::vector<std::string> walkedPython = inputs.python;  // for explainRuntimeCompiled
  if (!opts.runPython) inputs.python.clear(), inputs.errors.clear();  // the other half's
  for (const auto& e : inputs.errors) {
    std::string path = e.substr(0, e.find(": "));
    res.diagnostics.push_back({"input-error", Severity::Error, path, {}, e.substr(path.size() + 2), {}, {}});
  }
  // 1. Read every Python file. A loader thread starts now, on the core that would idle while
  // the configs are resolved; the workers read what it has not reached (below).
  struct Loaded {
    std::optional<SourceFile> file;
    std::string error;
  };
  std::vector<Loaded> loaded(inputs.python.size());  // in walk order
  std::atomic<size_t> nextLoad{0};
  auto loadRest = [&] {
    for (size_t n; (n = nextLoad++) < loaded.size();) {
      setCurrentInput(&inputs.python[n]);
      loaded[n].file = SourceFile::load(inputs.python[n], loaded[n].error);
    }
    setCurrentInput(nullptr);
  };
  std::jthread loader(loadRest);  // joined on every way out
  // Configs are resolved here, before the workers start (the resolver is not thread-safe);
  // excluded files are dropped, named ones too, so pre-commit's file lists honour `exclude`.
  ConfigResolver configs(opts.configFile);
  Config cliExclude;  // --extend-exclude: relative to the current directory (dir "")
  for (const auto& g : opts.extendExclude) cliExclude.exclude.emplace_back(g);  // checked by the CLI
  ProjectRoots roots;  // like the configs, resolved before the workers start
  roots.setInputs(opts.paths);
  std::vector<std::shared_ptr<const Config>> pyConfigs;
  std::vector<std::string> pyDeliberate;  // why each Python input is deliberate code, or ""
  std::vector<size_t> pyKept;             // walk index of each Python input kept
  for (size_t n = 0; n < inputs.python.size(); ++n) {  // (the loader reads inputs.python)
    const std::string& f = inputs.python[n];
    std::string canonical;
    auto cfg = configs.forFile(f, &canonical);
    if (!cfg || cfg->excluded(f) || cliExclude.excluded(f) || !languageWanted(opts, *cfg, "python")) continue;
    pyConfigs.push_back(cfg);
    pyDeliberate.push_back(roots.deliberateReason(canonical, cfg->dir));
    pyKept.push_back(n);
  }
  {
    std::vector<std::string> kept;
    for (auto& f : opts.runCpp ? inputs.cpp : std::vector<std::string>{}) {
      auto cfg = configs.forFile(f);
      if (!cfg || cfg->excluded(f) || cliExclude.excluded(f)) continue;
      if (std::optional<bool> on = cppWanted(opts, *cfg, inputs.cppNamed.count(f) > 0)) {
        if (*on) kept.push_back(std::move(f));
      } else {
        res.cppOff.push_back(std::move(f));  // left out by the default: listed once
      }
    }
    inputs.cpp = std::move(kept);
  }
  if (!opts.configFile.empty()) configs.forFile(opts.configFile);  // a forced config is checked even with no inputs
  if (!configs.errors().empty()) {
    res.diagnostics.clear();
    for (const auto& e : configs.errors()) {
      std::string path = e.substr(0, e.find(": "));
      res.diagnostics.push_back({"config-error", Severity::Error, path, {}, e.substr(path.size() + 2), {}, {}});
    }
    return res;
  }
  const auto rules = activeRules(opts);
  phaseDone("configs");

  // Python: one task per file; workers take the next index. Results land in per-file slots
  // so output order never depends on scheduling.
  struct Slot {
    std::vector<Finding> findings, diagnostics, deliberate;
    std::string dump;
    size_t bytes = 0, hidden = 0;
    bool analysed = false;
    std::optional<SourceFile> file;      // kept between lowering and judging
    std::optional<model::Module> module;
    std::optional<model::ModuleSummary> summary;
  };
  const char* noPrefilter = std::getenv("STREAMLINT_NO_PREFILTER");
  const bool prefilter = opts.prefilter && !opts.dumpModel && !(noPrefilter && *noPrefilter);
  unsigned jobs = opts.jobs ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, pyKept.size()));
  // The rest of the reading, on every worker (the loader's share is done when it returns).
  runOnDeepStacks(jobs, loadRest);
  loader.join();
  std::vector<Slot> slots(pyKept.size());
  {
    std::vector<std::string> kept;
    for (size_t i = 0; i < pyKept.size(); ++i) {
      Loaded& l = loaded[pyKept[i]];
      kept.push_back(std::move(inputs.python[pyKept[i]]));
      if (l.file) slots[i].file = std::move(l.file);
      else slots[i].diagnostics.push_back({"input-error", Severity::Error, kept.back(), {}, l.error, {}, {}});
    }
    inputs.python = std::move(kept);
    loaded.clear();
  }
  phaseDone("read");
  // Biggest files first, so that no worker starts a large file when the others are done.
  std::vector<size_t> order(slots.size());
  {
    std::vector<size_t> size(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) size[i] = slots[i].file ? slots[i].file->text().size() : 0, order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });
  }
  auto parallel = [&](auto&& task) {  // task(slot index), biggest files first
    std::atomic<size_t> next{0};
    // Deep stacks: the lowering recurses over the syntax tree (driver/DeepStack.h).
    runOnDeepStacks(jobs, [&] {
      for (size_t n; (n = next++) < slots.size();) {
        setCurrentInput(&inputs.python[order[n]]);
        task(order[n]);
      }
      setCurrentInput(nullptr);
    });
  };
  // One file naming CUDA makes the whole input set GPU code: model files rarely say "cuda".
  const bool usesCuda =
      std::any_of(slots.begin(), slots.end(), [](const Slot& s) { return s.file && py::namesCuda(s.file->text()); });
  // --diff: judge the changed files; lower them and what their findings depend on (DiffScope.h).
  std::vector<bool> judged(slots.size(), true), lower(slots.size(), true);
  std::optional<DiffScope> scope;
  if (opts.pythonOnly) {
    std::set<std::string> only(opts.pythonOnly->begin(), opts.pythonOnly->end());
    std::vector<std::string_view> texts(slots.size());
    for (size_t i = 0; i < slots.size(); ++i) {
      std::error_code ec;
      judged[i] = only.count(std::filesystem::weakly_canonical(std::filesystem::absolute(inputs.python[i], ec), ec).string());
      if (slots[i].file) texts[i] = slots[i].file->text();
    }
    scope.emplace(inputs.python);
    lower = scope->firstRound(texts, judged);
  }
  // 2. Lower every file (in parallel).
  std::atomic<size_t> done{0};
  auto lowerSlot = [&](size_t i) {
    Slot& s = slots[i];
    if (s.file) {
      s.bytes = s.file->text().size();
      const Config& cfg = *pyConfigs[i];
      const bool low = minConfidence(opts, cfg) == int(model::Confidence::Low);
      s.module = py::lowerPython(*s.file, s.diagnostics, cfg.knowledge, prefilter && !low, usesCuda);
      s.summary.emplace(*s.module);
      if (opts.dumpModel) s.dump = "# " + s.module->path + "\n" + model::dump(*s.module);
      s.analysed = true;
    }
    size_t d = ++done;
    if (opts.progress && (d % 64 == 0 || d == slots.size()))
      std::fprintf(stderr, "\rstreamlint: %zu/%zu Python files", d, slots.size());
  };
  parallel([&](size_t i) {
    if (lower[i]) lowerSlot(i);
  });
  phaseDone("lower");
  if (opts.progress && !slots.empty()) std::fprintf(stderr, "\n");
  // 3. Helpers that per-step code in another file calls run every step (driver/HotHelpers.h).
  // The prefilter decided file by file: a module whose helper it dropped is lowered again with
  // that helper kept as a root (with everything its lowering reads).
  {
    std::vector<const model::Module*> lowered;
    std::vector<model::Module*> marked;
    std::vector<std::string_view> texts;
    std::vector<size_t> slotOf;
    for (size_t i = 0; i < slots.size(); ++i)
      if (slots[i].module) {
        lowered.push_back(&*slots[i].module), marked.push_back(&*slots[i].module);
        texts.push_back(slots[i].file->text()), slotOf.push_back(i);
      }
    std::vector<HotHelperCall> calls = findHotHelperCalls(lowered, texts);
    phaseDone("helpers");
    std::vector<size_t> again = unparsedHelpers(lowered, calls);
    std::unordered_map<size_t, std::vector<std::string>> roots;  // module -> its dropped helpers
    for (size_t m : again)
      for (const auto& c : calls)
        if (c.callee == m) roots[m].push_back(c.function);
    auto rootsOf = [&](size_t m) -> const std::vector<std::string>* {
      auto it = roots.find(m);
      return it == roots.end() ? nullptr : &it->second;
    };
    std::atomic<size_t> next{0};
    if (!again.empty())
      runOnDeepStacks(std::min<unsigned>(jobs, unsigned(again.size())), [&] {
        for (size_t n; (n = next++) < again.size();) {
          size_t i = slotOf[again[n]];
          setCurrentInput(&inputs.python[i]);
          std::vector<Finding> reported;  // the first lowering's diagnostics stand
          const bool low = minConfidence(opts, *pyConfigs[i]) == int(model::Confidence::Low);
          slots[i].module = py::lowerPython(*slots[i].file, reported, pyConfigs[i]->knowledge, prefilter && !low,
                                            usesCuda, nullptr, rootsOf(again[n]));
          slots[i].summary.emplace(*slots[i].module);
        }
        setCurrentInput(nullptr);
      });
    markHotHelpers(marked, calls);
    // A helper's tensor parameters that its per-step caller fills with CUDA tensors are on the
    // GPU as surely as those (medium): its module is lowered again knowing it, then marked.
    auto fromCallers = callerInputs(lowered, calls);
    std::vector<std::pair<size_t, const py::CallerInputs*>> informed;
    for (const auto& [m, c] : fromCallers) informed.emplace_back(m, &c);
    std::sort(informed.begin(), informed.end());
    next = 0;
    if (!informed.empty())
      runOnDeepStacks(std::min<unsigned>(jobs, unsigned(informed.size())), [&] {
        for (size_t n; (n = next++) < informed.size();) {
          size_t i = slotOf[informed[n].first];
          setCurrentInput(&inputs.python[i]);
          std::vector<Finding> reported;  // the first lowering's diagnostics stand
          // The prefilter of the lowering that kept the helper (it has events), roots included.
          const bool low = minConfidence(opts, *pyConfigs[i]) == int(model::Confidence::Low);
          slots[i].module = py::lowerPython(*slots[i].file, reported, pyConfigs[i]->knowledge, prefilter && !low,
                                            usesCuda, informed[n].second, rootsOf(informed[n].first));
          slots[i].summary.emplace(*slots[i].module);
        }
        setCurrentInput(nullptr);
      });
    if (!informed.empty()) markHotHelpers(marked, calls);
    phaseDone("relower");
    if (opts.dumpModel && !calls.empty())
      for (auto& s : slots)
        if (s.module) s.dump = "# " + s.module->path + "\n" + model::dump(*s.module);
  }
  // 3b. --diff: the modules the judged files' calls can reach, round after round (DiffScope.h).
  if (scope) {
    std::vector<bool> reached(judged);
    std::vector<size_t> frontier;
    for (size_t i = 0; i < slots.size(); ++i)
      if (judged[i]) frontier.push_back(i);
    while (!frontier.empty()) {
      std::vector<size_t> named, next;
      for (size_t i : frontier)
        if (slots[i].module)
          for (const auto& f : slots[i].module->functions)
            for (const auto& e : f.events)
              if (e.kind == model::EventKind::Call && !e.callee.empty()) scope->modulesCalled(i, e.callee, named);
      std::vector<bool> pending(slots.size(), false);
      for (size_t m : named)
        if (!reached[m]) {
          reached[m] = true;
          next.push_back(m);
          pending[m] = !lower[m];
          lower[m] = true;
        }
      parallel([&](size_t i) {
        if (pending[i]) lowerSlot(i);
      });
      frontier = std::move(next);
    }
  }
  // 4. Calls across files: callee summaries flow to their callers in other modules.
  std::vector<const model::Module*> modules;
  std::vector<model::ModuleSummary*> summaries;
  for (auto& s : slots)
    if (s.module) modules.push_back(&*s.module), summaries.push_back(&*s.summary);
  ProjectIndex project(modules, summaries);
  for (auto& s : slots)
    if (s.module) model::settleHandedStreams(*s.module, *s.summary), model::applyParameterEffects(*s.module, *s.summary);
  phaseDone("index");
  // 5. Judge every module against the project-wide summaries (in parallel).
  parallel([&](size_t i) {
    Slot& s = slots[i];
    if (!s.module || !judged[i]) return;
    s.hidden = judge(*s.module, &*s.file, rules, *pyConfigs[i], opts, pyDeliberate[i], s.findings, s.deliberate,
                     &*s.summary);
  });  // (modules stay alive until the end: other modules' summaries point at their events)
  phaseDone("judge");
  for (auto& s : slots) {
    if (s.file) noteFixBasis(s.findings, 0, *s.file, res);
    for (auto& f : s.findings) res.findings.push_back(std::move(f));
    for (auto& d : s.diagnostics) res.diagnostics.push_back(std::move(d));
    for (auto& h : s.deliberate) res.hiddenDeliberate.push_back(std::move(h));
    res.modelDump += s.dump;
    res.bytes += s.bytes;
    res.files += s.analysed;
    res.hiddenUnsure += s.hidden;
  }

  const bool cppOn = opts.languages.empty() || std::count(opts.languages.begin(), opts.languages.end(), "cpp");
  if (opts.runCpp && (!inputs.cpp.empty() || (!opts.cxx.compileDbDir.empty() && !opts.compileDbFound && cppOn))) {
    checkCpp(opts, inputs.cpp, walkedPython, rules, configs, roots, res);
    phaseDone("c/c++");
  }
  sortFindings(res.findings);
  sortFindings(res.hiddenDeliberate);
  sortFindings(res.diagnostics);
  if (opts.exitsAfter) {  // never destroyed, but still reachable: leak checkers do not count it
    static auto* retained = new std::vector<std::vector<Slot>>;
    retained->push_back(std::move(slots));
  }
  return res;
}

}  // namespace sl
