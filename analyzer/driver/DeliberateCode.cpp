#include "driver/DeliberateCode.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "core/CanonicalPaths.h"
#include "python/PyFunctionRoles.h"

namespace sl {
namespace fs = std::filesystem;

namespace {

// What a file's name says it is (deliberatePathReason's file-name half), or "".
std::string deliberateFileName(const std::string& file) {
  std::string stem = file.substr(0, file.rfind('.'));
  std::string ext = file.substr(stem.size());
  if (file == "conftest.py") return file;
  if (stem.starts_with("test_")) return "test_*" + ext;
  if (stem.size() > 5 && stem.ends_with("_test")) return "*_test" + ext;
  // What a script's name says it is, by its words: `benchmark_attn.py`, `attn_bench.py`,
  // `gptq_example.py`, `numerical_tests_llama.py`, `convert_llama_checkpoint.py` (run once).
  std::vector<std::string> words;
  for (size_t b = 0, e; b <= stem.size(); b = e + 1) {
    e = stem.find('_', b);
    if (e == std::string::npos) e = stem.size();
    if (e > b) words.push_back(stem.substr(b, e - b));
  }
  if (words.size() < 2) return "";
  const std::string &first = words.front(), &last = words.back();
  for (const char* w : {"benchmark", "bench", "example", "demo"})
    if (first == w || last == w) return first == w ? std::string(w) + "_*" + ext : "*_" + std::string(w) + ext;
  for (const auto& w : words)
    if (w == "test" || w == "tests") return "*_" + w + "_*" + ext;
  if (first == "convert") return "convert_*" + ext;
  return "";
}

// The first directory of `relative` (its file's name aside) that is one of `names`, as "name/".
std::string directoryAmong(const std::string& relative, std::initializer_list<const char*> names) {
  size_t slash = relative.rfind('/');
  for (size_t b = 0, e; slash != std::string::npos && b <= slash; b = e + 1) {
    e = relative.find('/', b);
    std::string dir = relative.substr(b, e - b);
    for (const char* d : names)
      if (dir == d) return dir + "/";
  }
  return "";
}

}  // namespace

std::string deliberatePathReason(const std::string& relative) {
  if (relative.empty() || relative.starts_with("../") || relative == "..") return "";
  // Directories first: "tests/" says more than the file's name.
  std::string why = directoryAmong(relative, {"tests", "test", "testing", "test_utils", "benchmarks", "benchmark",
                                              "bench", "examples", "example", "tutorials", "tutorial", "archive",
                                              "archived"});
  if (why.empty()) why = deliberateFileName(relative.substr(relative.rfind('/') + 1));  // npos + 1 == 0
  // One-off scripts last: a file's name (`scripts/benchmark_attn.py`) says more, and the policy
  // keeps training code in these directories (DeliberatePolicy.h).
  return why.empty() ? directoryAmong(relative, {"scripts", "tools", "tasks"}) : why;
}

std::string ProjectRoots::gitRoot(const std::string& dir) {
  if (auto it = gitRoots_.find(dir); it != gitRoots_.end()) return it->second;
  std::error_code ec;
  std::string root;
  if (fs::exists(fs::path(dir) / ".git", ec)) {  // a directory, or a worktree's file
    root = dir;
  } else {
    fs::path parent = fs::path(dir).parent_path();
    if (!parent.empty() && parent != fs::path(dir)) root = gitRoot(parent.string());
  }
  return gitRoots_[dir] = root;
}

void ProjectRoots::setInputs(const std::vector<std::string>& paths) {
  std::error_code ec;
  inputs_.clear();
  for (const auto& p : paths) {
    fs::path abs = fs::weakly_canonical(fs::absolute(p, ec), ec);
    inputs_.push_back((fs::is_directory(abs, ec) ? abs : abs.parent_path()).string());
  }
  std::sort(inputs_.begin(), inputs_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

namespace {

// `path` relative to directory `root`, or "" when it does not lie under it. Both are canonical
// and absolute here (ConfigResolver::forFile, gitRoot, getcwd, setInputs), so a prefix test
// says what fs::path::lexically_relative says, without its per-component work (which was
// ~20k instructions a file, a third of the serial set-up before the workers start).
std::string relativeUnder(const std::string& path, const std::string& root) {
  if (root.empty()) return "";
  if (root[0] != '/' || path.empty() || path[0] != '/') {
    std::string rel = fs::path(path).lexically_relative(root).generic_string();
    return rel.starts_with("..") ? "" : rel;
  }
  const size_t n = root.back() == '/' ? root.size() : root.size() + 1;
  if (path.size() <= n || path.compare(0, root.size(), root) != 0 || path[n - 1] != '/') return "";
  return path.substr(n);
}

}  // namespace

std::string ProjectRoots::deliberateReason(const std::string& path, const std::string& configDir) {
  const std::string git = gitRoot(parentDir(path));
  if (cwd_.empty()) {
    std::error_code ec;
    cwd_ = fs::current_path(ec).string();
  }
  for (const std::string* root : std::initializer_list<const std::string*>{&configDir, &git, &cwd_})
    if (std::string rel = relativeUnder(path, *root); !rel.empty()) return deliberatePathReason(rel);
  for (const std::string& root : inputs_)
    if (std::string rel = relativeUnder(path, root); !rel.empty()) return deliberatePathReason(rel);
  return deliberatePathReason(path.substr(path.rfind('/') + 1));  // npos + 1 == 0
}

// A read at `line` in the body of a loop that also runs a backward pass: the training loop
// itself. Logging there with no interval guard (a guarded branch is not flagged at all) is
// paid on every step: torchtune moved its progress bar's `loss.item()` under
// `if step % log_every_n_steps == 0` for exactly that, so it is not deliberate.
bool inTrainingLoop(const model::Module& m, uint32_t line) {
  for (const auto& f : m.functions) {  // module-level code too: a script's loop
    if (f.name != "<module>" && (!f.endLine || line < f.loc.line || line > f.endLine)) continue;
    for (const auto& e : f.events) {
      if (e.loc.line != line) continue;
      int loop = model::enclosingScope(f, e.scope, model::ScopeKind::Loop);
      if (loop < 0) continue;
      for (const auto& b : f.events)
        if (b.kind == model::EventKind::Backward && model::scopeWithin(f, b.scope, loop)) return true;
    }
  }
  return false;
}

bool hotAround(const model::Module& m, uint32_t line) {
  for (const auto& f : m.functions)
    if (f.endLine && f.loc.line <= line && line <= f.endLine && f.name != "<module>" && !f.hot.empty())
      return true;
  return false;
}

// A wait the logging API itself causes (Lightning uploading a Python number): nobody asked
// for a value there, so it is no deliberate read (PyCalls.cpp lightningLog).
static bool loggerUploads(const model::Module& m, uint32_t line) {
  for (const auto& f : m.functions)
    if (f.endLine && f.loc.line <= line && line <= f.endLine)
      for (const auto& e : f.events)
        if (e.loc.line == line && e.kind == model::EventKind::HostSync && e.unrequested) return true;
  return false;
}

std::string deliberateSpanReason(const model::Module& m, uint32_t line) {
  for (const auto& [first, last] : m.failureOnly)
    if (first <= line && line <= last) return "`raise`";
  for (const auto& [first, last] : m.handlerOnly)
    if (first <= line && line <= last) return "an `except` handler";
  for (const auto& [first, last] : m.checkOnly)
    if (first <= line && line <= last) return "a check (`assert`, or an `if` that only raises)";
  for (const auto& [first, last] : m.exportOnly)
    if (first <= line && line <= last) return "export or tracing only";
  for (const auto& [first, last] : m.loggingOnly)
    if (first <= line && line <= last) return inTrainingLoop(m, line) || loggerUploads(m, line) ? "" : "logging";
  return "";
}

std::string deliberateRoleReason(const model::Module& m, uint32_t line) {
  // Enclosing functions, innermost first. The innermost with a role decides: a helper nested
  // in `__repr__` formats too, but a hook defined in `__init__` runs every step. One-time
  // set-up does not reach into nested functions: a closure made there is stored or registered
  // and runs later, as often as its owner calls it (a parameter's all-gather, a hook).
  std::vector<const model::Function*> enclosing;
  for (const auto& f : m.functions)
    if (f.endLine && f.loc.line <= line && line <= f.endLine && f.name != "<module>") enclosing.push_back(&f);
  std::sort(enclosing.begin(), enclosing.end(), [](const model::Function* a, const model::Function* b) {
    return a->endLine - a->loc.line < b->endLine - b->loc.line;
  });
  for (size_t i = 0; i < enclosing.size(); ++i) {
    const model::Function& f = *enclosing[i];
    // A function's own name or class says more than its hotness: `Observer.forward` runs per
    // calibration batch only, a hook named `log_grad_norm` logs.
    if (!f.deliberate.empty()) return i > 0 && f.deliberate.starts_with("one-time set-up") ? "" : f.deliberate;
    if (!f.hot.empty()) return "";
  }
  return "";
}

std::string deliberateLineReason(const model::Module& m, uint32_t line) {
  std::string why = deliberateSpanReason(m, line);
  return why.empty() ? deliberateRoleReason(m, line) : why;
}

namespace {
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The name of the `def` whose body holds offset `at` of Python source `src`, or "" when the
// line is not inside a function (module or class level) or the indentation cannot tell (a
// continuation or string line further left than the code around it ends the walk).
std::string_view enclosingDef(std::string_view src, size_t at) {
  size_t lineStart = src.rfind('\n', at);
  lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
  size_t indent = src.find_first_not_of(" \t", lineStart) - lineStart;
  while (lineStart > 0) {
    size_t end = lineStart - 1;  // the '\n' ending the previous line
    size_t start = src.rfind('\n', end - (end > 0));
    start = start == std::string_view::npos || end == 0 ? 0 : start + 1;
    lineStart = start;
    size_t first = src.find_first_not_of(" \t", start);
    if (first >= end || src[first] == '#') continue;  // blank or comment
    if (first - start >= indent) continue;            // the same block or deeper
    // The closing line of a `def` written over several lines (`    ) -> None:`) opens no block.
    if (src[first] == ')' || src[first] == ']' || src[first] == '}') continue;
    indent = first - start;
    std::string_view line = src.substr(first, end - first);
    if (line.starts_with("async ")) line.remove_prefix(6);
    if (line.starts_with("def ")) {
      line.remove_prefix(4);
      size_t n = 0;
      while (n < line.size() && identChar(line[n])) ++n;
      return line.substr(0, n);
    }
    if (indent == 0 || line.starts_with("class ")) return "";
  }
  return "";
}
}  // namespace

std::string setUpByCallers(const model::Module& m, uint32_t line, std::string_view src) {
  // The innermost function holding `line`, when neither it nor one around it has a role (a
  // helper nested in a hot or set-up function is judged by that function: deliberateLineReason).
  const model::Function* innermost = nullptr;
  for (const auto& f : m.functions) {
    if (!f.endLine || line < f.loc.line || line > f.endLine || f.name == "<module>") continue;
    if (!f.hot.empty() || !f.deliberate.empty()) return "";
    if (!innermost || f.endLine - f.loc.line < innermost->endLine - innermost->loc.line) innermost = &f;
  }
  return innermost && !src.empty() ? calledOnlyFromSetUp(*innermost, src) : "";
}

bool mentionInProse(std::string_view src, size_t at, size_t length) {
  if ((at > 0 && src[at - 1] == '`') || (at + length < src.size() && src[at + length] == '`')) return true;
  size_t lineStart = src.rfind('\n', at == 0 ? 0 : at - 1);
  lineStart = lineStart == std::string_view::npos || at == 0 ? 0 : lineStart + 1;
  std::string_view before = src.substr(lineStart, at - lineStart);
  if (before.find('#') != std::string_view::npos) return true;
  size_t quotes = 0;
  for (char c : before) quotes += c == '"' || c == '\'';
  return quotes % 2 == 1;
}

std::string calledOnlyFromSetUp(const model::Function& f, std::string_view src) {
  std::string_view name(f.name);
  name = name.substr(name.rfind('.') + 1);  // npos + 1 == 0
  // Private by name (`_build_index`, `__move`; not a dunder): no caller outside this file.
  if (name.size() < 2 || name[0] != '_' || name.ends_with("__")) return "";
  // Every mention of the name in the text, its definitions aside, must be a call made directly
  // in a set-up function (`__init__`, `setup_*`...: py::deliberateRole). The text, not the
  // lowered calls: the prefilter does not lower a constructor that names no tensor. A callback
  // (`hook=self._x`), a call from any other function or from a closure keeps the finding.
  std::string caller;
  for (size_t at = src.find(name); at != std::string_view::npos; at = src.find(name, at + name.size())) {
    size_t after = at + name.size();
    if ((at > 0 && identChar(src[at - 1])) || (after < src.size() && identChar(src[after]))) continue;
    if (mentionInProse(src, at, name.size())) continue;  // a log message or docstring naming the helper
    size_t k = at;
    while (k > 0 && (src[k - 1] == ' ' || src[k - 1] == '\t')) --k;
    if (k >= 3 && src.substr(k - 3, 3) == "def" && (k == 3 || !identChar(src[k - 4]))) continue;
    size_t paren = src.find_first_not_of(' ', after);
    if (paren == std::string_view::npos || src[paren] != '(') return "";
    std::string_view def = enclosingDef(src, at);
    if (def.empty() || !py::deliberateRole(def).starts_with("one-time set-up")) return "";
    if (caller.empty()) caller = def;
  }
  if (caller.empty()) return "";
  return "one-time set-up (called only from `" + caller + "`)";
}

}  // namespace sl
