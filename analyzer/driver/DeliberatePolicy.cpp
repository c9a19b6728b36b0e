#include "driver/DeliberatePolicy.h"

#include <filesystem>

#include "driver/DeliberateCode.h"
#include "driver/DeliberateShapes.h"
#include "driver/SourceLines.h"
#include "python/PyFunctionRoles.h"

namespace sl {
namespace fs = std::filesystem;
namespace {

uint32_t lineOf(const DeliberateQuery& q) { return q.finding.loc.line; }

// The lowered function whose `def` is on `line`, or null (the prefilter may not have lowered it).
const model::Function* functionAt(const model::Module& m, uint32_t line) {
  for (const auto& f : m.functions)
    if (f.loc.line == line && f.name != "<module>") return &f;
  return nullptr;
}

// Whether the line runs every training step: in a training loop, or in a function that is
// per-step code for a reason other than its name.
bool trains(const DeliberateQuery& q) { return inTrainingLoop(q.module, lineOf(q)) || hotAround(q.module, lineOf(q)); }

std::string byPath(const DeliberateQuery& q) { return oneOffScriptDirectory(q.pathReason) ? "" : q.pathReason; }

// Whether the nearest directory above `path` named like `reason` ("tasks/") is a package (holds
// `__init__.py`): then the library imports it (an RL project's `envs/maniskill/tasks/` runs
// every environment step) and it holds no scripts run by hand.
bool scriptDirectoryIsPackage(const std::string& path, std::string_view reason) {
  std::error_code ec;
  std::string_view name = reason.substr(0, reason.size() - 1);
  for (fs::path dir = fs::path(path).parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
    if (dir.filename() == name) return fs::exists(dir / "__init__.py", ec);
  return false;
}

std::string byScriptDirectory(const DeliberateQuery& q) {
  if (!oneOffScriptDirectory(q.pathReason) || trains(q)) return "";
  if (scriptDirectoryIsPackage(q.finding.path, q.pathReason)) return "";
  return q.pathReason + " (a one-off script)";
}

std::string bySpan(const DeliberateQuery& q) { return deliberateSpanReason(q.module, lineOf(q)); }

std::string byRole(const DeliberateQuery& q) { return deliberateRoleReason(q.module, lineOf(q)); }

// `if __name__ == "__main__":` at module level, not where the block trains.
std::string byMainBlock(const DeliberateQuery& q) {
  if (q.src.find("__main__") == std::string_view::npos) return "";
  const Lines& text = q.lines();
  for (uint32_t l = 1; l <= text.size() && l <= lineOf(q); ++l) {
    std::string_view c = text.code(l);
    if (text.indent(l) != 0 || !startsWithWord(c, "if") || c.find("__name__") == std::string_view::npos ||
        c.find("__main__") == std::string_view::npos)
      continue;
    if (lineOf(q) <= text.blockEnd(l, text.size()))
      return inTrainingLoop(q.module, lineOf(q)) ? "" : "a script's entry point (`if __name__ == \"__main__\":`)";
  }
  return "";
}

// Whether the module defines or imports `name` (a `def name(`, or the word on an import line).
bool definesOrImports(const Lines& text, const std::string& name) {
  if (name.empty()) return false;
  for (uint32_t l = 1; l <= text.size(); ++l) {
    std::string_view c = text.code(l);
    bool def = c.starts_with("def ") || c.starts_with("async def ");
    bool import = c.starts_with("from ") || c.starts_with("import ");
    if (!def && !import) continue;
    for (size_t at = c.find(name); at != std::string_view::npos; at = c.find(name, at + 1)) {
      size_t after = at + name.size();
      if ((at > 0 && identChar(c[at - 1])) || (after < c.size() && identChar(c[after]))) continue;
      if (import || (after < c.size() && c[after] == '(' && defName(c) == name)) return true;
    }
  }
  return false;
}

// Why a function so named is a test or a reference implementation, or "". A reference is named
// for what it checks (`attention_ref` beside `attention`, `ref_rmsnorm` beside an imported
// `rmsnorm`): the suffix or prefix alone is not enough (`get_ref`, `weak_ref` name no function).
std::string testOrReference(const Lines& text, const std::string& name) {
  if (name.empty() || py::namedAsPerStep(name)) return "";  // Lightning's `test_step` runs per batch
  if (name == "test" || name.starts_with("test_")) return "a test function `" + name + "`";
  const size_t lead = name.find_first_not_of('_');
  if (lead == std::string::npos) return "";
  std::string stem = name.substr(lead);  // what the reference checks, without leading underscores
  bool affix = false;
  for (std::string_view p : {"ref_", "reference_"})
    if (!affix && stem.starts_with(p) && stem.size() > p.size()) stem.erase(0, p.size()), affix = true;
  for (std::string_view sfx : {"_ref", "_reference"})
    if (!affix && stem.ends_with(sfx) && stem.size() > sfx.size()) stem.resize(stem.size() - sfx.size()), affix = true;
  if (!affix) return "";
  if (definesOrImports(text, name.substr(0, lead) + stem) || definesOrImports(text, stem))
    return "a reference implementation `" + name + "` (of `" + stem + "`)";
  return "";
}

// Any `def` around the line that is a test or a reference implementation.
std::string byTestOrReferenceFunction(const DeliberateQuery& q) {
  if (q.src.empty()) return "";
  const Lines& text = q.lines();
  for (uint32_t def = enclosingDefLine(text, lineOf(q)); def; def = enclosingDefLine(text, def))
    if (std::string why = testOrReference(text, defName(text.code(def))); !why.empty()) return why;
  return "";
}

std::string bySetUpCallers(const DeliberateQuery& q) {
  return q.src.empty() ? "" : setUpByCallers(q.module, lineOf(q), q.src);
}

// Whether the call on line `call` sits under an `if` that spaces it out in time, between it and
// the `def` of its caller on line `def`.
bool underIntervalGuard(const Lines& text, uint32_t def, uint32_t call) {
  size_t in = text.indent(call);
  for (uint32_t l = call; l-- > def;) {
    std::string_view c = text.code(l);
    if (c.empty() || text.indent(l) >= in || c[0] == ')' || c[0] == ']' || c[0] == '}') continue;
    in = text.indent(l);
    if ((startsWithWord(c, "if") || startsWithWord(c, "elif")) && py::spacesOutInTime(c)) return true;
  }
  return false;
}

// The function around the line is called only under interval guards (`if step % log_every ==
// 0: self.train_step_logs(...)`): what it reads is logging paid every N steps, whatever its name
// says (`train_step_logs` is per-step code by name).
std::string byIntervalGuardedCallers(const DeliberateQuery& q) {
  if (q.src.empty()) return "";
  const Lines& text = q.lines();
  uint32_t def = enclosingDefLine(text, lineOf(q));
  if (!def) return "";
  if (const model::Function* f = functionAt(q.module, def))
    if (!f->deliberate.empty() || (!f->hot.empty() && !py::hotByNameOnly(f->hot))) return "";
  std::string name = defName(text.code(def));
  std::string caller = callersOnly(text, name, def, text.blockEnd(def, text.size()),
                                   [&](uint32_t callerDef, uint32_t call) { return underIntervalGuard(text, callerDef, call); });
  return caller.empty() ? "" : "logging: called only under an interval guard (in `" + caller + "()`)";
}

std::string byStatementShape(const DeliberateQuery& q) { return deliberateShapeReason(q.finding, q.module, q.src); }

}  // namespace

bool oneOffScriptDirectory(std::string_view reason) {
  return reason == "scripts/" || reason == "tools/" || reason == "tasks/";
}

const std::vector<DeliberateEntry>& deliberatePolicy() {
  static const std::vector<DeliberateEntry> kPolicy = {
      {"path", "files under tests/, test/, testing/, test_utils/, benchmarks/, benchmark/, bench/, examples/, "
               "example/, tutorials/, archive/, archived/; test_*, *_test.*, conftest.py; scripts named "
               "benchmark_*, *_bench, *_example, demo_*, *_test_*, convert_*",
       "tests compare values on the host, benchmarks synchronize to time, examples print every step, "
       "archived copies do not run, conversions run once", byPath},
      {"one-off-script", "files under scripts/, tools/, tasks/ that is no package (no __init__.py), except in a "
                         "training loop or per-step code",
       "data preparation, evaluation and conversion scripts run once, by hand; a script that trains is "
       "judged like library code", byScriptDirectory},
      {"failure-check-export-logging", "`raise` statements, `except` handlers, `assert`s and `if`s that only "
                                       "raise, ONNX-export/tracing arms, statements whose values only go to output",
       "they run after a failure, validate a value, run once while exporting, or show a value (outside "
       "a training loop, where an unguarded read is paid every step)", bySpan},
      {"function-role", "`__repr__`-like formatting, one-time set-up by name (`__init__`, `init*`, `load_state_dict`...), "
                        "logging by name (`log_*`, `*_metrics`), quantization observers",
       "formatting and set-up run once per call of a person or per model; logging shows values",
       byRole},
      {"main-block", "the body of a module-level `if __name__ == \"__main__\":`, except a training loop in it",
       "a script's entry point runs when the file is run by hand, never when it is imported", byMainBlock},
      {"test-or-reference-function", "functions named `test_*` in library modules; `*_ref`/`ref_*`/`*_reference` "
                                     "beside the function they check (defined or imported in the module)",
       "a test or a reference implementation computes an answer to compare against, not the "
       "library's work", byTestOrReferenceFunction},
      {"set-up-callers", "a private helper called only directly from set-up functions",
       "it runs as often as the set-up that calls it: once", bySetUpCallers},
      {"interval-guarded-callers", "a function of the module called only under interval guards "
                                   "(`if step % log_every == 0:`)",
       "it runs every N steps, to log: the read is the price of showing a value", byIntervalGuardedCallers},
      {"statement-shape", "SL302's shapes: one bulk read per step, a loop's exit test, a value read only when "
                          "the caller omits it, first-use set-up, once per call outside a stepping loop",
       "the host needs the values there (DeliberateShapes.h)", byStatementShape},
  };
  return kPolicy;
}

const Lines& DeliberateQuery::lines() const {
  if (!lines_) lines_.emplace(src);
  return *lines_;
}

std::string deliberatePolicyReason(const DeliberateQuery& q) {
  for (const auto& e : deliberatePolicy())
    if (std::string why = e.test(q); !why.empty()) return why;
  return "";
}

}  // namespace sl
