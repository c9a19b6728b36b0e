// The prefilter (see PyPrefilter.h). Why its conditions are sound, from the frontend's side
// (PyExpr.cpp, PyCalls.cpp, PyLowering.cpp) and the rules' side:
//
// Units are top-level functions, top-level classes ("shells": the class minus its methods,
// which the frontend lowers only for nested classes) and the methods of top-level classes.
// A unit's lowering reads only its own text plus: import aliases (module-level ones and those
// of units lowered earlier), module globals (lowered from module-level code, always kept),
// `self.` facts of methods lowered earlier, and the names of the module's functions (Call
// events). Every fact the frontend derives starts from evidence whose spelling is visible in
// code (words in comments never count; in plain strings only "cuda" does):
//   * stream/event APIs and non_blocking copies: their names (stream, Stream, Event,
//     current_stream, wait_stream, non_blocking...), or an alias a `from ... import` line
//     binds next to such a name; project-configured helpers (their last name);
//   * a CUDA value: a string holding "cuda" (device strings), a name the frontend takes for a
//     device (`device`, `self._device`, `local_rank`), `.cuda(`, current_device /
//     empty_cache, an integer device (`device=0`, `.to(0)`, `device(0)`), a parameter
//     annotated `Tensor` / `torch.Tensor` (bare, Optional[...] or `| None`);
//   * clock reads: calls of time/perf_counter/monotonic/default_timer... or their aliases.
// Rules need, in the function they report in: a side-stream region or a stream/event API
// (SL1xx, SL201, SL301, SL303, SL401, SL602), a non_blocking copy (SL202-SL304), two clock
// calls (SL501), or an implicit sync inside a loop or inside a function that runs every step
// (SL302; PyFunctionRoles.h), which needs a CUDA value. So a unit is a *root* when it names
// stream/event/non_blocking vocabulary or an "interesting" global/`self.` attribute (one
// assigned on a line holding evidence, followed through local variables to a fixpoint), calls
// a clock twice, or has CUDA evidence and either a loop or the name of a per-step method
// (forward, backward, step, training_step: a method so named, or a class shell whose nested
// classes define one). A function named on a line that registers a per-step hook or patches
// a class's `forward` counts as per-step by name, and the unit holding that line is kept with
// it (the registration is what makes it hot: markHookTargets). A kept class keeps the classes
// its header names (a base's own bases decide whether `forward` runs every step).
// Helpers that per-step code calls (three levels, as PyFunctionRoles follows them) are kept
// with their callers when they hold CUDA evidence or a host read (`.item()`, `.cpu()`,
// `.device`...), and so are the methods that a method with a loop and CUDA evidence calls
// (PyHotClosures: a loop's body written as a method); so are class shells that annotate
// fields as tensors (what a parameter annotated with the class holds).
// Everything a kept unit's lowering reads is kept too: units whose imports bind a name it
// uses, units that assign a `self.X` it uses, and, for roots whose rules read callee
// summaries (SL203, SL301, SL401, SL501: all but loop-only roots), the functions it calls
// (`f(` / `self.m(`), transitively. Always kept: module-level code, functions named like the
// builtins the frontend treats as reads (print, float...), and units that nest a class
// (their methods' names could collide with other classes'). Matching is by name and
// over-approximate everywhere.
#include "python/PyPrefilter.h"

#include <array>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>

#include "python/PyApiTable.h"
#include "python/PyFunctionRoles.h"

namespace sl::py {
namespace {

// A table, not a chain of comparisons: the scan asks for every byte of every file (~1 % of a check).
constexpr auto kIdentChars = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[size_t(c)] = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
  return t;
}();
bool identChar(unsigned char c) { return kIdentChars[c]; }
// The bytes Planner::forEachTarget acts on (quotes, comments, brackets, `=`, `;`, line ends).
constexpr auto kTargetBytes = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("'\"#()[]{}=;\n")) t[c] = true;
  return t;
}();
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }

struct Line {       // one logical line (brackets, strings, continuations joined)
  uint32_t begin;   // start of its first physical line (column 0)
  uint32_t code;    // its first non-blank byte
  uint32_t end;     // one past its last newline (or the end of the file)
  uint32_t row;     // 0-based row of `begin`
  uint32_t endRow;  // row of `end`
  int owner;        // unit index; -1 = module-level code
  uint32_t occBegin = 0, occEnd = 0;  // its identifiers in Planner::occ_
  bool imports = false, self = false, cuda = false;
};

struct Occ {  // one identifier occurrence
  uint32_t id, begin, end;
  bool attr;    // written `self.<it>`
  bool dotted;  // written `<something>.<it>`
};

// Skips the string literal starting at the quote s[i]; false when it does not end.
bool skipString(std::string_view s, size_t& i, uint32_t& row) {
  const size_t n = s.size();
  const char q = s[i];
  const bool triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
  i += triple ? 3 : 1;
  while (i < n) {
    const char c = s[i];
    if (c == '\\') {
      if (i + 1 < n && s[i + 1] == '\n') ++row;
      i += 2;
    } else if (c == '\n') {
      if (!triple) return false;
      ++row, ++i;
    } else if (c == q && (!triple || (i + 2 < n && s[i + 1] == q && s[i + 2] == q))) {
      i += triple ? 3 : 1;
      return true;
    } else {
      ++i;
    }
  }
  return false;
}

std::string_view wordAt(std::string_view s, size_t i) {
  size_t e = i;
  while (e < s.size() && identChar(static_cast<unsigned char>(s[e]))) ++e;
  return s.substr(i, e - i);
}
size_t skipBlanks(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\\' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

struct Unit {
  uint32_t first = 0, last = 0;  // logical lines [first, last]
  std::string_view name;
  int cls = -1;            // a method's class unit
  bool isClass = false;
  bool isModule = false;   // the pseudo-unit of module-level code
  // What its own lines mention (word ids, deduplicated).
  std::vector<uint32_t> lines;         // its own logical lines
  std::vector<uint32_t> words, attrs;  // attrs: X of `self.X`
  bool loop = false;
  bool cuda = false;     // CUDA evidence: see cudaEvidence()
  int clockCalls = 0;    // calls of clock functions (SL501 needs two in one function)
  bool root = false, kept = false, callees = false;
  bool hookTarget = false;  // named where a function is registered as per-step code (markHookTargets)
  bool summaries = false;  // a root whose rules read callee summaries
  // `@triton.jit`: what it does with its parameters' memory is what its launches do (the
  // frontend's kernel summaries, PyKernelEffects.h), wherever they are.
  bool deviceKernel = false;
};

class Planner {
 public:
  Planner(std::string_view s, const ProjectKnowledge& k, const std::vector<std::string>* roots)
      : s_(s), k_(k), roots_(roots) {}

  ParsePlan plan(bool lowered) {
    ParsePlan p;
    if (!scan(lowered) || !buildUnits()) return p;  // unsure: parse the whole file
    if (!lowered) {
      p.mode = ParsePlan::Mode::Skip;  // parsed only for diagnostics, and the scan saw none
      return p;
    }
    collectFacts();
    markHookTargets();
    seedTriggers();
    propagateInterest();
    for (auto& u : units_) u.root = isRoot(u);
    keepClosure();
    return ranges();
  }

 private:
  // ---- structure ------------------------------------------------------------------------
  std::string_view firstWord(const Line& l, size_t* after = nullptr) const {
    std::string_view w = wordAt(s_, l.code);
    size_t e = l.code + w.size();
    if (w == "async") {
      size_t j = skipBlanks(s_, e);
      w = wordAt(s_, j);
      e = j + w.size();
    }
    if (after) *after = e;
    return w;
  }
  uint32_t indent(const Line& l) const { return l.code - l.begin; }

  // A decorated or plain def/class starting at logical line k (indent `ind`); returns the
  // index of the def/class line, or -1 when line k starts something else.
  long definitionAt(size_t k, uint32_t ind, bool& isClass, std::string_view& name, bool& broken) const {
    size_t d = k;
    while (d < lines_.size() && indent(lines_[d]) == ind && s_[lines_[d].code] == '@') ++d;
    if (d >= lines_.size() || indent(lines_[d]) != ind) {
      broken = d > k;
      return -1;
    }
    size_t after = 0;
    std::string_view w = firstWord(lines_[d], &after);
    if (w != "def" && w != "class") {
      broken = d > k;  // a decorator on something else
      return -1;
    }
    isClass = w == "class";
    name = wordAt(s_, skipBlanks(s_, after));
    return long(d);
  }

  bool buildUnits() {
    const size_t n = lines_.size();
    for (size_t k = 0; k < n;) {
      if (indent(lines_[k]) != 0) {
        if (k == 0) return false;  // unexpected indent
        ++k;                       // inside a module-level if/try/...: module-level code
        continue;
      }
      bool isClass = false, broken = false;
      std::string_view name;
      long d = definitionAt(k, 0, isClass, name, broken);
      if (broken) return false;
      if (d < 0) {
        ++k;
        continue;
      }
      size_t end = size_t(d) + 1;
      while (end < n && indent(lines_[end]) > 0) ++end;
      int u = addUnit(k, end - 1, name, -1, isClass);
      for (size_t j = k; j < size_t(d); ++j)
        if (s_.substr(lines_[j].code, lines_[j].end - lines_[j].code).find("triton.jit") != std::string_view::npos)
          units_[size_t(u)].deviceKernel = true;
      if (isClass && size_t(d) + 1 < end && !buildMethods(u, size_t(d) + 1, end)) return false;
      k = end;
    }
    Unit mod;
    mod.isModule = true;
    units_.push_back(mod);
    return true;
  }

  bool buildMethods(int cls, size_t from, size_t end) {
    const uint32_t body = indent(lines_[from]);
    for (size_t k = from; k < end;) {
      uint32_t ind = indent(lines_[k]);
      if (ind < body) return false;  // inconsistent dedent
      bool isClass = false, broken = false;
      std::string_view name;
      long d = ind == body ? definitionAt(k, body, isClass, name, broken) : -1;
      if (broken) return false;
      size_t stop = (d < 0 ? k : size_t(d)) + 1;
      while (stop < end && indent(lines_[stop]) > body) ++stop;
      if (d >= 0 && !isClass) addUnit(k, stop - 1, name, cls, false);
      k = stop;  // other statements (nested classes too) stay with the class shell
    }
    return true;
  }

  int addUnit(size_t first, size_t last, std::string_view name, int cls, bool isClass) {
    Unit u;
    u.first = uint32_t(first), u.last = uint32_t(last), u.name = name, u.cls = cls, u.isClass = isClass;
    units_.push_back(u);
    int idx = int(units_.size() - 1);
    for (size_t k = first; k <= last; ++k) lines_[k].owner = idx;  // methods overwrite their class
    return idx;
  }

  // ---- words ------------------------------------------------------------------------------
  // Word ids: an open-addressing table over the file's distinct identifiers (std::unordered_map
  // cost a third of the scan).
  static uint64_t hashOf(std::string_view w) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : w) h = (h ^ c) * 1099511628211ull;
    return h;
  }
  uint32_t idOf(std::string_view w, uint64_t h) {
    if (words_.size() * 2 >= slots_.size()) rehash();
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint32_t e = slots_[i];
      if (!e) {
        words_.push_back(Word{w, h});
        slots_[i] = uint32_t(words_.size());
        return uint32_t(words_.size() - 1);
      }
      if (words_[e - 1].hash == h && words_[e - 1].text == w) return e - 1;
    }
  }
  void rehash() {
    slots_.assign(slots_.empty() ? 1024 : slots_.size() * 2, 0);
    size_t mask = slots_.size() - 1;
    for (size_t k = 0; k < words_.size(); ++k) {
      size_t i = words_[k].hash & mask;
      while (slots_[i]) i = (i + 1) & mask;
      slots_[i] = uint32_t(k + 1);
    }
  }
  int findId(std::string_view w) const {
    if (slots_.empty()) return -1;
    uint64_t h = hashOf(w);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint32_t e = slots_[i];
      if (!e) return -1;
      if (words_[e - 1].hash == h && words_[e - 1].text == w) return int(e - 1);
    }
  }

  // Splits the file into logical lines (brackets, strings, backslash continuations joined;
  // blank and comment-only lines belong to none) and records every identifier of code: not
  // in comments; in f-strings all words (their interpolations are code); in other strings only
  // "cuda" (the only string contents the frontend reads: device strings). With `lowered`
  // false only the structure is checked. False when the scan is unsure of the structure: an
  // unterminated string or bracket, a tab or form feed in indentation, a lone CR (tree-sitter
  // and CPython count such indentation differently).
  bool scan(bool lowered) {
    const std::string_view s = s_;
    for (const char* p = static_cast<const char*>(std::memchr(s.data(), '\r', s.size())); p;
         p = static_cast<const char*>(std::memchr(p + 1, '\r', s.size() - size_t(p + 1 - s.data()))))
      if (size_t(p + 1 - s.data()) >= s.size() || p[1] != '\n') return false;
    const size_t n = s.size();
    if (lowered) occ_.reserve(n / 8);
    // A string holding "cuda" (a device string) is recorded as this pseudo-word.
    const uint32_t cudaId = lowered ? idOf("\"cuda\"", hashOf("\"cuda\"")) : 0;
    size_t i = 0;
    uint32_t row = 0;
    while (i < n) {
      const size_t begin = i;
      const uint32_t beginRow = row;
      while (i < n && s[i] == ' ') ++i;
      if (i >= n) break;
      const char c0 = s[i];
      if (c0 == '\t' || c0 == '\f') return false;
      if (c0 == '\n' || c0 == '\r') {
        i = c0 == '\r' ? i + 2 : i + 1;
        ++row;
        continue;
      }
      if (c0 == '#') {
        while (i < n && s[i] != '\n') ++i;
        continue;
      }
      Line line{uint32_t(begin), uint32_t(i), 0, beginRow, 0, -1};
      line.occBegin = uint32_t(occ_.size());
      int depth = 0;
      // `self` then `.`: the next word is an attribute of self.
      enum { None, Self, SelfDot } selfState = None;
      bool afterDot = false;
      size_t wordEnd = SIZE_MAX;  // end of the last word (a string prefix ends where a quote starts)
      std::string_view lastWord;
      for (;;) {
        if (i >= n) {
          if (depth) return false;
          break;
        }
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (identChar(c)) {
          size_t j = i;
          uint64_t h = 1469598103934665603ull;
          while (j < n && identChar(static_cast<unsigned char>(s[j]))) h = (h ^ static_cast<unsigned char>(s[j])) * 1099511628211ull, ++j;
          if (lowered && !isDigit(c)) {
            std::string_view w = s.substr(i, j - i);
            occ_.push_back(Occ{idOf(w, h), uint32_t(i), uint32_t(j), selfState == SelfDot, afterDot});
            selfState = w == "self" ? Self : None;
            lastWord = w;
          } else {
            selfState = None, lastWord = {};
          }
          afterDot = false;
          wordEnd = i = j;
          continue;
        }
        if (c == '\n') {
          ++row, ++i;
          if (depth == 0) break;
          continue;
        }
        if (c == ' ' || c == '\r') {
          ++i;
          continue;
        }
        if (c == '#') {
          while (i < n && s[i] != '\n') ++i;
          continue;
        }
        if (c == '\\') {
          if (i + 1 < n && s[i + 1] == '\n') ++row, i += 2;
          else if (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') ++row, i += 3;
          else ++i;
          continue;
        }
        if (c == '\'' || c == '"') {
          bool fstring = false;
          if (wordEnd == i && lastWord.size() <= 3)
            for (char p : lastWord) fstring |= p == 'f' || p == 'F';
          const size_t start = i;
          if (!skipString(s, i, row)) return false;
          if (lowered) {
            std::string_view body = s.substr(start, i - start);
            if (fstring) {
              for (size_t k = start; k < i;) {
                if (!identChar(static_cast<unsigned char>(s[k]))) { ++k; continue; }
                size_t e = k;
                uint64_t h = 1469598103934665603ull;
                while (e < i && identChar(static_cast<unsigned char>(s[e]))) h = (h ^ static_cast<unsigned char>(s[e])) * 1099511628211ull, ++e;
                if (!isDigit(static_cast<unsigned char>(s[k])))
                  occ_.push_back(Occ{idOf(s.substr(k, e - k), h), uint32_t(k), uint32_t(e), false, false});
                k = e;
              }
            }
            if (body.find("cuda") != std::string_view::npos)
              occ_.push_back(Occ{cudaId, uint32_t(start), uint32_t(start), false, false});
          }
          selfState = None, lastWord = {}, afterDot = false;
          continue;
        }
        if (c == '.' && selfState == Self) selfState = SelfDot;
        else selfState = None;
        afterDot = c == '.';
        lastWord = {};
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if ((c == ')' || c == ']' || c == '}') && --depth < 0) return false;
        ++i;
      }
      line.end = uint32_t(i), line.endRow = row;
      line.occEnd = uint32_t(occ_.size());
      lines_.push_back(line);
    }
    return true;
  }
  Unit& unitOf(const Line& l) { return l.owner < 0 ? units_.back() : units_[size_t(l.owner)]; }

  enum Keyword {
    kFor, kWhile, kImport, kTensor, kDevice, kTo, kType, kAs, kIn, kSelf, kTime, kTimeit,
    kCuda, kStringCuda, kEmptyCache, kCurrentDevice, kFrom, kCount
  };
  uint32_t kw(Keyword k) const { return kwIds_[k]; }

  // Per-unit word sets and per-line flags, from the occurrences scan() collected.
  void collectFacts() {
    static constexpr const char* names[kCount] = {"for",  "while", "import", "Tensor",         "device",
                                                  "to",   "type",  "as",     "in",             "self",
                                                  "time", "timeit", "cuda",  "\"cuda\"",       "empty_cache",
                                                  "current_device", "from"};
    for (int k = 0; k < kCount; ++k) kwIds_[k] = idOf(names[k], hashOf(names[k]));
    stamp_.assign(words_.size(), -1);
    attrStamp_.assign(words_.size(), -1);
    for (size_t k = 0; k < lines_.size(); ++k) {
      Line& l = lines_[k];
      Unit& u = unitOf(l);
      int ui = int(&u - units_.data());
      u.lines.push_back(uint32_t(k));
      for (uint32_t o = l.occBegin; o < l.occEnd; ++o) {
        const Occ& w = occ_[o];
        if (w.attr && attrStamp_[w.id] != ui) attrStamp_[w.id] = ui, u.attrs.push_back(w.id);
        if (stamp_[w.id] != ui) stamp_[w.id] = ui, u.words.push_back(w.id);
        if (w.id == kw(kFor) || w.id == kw(kWhile)) u.loop = true;
        if (w.id == kw(kImport)) l.imports = true;
        if (w.id == kw(kSelf)) l.self = true;
      }
    }
  }

  // Hooks and patched-in forwards (PyFunctionRoles: the roles pass makes the function that a
  // per-step hook registration or a `Cls.forward = f` names run every step, wherever that line
  // sits). A function or method named on such a line is per-step code by name (perStepByName),
  // and the unit holding the line is kept whenever one of those is (keepRegistrations), so the
  // roles pass sees the registration exactly when it matters. Matching is by name, over-
  // approximate (every word on the logical line; lines of module-level code are always kept).
  void markHookTargets() {
    std::vector<char> named;
    for (size_t at : perStepRegistrations(s_)) {
      auto it = std::upper_bound(lines_.begin(), lines_.end(), at, [](size_t a, const Line& l) { return a < l.begin; });
      if (it == lines_.begin() || at >= (it - 1)->end) continue;  // a comment line: not code
      const uint32_t k = uint32_t(it - 1 - lines_.begin());
      if (!registrations_.empty() && registrations_.back() == k) continue;
      registrations_.push_back(k);
      named.resize(words_.size(), 0);
      for (uint32_t o = lines_[k].occBegin; o < lines_[k].occEnd; ++o) named[occ_[o].id] = 1;
    }
    if (registrations_.empty()) return;
    for (size_t i = 0; i + 1 < units_.size(); ++i) {
      Unit& u = units_[i];
      const int id = u.isClass ? -1 : findId(u.name);
      u.hookTarget = id >= 0 && named[size_t(id)];
    }
  }
  // Keeps the units holding a registration line that names a kept hook target (see
  // markHookTargets); true when it kept one.
  template <class Keep>
  bool keepRegistrations(Keep& keep) {
    if (registrations_.empty()) return false;
    std::vector<char> kept(words_.size(), 0);  // names of the kept hook targets
    for (const Unit& u : units_)
      if (u.hookTarget && u.kept) kept[size_t(findId(u.name))] = 1;
    bool any = false;
    for (uint32_t k : registrations_) {
      const Line& l = lines_[k];
      if (l.owner < 0 || units_[size_t(l.owner)].kept) continue;
      if (std::any_of(occ_.begin() + l.occBegin, occ_.begin() + l.occEnd, [&](const Occ& w) { return kept[w.id]; }))
        keep(l.owner, false), any = true;
    }
    return any;
  }

  bool callAt(size_t afterWord) const {
    size_t a = skipBlanks(s_, afterWord);
    return a < s_.size() && s_[a] == '(';
  }

  // CUDA evidence on a line (the ways the frontend learns that a value lives on the GPU): a
  // string naming cuda (device strings), `.cuda(`, torch.cuda.current_device/empty_cache (or
  // an alias of them), an integer device (`device=0`, `.to(0)`, `device(0)`), a parameter
  // annotated `Tensor`/`torch.Tensor` (optionally Optional[...] or `| None`).
  bool cudaEvidence(const Line& l) const {
    bool header = firstWord(l) == "def";
    for (uint32_t o = l.occBegin; o < l.occEnd; ++o) {
      const Occ& w = occ_[o];
      if (w.id == kw(kStringCuda) || w.id == kw(kEmptyCache) || w.id == kw(kCurrentDevice) || has(cudaWords_, w.id))
        return true;
      if (w.id == kw(kCuda) && callAt(w.end)) return true;
      if (has(deviceWords_, w.id) && passedAsArgument(w.begin)) return true;
      // `loss.item()`, `kl_loss.detach()`, `loss_dict.items()`: the frontend takes a loss
      // used as a tensor for a GPU value (PyInfer.cpp, Lowerer::asTensor).
      if (has(lossWords_, w.id) && w.end < s_.size() && s_[w.end] == '.') return true;
      if ((w.id == kw(kDevice) || w.id == kw(kTo) || w.id == kw(kType)) && integerDevice(w.end)) return true;
      if (header && w.id == kw(kTensor) && tensorParameter(l, w.begin)) return true;
    }
    return false;
  }

  // `.to(device)`, `device=self._device`, `f(x, dev)`: the dotted name ending at `at` is an
  // argument or a keyword's value (not `self.device = ...` or `if device.type == ...`).
  bool passedAsArgument(size_t at) const {
    size_t b = at;
    // Back over the dotted name, subscripts included (`.to(state["exp_avg"].device)`).
    while (b > 0) {
      char c = s_[b - 1];
      if (identChar(static_cast<unsigned char>(c)) || c == '.') {
        --b;
      } else if (c == ']') {
        int depth = 0;
        size_t k = b - 1;
        for (;; --k) {
          if (s_[k] == ']') ++depth;
          else if (s_[k] == '[' && --depth == 0) break;
          if (k == 0 || b - k > 256) return false;  // unbalanced or too long: not a name
        }
        b = k;
      } else {
        break;
      }
    }
    while (b > 0 && (s_[b - 1] == ' ' || s_[b - 1] == '\t' || s_[b - 1] == '\n')) --b;
    if (b == 0) return false;
    char c = s_[b - 1];
    if (c == '(' || c == ',') return true;
    return c == '=' && (b < 2 || std::strchr("=!<>", s_[b - 2]) == nullptr);
  }

  // Whether `Tensor` at `at` in a def line can be a parameter's whole annotation: inside the
  // parameter list, at its top level or directly in Optional[...], not after `->`.
  bool tensorParameter(const Line& l, size_t at) const {
    int depth = 0;
    bool optional = true;  // the innermost '[' follows `Optional` (vacuous at depth 1)
    uint32_t row = 0;
    for (size_t i = l.code; i < at;) {
      char c = s_[i];
      if (c == '\'' || c == '"') {
        if (!skipString(s_, i, row)) return true;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
        if (c == '[') {
          size_t b = i;
          while (b > l.code && s_[b - 1] == ' ') --b;
          optional = b >= 8 && s_.substr(b - 8, 8) == "Optional" && depth == 2;
        } else if (depth > 1) {
          optional = false;
        }
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth <= 1) optional = true;
      } else if (c == '-' && depth == 0 && i + 1 < s_.size() && s_[i + 1] == '>') {
        return false;
      }
      ++i;
    }
    return depth == 1 || (depth == 2 && optional);
  }

  // `device=0`, `.to(0)`, `device(0)`: an integer names a CUDA device.
  bool integerDevice(size_t afterWord) const {
    size_t a = skipBlanks(s_, afterWord);
    if (a >= s_.size() || !(s_[a] == '(' || (s_[a] == '=' && a + 1 < s_.size() && s_[a + 1] != '=')))
      return false;
    size_t d = skipBlanks(s_, a + 1);
    return d < s_.size() && isDigit(static_cast<unsigned char>(s_[d]));
  }

  // ---- triggers and interesting names ----------------------------------------------------
  static void mark(std::vector<char>& set, uint32_t id) { set[id] = 1; }
  static bool has(const std::vector<char>& set, uint32_t id) { return set[id] != 0; }
  static bool hasAny(const Unit& u, const std::vector<char>& set) {
    return std::any_of(u.words.begin(), u.words.end(), [&](uint32_t id) { return set[id] != 0; });
  }

  void seedTriggers() {
    streamWords_.assign(words_.size(), 0), cudaWords_.assign(words_.size(), 0), clockWords_.assign(words_.size(), 0);
    syncWords_.assign(words_.size(), 0), readWords_.assign(words_.size(), 0);
    // Host reads of a tensor and device moves: what a per-step helper with no CUDA words of its
    // own can still be reported for (its parameters are the module's inputs, on its device).
    for (const char* w : {"item", "tolist", "cpu", "numpy", "nonzero", "any", "all", "unique", "device"})
      if (int id = findId(w); id >= 0) mark(readWords_, uint32_t(id));
    globals_.assign(words_.size(), 0), attrs_.assign(words_.size(), 0);
    for (const char* w : {"forward", "backward", "step", "training_step", "update" /* a Metric's */})
      if (int id = findId(w); id >= 0) hotMethodWords_.push_back(uint32_t(id));
    if (s_.find("lightning") != std::string_view::npos) logWord_ = findId("log");
    // An accelerator's device (`get_accelerator().device_name()`, DeepSpeed's and ColossalAI's:
    // PyApiTable.cpp acceleratorApi) names the current CUDA device.
    for (const char* w : {"device_name", "current_device_name"})
      if (int id = findId(w); id >= 0) mark(cudaWords_, uint32_t(id));
    hostReadWords_.assign(words_.size(), 0);
    for (const char* w : {"cpu", "item", "tolist", "numpy"})
      if (int id = findId(w); id >= 0) mark(hostReadWords_, uint32_t(id));
    // Stream/event/copy vocabulary: a unit naming one is a root whatever else it holds.
    for (const char* w : {"stream", "Stream", "StreamContext", "streams", "Event", "current_stream",
                          "default_stream", "wait_stream", "wait_event", "record_stream", "record_event",
                          "non_blocking"})
      if (int id = findId(w); id >= 0) mark(streamWords_, uint32_t(id));
    // A unit that synchronizes may be called from a stream region in another file
    // (driver/ProjectIndex.h): its summary must exist, so it is kept.
    for (const char* w : {"synchronize", "empty_cache", "barrier" /* torch.distributed.barrier */})
      if (int id = findId(w); id >= 0) mark(streamWords_, uint32_t(id)), mark(syncWords_, uint32_t(id));
    // Names the frontend takes for a GPU device in a file that uses CUDA (`device`,
    // `self._device`, `local_rank`: python/PyApiTable.h looksLikeDeviceName) are CUDA evidence.
    deviceWords_.assign(words_.size(), 0);
    for (size_t id = 0; id < words_.size(); ++id)
      if (looksLikeDeviceName(words_[id].text)) mark(deviceWords_, uint32_t(id));
    lossWords_.assign(words_.size(), 0);
    for (size_t id = 0; id < words_.size(); ++id)
      if (looksLikeLossName(words_[id].text)) mark(lossWords_, uint32_t(id));
    for (const char* w : {"time", "perf_counter", "monotonic", "time_ns", "perf_counter_ns", "monotonic_ns",
                          "default_timer"})  // the clock functions of PyApiTable
      if (int id = findId(w); id >= 0) mark(clockWords_, uint32_t(id));
    // Configured helpers: the last name of each is what a call spells.
    auto lastName = [&](const std::string& n) {
      size_t e = n.size();
      while (e && !identChar(static_cast<unsigned char>(n[e - 1]))) --e;
      size_t b = e;
      while (b && identChar(static_cast<unsigned char>(n[b - 1]))) --b;
      if (int id = findId(std::string_view(n).substr(b, e - b)); id >= 0) mark(streamWords_, uint32_t(id));
    };
    for (const auto& n : k_.syncFunctions) lastName(n);
    for (const auto& n : k_.backwardFunctions) lastName(n);
    for (const auto& [from, to] : k_.streamWrappers) lastName(from);
    // Import lines: the names they bind (`import time`, `from torch.cuda import Stream as S`,
    // `import torch.cuda as tc`) inherit the kind of the vocabulary the line names; clock
    // functions are reachable only through such a binding of time/timeit.
    for (const Line& l : lines_) {
      if (!l.imports) continue;
      bool stream = false, cuda = false, clock = false;
      for (uint32_t o = l.occBegin; o < l.occEnd; ++o) {
        uint32_t id = occ_[o].id;
        stream |= has(streamWords_, id);
        clock |= id == kw(kTime) || id == kw(kTimeit);
        cuda |= id == kw(kCuda) || id == kw(kDevice) || id == kw(kEmptyCache) || id == kw(kCurrentDevice);
      }
      // Only `from M import f as g` binds functions; a module bound by `import a.b as c` is
      // used through attribute names, which are words of their own.
      forEachImportBinding(l, [&](uint32_t id, bool fromImport) {
        if (!fromImport) return;
        if (stream) mark(streamWords_, id);
        if (clock) mark(clockWords_, id);
        if (cuda && id != kw(kCuda)) mark(cudaWords_, id);
      });
    }
    // Per-line CUDA evidence and per-unit clock calls, now that the aliases are known.
    for (Line& l : lines_) {
      l.cuda = cudaEvidence(l);
      Unit& u = unitOf(l);
      u.cuda |= l.cuda;
      for (uint32_t o = l.occBegin; o < l.occEnd; ++o)
        if (has(clockWords_, occ_[o].id) && callAt(occ_[o].end)) ++u.clockCalls;
    }
  }

  // The names an import line binds: after `from M import`, every name (and alias); after a
  // plain `import`, each dotted name's first part, or its alias.
  template <class F>  // f(id, fromImport)
  void forEachImportBinding(const Line& l, F&& f) const {
    bool from = false, binding = false, fromImport = false;
    long pending = -1;  // a plain import's dotted-name head, unless `as` follows
    for (uint32_t o = l.occBegin; o < l.occEnd; ++o) {
      const Occ& w = occ_[o];
      if (w.id == kw(kFrom)) {
        from = true, binding = false;
      } else if (w.id == kw(kImport)) {
        binding = true, fromImport = from, from = false;
      } else if (binding && fromImport) {
        if (w.id != kw(kAs)) f(w.id, true);
      } else if (binding) {
        if (w.id == kw(kAs)) pending = -1;
        else if (!w.dotted) {
          if (pending >= 0) f(uint32_t(pending), false);
          pending = w.id;
        }
      }
    }
    if (pending >= 0) f(uint32_t(pending), false);
  }

  bool lineTainted(const Line& l, const std::vector<char>& locals) const {
    if (l.cuda) return true;
    for (uint32_t o = l.occBegin; o < l.occEnd; ++o) {
      const Occ& w = occ_[o];
      if (has(streamWords_, w.id) || has(globals_, w.id) || has(locals, w.id) ||
          (w.attr && has(attrs_, w.id)))
        return true;
    }
    return false;
  }

  // The names a statement line binds: before an assignment `=` at bracket depth 0 (per
  // `;`-separated statement), after `for` up to `in`, after `as`. Over-approximate.
  template <class F>  // f(id, attr)
  void forEachTarget(const Line& l, F&& f) const {
    spans_.clear();
    size_t stmt = l.code, lastEq = SIZE_MAX;
    int depth = 0;
    uint32_t row = 0;
    for (size_t i = l.code; i < l.end;) {
      char c = s_[i];
      if (!kTargetBytes[static_cast<unsigned char>(c)]) {  // most bytes: nothing below applies
        ++i;
        continue;
      }
      if (c == '\'' || c == '"') {
        if (!skipString(s_, i, row)) break;
        continue;
      }
      if (c == '#') {
        while (i < l.end && s_[i] != '\n') ++i;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      else if (depth == 0 && c == '=') {
        char p = i > l.code ? s_[i - 1] : ' ';
        bool op = std::strchr("=!<>:+-*/%&|^@", p) != nullptr;
        if (!op && (i + 1 >= l.end || s_[i + 1] != '=')) lastEq = i;
        if (i + 1 < l.end && s_[i + 1] == '=') ++i;
      } else if (depth == 0 && (c == ';' || c == '\n')) {
        if (lastEq != SIZE_MAX) spans_.emplace_back(stmt, lastEq);
        stmt = i + 1, lastEq = SIZE_MAX;
      }
      ++i;
    }
    if (lastEq != SIZE_MAX) spans_.emplace_back(stmt, lastEq);
    bool inFor = false, inAs = false;
    size_t span = 0;
    for (uint32_t o = l.occBegin; o < l.occEnd; ++o) {
      const Occ& w = occ_[o];
      while (span < spans_.size() && spans_[span].second <= w.begin) ++span;
      bool target = span < spans_.size() && spans_[span].first <= w.begin;
      if (w.id == kw(kFor)) inFor = true;
      else if (w.id == kw(kIn)) inFor = false;
      else if (w.id == kw(kAs)) inAs = true;
      else if (inFor || inAs) target = true;
      if (inAs && w.id != kw(kAs)) {  // `as a.b` continues through dots only
        size_t a = w.end;
        while (a < l.end && (s_[a] == ' ' || s_[a] == '.')) ++a;
        if (a >= l.end || !identChar(static_cast<unsigned char>(s_[a]))) inAs = false;
      }
      // `a.b.c = v` binds the path "a.b.c": uses of it spell its last name.
      if (target && !w.attr) {
        size_t a = skipBlanks(s_, w.end);
        if (a < l.end && s_[a] == '.') target = false;
      }
      if (target) f(w.id, w.attr);
    }
  }

  // Globals and `self.` attributes assigned on lines that mention evidence (through local
  // variables too) may carry facts: uses of them are roots. Iterated to a fixpoint.
  void propagateInterest() {
    std::vector<char> locals(words_.size(), 0);
    std::vector<uint32_t> touched;
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& u : units_) {
        if (!u.isModule && !mentionsEvidence(u)) continue;
        for (uint32_t id : touched) locals[id] = 0;
        touched.clear();
        for (bool grew = true; grew;) {
          grew = false;
          for (uint32_t k : u.lines) {
            const Line& l = lines_[k];
            if (!lineTainted(l, locals)) continue;
            forEachTarget(l, [&](uint32_t id, bool attr) {
              if (attr) {
                if (!has(attrs_, id)) mark(attrs_, id), changed = grew = true;
              } else if (u.isModule) {
                if (!has(globals_, id)) mark(globals_, id), changed = grew = true;
              } else if (!has(locals, id)) {
                mark(locals, id), touched.push_back(id), grew = true;
              }
            });
          }
        }
      }
    }
  }

  bool mentionsEvidence(const Unit& u) const {
    if (u.cuda) return true;
    for (uint32_t id : u.words)
      if (has(streamWords_, id) || has(globals_, id)) return true;
    for (uint32_t id : u.attrs)
      if (has(attrs_, id)) return true;
    return false;
  }

  bool nestsClass(const Unit& u) const {
    int classes = 0;
    for (uint32_t k : u.lines) classes += firstWord(lines_[k]) == "class";
    return classes > (u.isClass ? 1 : 0);
  }

  // Whether a rule could report in this unit; sets `summaries` when the rules that could need
  // callee summaries (SL203, SL301, SL401, SL501: stream regions, non_blocking copies, clock
  // reads). A unit kept only for a loop with CUDA evidence can give SL302 alone.
  bool isRoot(Unit& u) const {
    u.summaries = true;
    if (u.clockCalls >= 2) return true;
    if (roots_ && u.cls < 0 && !u.isClass && !u.isModule &&
        std::find(roots_->begin(), roots_->end(), u.name) != roots_->end())
      return true;
    for (uint32_t id : u.words)
      if (has(streamWords_, id) || has(globals_, id)) return true;
    for (uint32_t id : u.attrs)
      if (has(attrs_, id)) return true;
    // Per-step code with evidence the frontend finds without CUDA words in the unit:
    // `self.log("lr", lr)` / `pl_module.log(...)` in a Lightning file (Lightning's upload of a
    // number; its callees are kept too: helpers run every step through it); `x.cpu()`, which
    // takes x for a GPU tensor (PyCalls.cpp lightningLog, callMethod); and a host read
    // (`.item()`, `.tolist()`, `.numpy()`) of what may be an input of a module's forward,
    // which is on the module's device (PyInfer.cpp usedAsTensor).
    const bool perStep = !u.isClass && !u.isModule && perStepByName(u);
    if (perStep && hasWord(u, logWord_)) return true;
    u.summaries = false;
    if (perStep && hasAny(u, hostReadWords_)) return true;
    if (!u.cuda) return false;
    if (u.loop) return true;
    // Runs every step without a loop (SL302): by name, over-approximating PyFunctionRoles
    // (a per-step name also makes the helpers it hands CUDA tensors to, in other files, run
    // every step: driver/HotHelpers.h needs its calls).
    for (uint32_t id : hotMethodWords_)
      if (u.cls >= 0 ? findId(u.name) == int(id) : u.isClass && contains(u.words, id)) return true;
    return !u.isClass && !u.isModule && (u.hookTarget || namedAsPerStep(u.name));
  }
  // A function or method that runs every step by its name: a per-step method word (forward,
  // backward, step, training_step, update) or a per-step name (`train_step`, `on_train_batch_end`).
  bool perStepByName(const Unit& u) const {
    if (u.hookTarget) return true;
    if (u.cls >= 0)
      for (uint32_t id : hotMethodWords_)
        if (findId(u.name) == int(id)) return true;
    return namedAsPerStep(u.name);
  }
  static bool hasWord(const Unit& u, int id) { return id >= 0 && contains(u.words, uint32_t(id)); }
  static bool contains(const std::vector<uint32_t>& v, uint32_t id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  }

  // ---- what the kept units need ----------------------------------------------------------
  void keepClosure() {
    // Indexes: unit names (calls), `self.X` assigners, import-bound names.
    std::unordered_map<uint32_t, std::vector<int>> functions, methods, classes, assigners, importers;
    for (size_t i = 0; i + 1 < units_.size(); ++i)
      if (!units_[i].name.empty())
        if (int id = findId(units_[i].name); id >= 0)
          (units_[i].isClass ? classes : units_[i].cls < 0 ? functions : methods)[uint32_t(id)].push_back(int(i));
    for (const Line& l : lines_) {
      if (l.owner < 0 || !l.self) continue;
      forEachTarget(l, [&](uint32_t id, bool attr) {
        if (attr) {
          auto& v = assigners[id];
          if (v.empty() || v.back() != l.owner) v.push_back(l.owner);
        }
      });
    }
    for (const Line& l : lines_)
      if (l.owner >= 0 && l.imports)
        forEachImportBinding(l, [&](uint32_t id, bool) { importers[id].push_back(l.owner); });
    std::vector<int> work;
    auto keep = [&](int i, bool callees) {
      Unit& u = units_[size_t(i)];
      if (u.kept && (u.callees || !callees)) return;
      u.kept = true;
      u.callees |= callees;
      work.push_back(i);
    };
    keepPerStepHelpers(functions, methods, keep);
    keepSyncCallers(functions, methods, keep);
    keepLoopsOverCudaCalls(functions, methods, keep);
    for (size_t i = 0; i < units_.size(); ++i) {
      const Unit& u = units_[i];
      // A function named like a builtin the frontend reads values with (print, float...)
      // changes what calls of that name mean; a unit nesting a class lowers methods whose
      // names ("Class.method") other units' calls may resolve to.
      bool shadows = !u.isClass && u.cls < 0 && !u.isModule &&
                     (u.name == "print" || u.name == "bool" || u.name == "float" || u.name == "int" ||
                      u.name == "complex");
      // A class shell that annotates fields as tensors (`logprobs: torch.Tensor = None`) tells
      // what the parameters annotated with it hold (PyLowering.h, tensorFields).
      const bool tensorFields = u.isClass && hasWord(u, int(kw(kTensor)));
      if (u.root || u.isModule || shadows || nestsClass(u) || tensorFields || u.deviceKernel) keep(int(i), u.summaries);
    }
    do {
      while (!work.empty()) {
        Unit& u = units_[size_t(work.back())];
        work.pop_back();
        if (u.cls >= 0) keep(u.cls, false);
        if (u.callees) forEachCallee(u, functions, methods, [&](int v) { keep(v, true); });
        if (u.isClass)  // the classes its header may name as bases (their roles are inherited)
          for (uint32_t id : u.words)
            if (auto it = classes.find(id); it != classes.end())
              for (int v : it->second) keep(v, false);
        if (!u.isModule)  // module-level code is lowered before any function-local import
          for (uint32_t id : u.words)
            if (auto it = importers.find(id); it != importers.end())
              for (int v : it->second) keep(v, false);
        for (uint32_t id : u.attrs)
          if (auto it = assigners.find(id); it != assigners.end())
            for (int v : it->second) keep(v, false);
      }
    } while (keepRegistrations(keep));  // a kept hook target needs its registration
  }

  // A helper that per-step code calls (`forward` calling `self._pack(x)`) runs every step too,
  // and so do its own helpers, up to three levels (PyFunctionRoles' calledFromHot): keep each
  // with its caller, so that the call is seen, whatever evidence the caller has itself. A
  // per-step helper needs no CUDA words of its own, only a host read: its parameters are the
  // module's inputs, on its device (PyInfer.cpp usedAsTensor); it is hot whatever its
  // evidence (the roles do not ask), so its own helpers are the next level's. Likewise a method
  // with CUDA evidence that a method with a loop and CUDA evidence calls (`self._search_beam(
  // beam, lp)` per beam: PyHotClosures' loop body written as a method).
  template <class Index, class Keep>
  void keepPerStepHelpers(const Index& functions, const Index& methods, Keep& keep) {
    std::vector<char> hotVia(units_.size(), 0), reads(units_.size(), 0);
    for (size_t v = 0; v + 1 < units_.size(); ++v) reads[v] = hasAny(units_[v], readWords_);
    for (int level = 0; level < 3; ++level) {
      std::vector<char> next(units_.size(), 0);
      for (size_t i = 0; i + 1 < units_.size(); ++i) {
        const Unit& h = units_[i];
        const bool perStep = !h.isClass && (level == 0 ? perStepByName(h) : hotVia[i] != 0);
        const bool loopBody = level == 0 && !h.isClass && h.cls >= 0 && h.loop && h.cuda;
        if (!perStep && !loopBody) continue;
        for (uint32_t k : h.lines)
          for (uint32_t o = lines_[k].occBegin; o < lines_[k].occEnd; ++o) {
            const Occ& w = occ_[o];
            if ((w.dotted && !w.attr) || !callAt(w.end) || (!perStep && !w.attr)) continue;
            const auto& index = w.attr ? methods : functions;
            auto it = index.find(w.id);
            if (it == index.end()) continue;
            for (int v : it->second) {
              if (units_[size_t(v)].cuda || (perStep && reads[size_t(v)])) keep(int(i), false), keep(v, false);
              if (perStep && !hotVia[size_t(v)]) next[size_t(v)] = 1;
            }
          }
      }
      hotVia = std::move(next);
    }
  }

  // fn(v) for each unit v that a call in unit u can name: `f(` a top-level function, `self.m(`
  // a method (by name).
  template <class Index, class Fn>
  void forEachCallee(const Unit& u, const Index& functions, const Index& methods, Fn&& fn) const {
    for (uint32_t k : u.lines)
      for (uint32_t o = lines_[k].occBegin; o < lines_[k].occEnd; ++o) {
        const Occ& w = occ_[o];
        if ((w.dotted && !w.attr) || !callAt(w.end)) continue;
        const auto& index = w.attr ? methods : functions;
        if (auto it = index.find(w.id); it != index.end())
          for (int v : it->second) fn(v);
      }
  }

  // A loop whose values come from a call of this file's function or method with CUDA evidence
  // (`out = self._run(...)` then `torch.equal(out, ref)` per case): the callee's summary says
  // what it returns, so the caller can hold CUDA values with no CUDA word of its own. Kept
  // with those callees, like a loop root with evidence of its own (Megatron's tests: a loop
  // over configurations comparing results).
  template <class Index, class Keep>
  void keepLoopsOverCudaCalls(const Index& functions, const Index& methods, Keep& keep) {
    for (size_t i = 0; i + 1 < units_.size(); ++i) {
      const Unit& u = units_[i];
      if (!u.loop || u.cuda || u.isClass || u.kept) continue;
      forEachCallee(u, functions, methods, [&](int v) {
        if (units_[size_t(v)].cuda) keep(int(i), false), keep(v, false);
      });
    }
  }

  // A function of this file that calls one holding an explicit sync (`synchronize`,
  // `empty_cache`, `barrier`) passes that wait on to its callers, which may sit in a stream
  // region in another file (ProjectIndex's summaries are transitive): keep it, transitively,
  // so that the chain is there with the prefilter as without it (TransformerEngine:
  // a test's region calls ep_dispatch, which calls ep_prepare, which synchronizes).
  template <class Index, class Keep>
  void keepSyncCallers(const Index& functions, const Index& methods, Keep& keep) {
    std::vector<char> holds(units_.size(), 0);
    bool any = false;
    for (size_t i = 0; i + 1 < units_.size(); ++i)
      for (uint32_t id : units_[i].words)
        if (has(syncWords_, id)) holds[i] = 1, any = true;
    for (bool changed = any; changed;) {
      changed = false;
      for (size_t i = 0; i + 1 < units_.size(); ++i) {
        const Unit& u = units_[i];
        if (holds[i] || u.isClass) continue;
        for (uint32_t k = 0; k < u.lines.size() && !holds[i]; ++k)
          for (uint32_t o = lines_[u.lines[k]].occBegin; o < lines_[u.lines[k]].occEnd && !holds[i]; ++o) {
            const Occ& w = occ_[o];
            if ((w.dotted && !w.attr) || !callAt(w.end)) continue;
            const auto& index = w.attr ? methods : functions;
            if (auto it = index.find(w.id); it != index.end())
              for (int v : it->second)
                if (holds[size_t(v)] && size_t(v) != i) holds[i] = 1;
          }
        if (holds[i]) keep(int(i), false), changed = true;
      }
    }
  }

  ParsePlan ranges() {
    ParsePlan p;
    const Unit& mod = units_.back();
    bool any = mod.root;
    for (size_t i = 0; i + 1 < units_.size(); ++i) any |= units_[i].kept;
    if (!any) {
      p.mode = ParsePlan::Mode::Skip;
      return p;
    }
    // Dropped spans, in source order: whole functions/classes, then methods of kept classes.
    std::vector<std::pair<uint32_t, uint32_t>> dropped;  // logical line spans
    for (size_t i = 0; i + 1 < units_.size(); ++i) {
      const Unit& u = units_[i];
      if (u.kept) continue;
      if (u.cls >= 0 && !units_[size_t(u.cls)].kept) continue;  // inside a dropped class
      dropped.emplace_back(u.first, u.last);
    }
    if (dropped.empty()) return p;  // Whole
    TSPoint at{0, 0};
    uint32_t from = 0;
    for (auto [a, b] : dropped) {
      const Line& first = lines_[a];
      const Line& last = lines_[b];
      if (first.begin > from)
        p.ranges.push_back(TSRange{at, TSPoint{first.row, 0}, from, first.begin}), p.parsedBytes += first.begin - from;
      from = last.end;
      at = TSPoint{last.endRow, 0};
    }
    if (from < s_.size()) {
      uint32_t row = at.row, col = 0;
      for (size_t i = from; i < s_.size(); ++i) {
        if (s_[i] == '\n') ++row, col = 0;
        else ++col;
      }
      p.ranges.push_back(TSRange{at, TSPoint{row, col}, from, uint32_t(s_.size())});
      p.parsedBytes += s_.size() - from;
    }
    if (p.ranges.empty()) {  // only comments outside the dropped units
      p.mode = ParsePlan::Mode::Skip;
      return p;
    }
    p.mode = ParsePlan::Mode::Ranges;
    return p;
  }

  std::string_view s_;
  const ProjectKnowledge& k_;
  const std::vector<std::string>* roots_;  // top-level functions kept whatever they hold
  std::vector<Line> lines_;
  std::vector<uint32_t> registrations_;  // logical lines registering per-step code (markHookTargets)
  std::vector<Unit> units_;  // units_.back() is module-level code
  struct Word {
    std::string_view text;
    uint64_t hash;
  };
  std::vector<Word> words_;
  std::vector<char> deviceWords_;  // names looksLikeDeviceName accepts
  std::vector<char> lossWords_;    // names looksLikeLossName accepts
  std::vector<uint32_t> slots_;
  std::vector<Occ> occ_;
  std::vector<int> stamp_, attrStamp_;
  std::vector<char> streamWords_, cudaWords_, clockWords_, globals_, attrs_;
  std::vector<char> syncWords_;  // explicit syncs that travel across files (keepSyncCallers)
  std::vector<char> readWords_;  // host reads and device moves (per-step helpers)
  int logWord_ = -1;  // `log`, in a file that names lightning (isRoot)
  std::vector<char> hostReadWords_;  // `cpu`, `item`, `tolist`, `numpy` (isRoot)
  std::vector<uint32_t> hotMethodWords_;  // forward, backward, step, training_step, update (when present)
  uint32_t kwIds_[kCount] = {};
  mutable std::vector<std::pair<size_t, size_t>> spans_;
};

}  // namespace

ParsePlan planParse(std::string_view src, const ProjectKnowledge& knowledge, bool lowered,
                    const std::vector<std::string>* roots) {
  if (src.size() >= UINT32_MAX) return {};
  return Planner(src, knowledge, roots).plan(lowered);
}

}  // namespace sl::py
