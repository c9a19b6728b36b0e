#include "driver/Check.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "driver/FileWalk.h"
#include "driver/Suppressions.h"
#include "model/ModelDump.h"
#include "python/PythonFrontend.h"
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

// Runs rules on one module and drops findings an inline marker suppresses.
void judge(const model::Module& m, const SourceFile* file, const std::vector<ActiveRule>& rules,
           std::vector<Finding>& out) {
  model::ModuleSummary summary(m);
  std::vector<Finding> found;
  for (const auto& r : rules) {
    RuleContext ctx(*r.info, m, summary, found);
    r.rule->check(ctx);
  }
  for (auto& f : found) {
    if (file && f.path == file->path() &&
        suppressedBy(file->line(f.loc.line), f.loc.line > 1 ? file->line(f.loc.line - 1) : "", f.ruleId))
      continue;
    out.push_back(std::move(f));
  }
}

std::string selfDir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = 0;
  return std::filesystem::path(buf).parent_path().string();
}

// The Clang frontend lives in a plugin so the main binary needs no LLVM at run time.
cxx::AnalyzeFn loadCxxPlugin(std::string& error) {
  std::string path = selfDir() + "/../lib/" + cxx::kPluginFile;
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    error = std::string("C/C++ analysis needs the Clang 19 frontend (") + path + "): " + ::dlerror();
    return nullptr;
  }
  auto fn = reinterpret_cast<cxx::AnalyzeFn>(::dlsym(h, cxx::kAnalyzeSymbol));
  if (!fn) error = path + ": has no " + cxx::kAnalyzeSymbol;
  return fn;
}

void checkCpp(const CheckOptions& opts, const std::vector<std::string>& files,
              const std::vector<ActiveRule>& rules, CheckResult& res) {
  std::string err;
  cxx::AnalyzeFn analyze = loadCxxPlugin(err);
  if (!analyze) {
    res.diagnostics.push_back({"input-error", Severity::Error, files.empty() ? opts.cxx.compileDbDir : files[0],
                               {}, err, {}, {}});
    return;
  }
  cxx::Request req = opts.cxx;
  req.files = files;
  if (!req.jobs) req.jobs = opts.jobs;
  cxx::Result out;
  analyze(req, out);
  for (auto& d : out.diagnostics) res.diagnostics.push_back(std::move(d));
  res.files += out.analyzed;
  for (const auto& m : out.modules) {
    std::string e;
    auto file = SourceFile::load(m.path, e);
    judge(m, file ? &*file : nullptr, rules, res.findings);
    if (opts.dumpModel) res.modelDump += "# " + m.path + "\n" + model::dump(m);
  }
}

}  // namespace

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
  WalkResult inputs = walkInputs(opts.paths);
  for (const auto& e : inputs.errors) {
    std::string path = e.substr(0, e.find(": "));
    res.diagnostics.push_back({"input-error", Severity::Error, path, {}, e.substr(path.size() + 2), {}, {}});
  }
  const auto rules = activeRules(opts);

  // Python: one task per file; workers take the next index. Results land in per-file slots
  // so output order never depends on scheduling.
  struct Slot {
    std::vector<Finding> findings, diagnostics;
    std::string dump;
    size_t bytes = 0;
    bool analysed = false;
  };
  std::vector<Slot> slots(inputs.python.size());
  std::atomic<size_t> next{0}, done{0};
  unsigned jobs = opts.jobs ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, slots.size()));
  auto worker = [&] {
    for (size_t i; (i = next++) < slots.size();) {
      Slot& s = slots[i];
      std::string err;
      auto file = SourceFile::load(inputs.python[i], err);
      if (!file) {
        s.diagnostics.push_back({"input-error", Severity::Error, inputs.python[i], {}, err, {}, {}});
      } else {
        s.bytes = file->text().size();
        model::Module m = py::lowerPython(*file, s.diagnostics);
        judge(m, &*file, rules, s.findings);
        if (opts.dumpModel) s.dump = "# " + m.path + "\n" + model::dump(m);
        s.analysed = true;
      }
      size_t d = ++done;
      if (opts.progress && (d % 64 == 0 || d == slots.size()))
        std::fprintf(stderr, "\rstreamlint: %zu/%zu Python files", d, slots.size());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (opts.progress && !slots.empty()) std::fprintf(stderr, "\n");
  for (auto& s : slots) {
    for (auto& f : s.findings) res.findings.push_back(std::move(f));
    for (auto& d : s.diagnostics) res.diagnostics.push_back(std::move(d));
    res.modelDump += s.dump;
    res.bytes += s.bytes;
    res.files += s.analysed;
  }

  if (!inputs.cpp.empty() || !opts.cxx.compileDbDir.empty()) checkCpp(opts, inputs.cpp, rules, res);
  sortFindings(res.findings);
  sortFindings(res.diagnostics);
  return res;
}

}  // namespace sl
