#include "driver/DeliberateShapes.h"

#include <cctype>
#include <utility>
#include <vector>

#include "driver/DeliberateCode.h"
#include "driver/SourceLines.h"

namespace sl {
namespace {

// The loops in lines [first, last] whose bodies call `.step(`: a diffusion pipeline's
// denoising loop (`self.scheduler.step(...)`), a training loop (`optimizer.step()`).
std::vector<std::pair<uint32_t, uint32_t>> steppingLoops(const Lines& text, uint32_t first, uint32_t last) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t l = first; l <= last; ++l) {
    std::string_view c = text.code(l);
    if (c.starts_with("async ")) c.remove_prefix(6);
    if (!startsWithWord(c, "for") && !startsWithWord(c, "while")) continue;
    // A header continued on the next lines leaves a bracket open; a line `for x in xs` inside a
    // comprehension written over several lines closes its brackets and ends without ':'.
    int open = 0;
    for (char ch : c) open += (ch == '(' || ch == '[') - (ch == ')' || ch == ']');
    if (!c.ends_with(":") && open <= 0) continue;
    uint32_t end = text.blockEnd(l, last);
    for (uint32_t b = l + 1; b <= end; ++b)
      if (text.raw(b).find(".step(") != std::string_view::npos) {
        out.emplace_back(l, end);
        break;
      }
  }
  return out;
}

bool within(const std::vector<std::pair<uint32_t, uint32_t>>& spans, uint32_t line) {
  for (const auto& [b, e] : spans)
    if (b <= line && line <= e) return true;
  return false;
}

// The innermost lowered function holding `line` (not module-level code).
const model::Function* innermost(const model::Module& m, uint32_t line) {
  const model::Function* best = nullptr;
  for (const auto& f : m.functions)
    if (f.endLine && f.loc.line <= line && line <= f.endLine && f.name != "<module>" &&
        (!best || f.endLine - f.loc.line < best->endLine - best->loc.line))
      best = &f;
  return best;
}

// The host-sync event SL302 reported at `line` of `f`, or null.
const model::Event* syncAt(const model::Function& f, uint32_t line) {
  for (const auto& e : f.events)
    if (e.kind == model::EventKind::HostSync && e.loc.line == line) return &e;
  return nullptr;
}

// A whole tensor turned into host values once per step (no loop around the read).
std::string bulkRead(const Lines& text, const model::Function& f, const model::Event& e, uint32_t line) {
  if (model::enclosingScope(f, e.scope, model::ScopeKind::Loop) >= 0) return "";
  std::string_view c = text.code(line);
  if (e.api == "Tensor.tolist" ||
      ((e.api == "Tensor.cpu" || e.api == "Tensor.numpy") &&
       (c.find(".numpy()") != std::string_view::npos || c.find(".tolist()") != std::string_view::npos)))
    return "the host needs the values: the whole tensor is read once per step as host values "
           "(split sizes, shapes), the single bulk read SL302 asks for";
  if (e.api == "Tensor.cpu")
    for (uint32_t l = line >= 2 ? line - 2 : 1; l <= line; ++l)
      if (text.raw(l).find("pack_padded_sequence(") != std::string_view::npos)
        return "the host needs the values: pack_padded_sequence takes its lengths on the CPU";
  return "";
}

bool wholeTensorTest(std::string_view c) {
  return c.find(".any(") != std::string_view::npos || c.find(".all(") != std::string_view::npos ||
         c.find("torch.any(") != std::string_view::npos || c.find("torch.all(") != std::string_view::npos;
}

// `not mask.any()` / `not mask.all()` somewhere in `c`: the negated test of a whole mask.
bool negatedTest(std::string_view c) {
  for (const char* r : {".any(", ".all("})
    for (size_t at = c.find(r); at != std::string_view::npos; at = c.find(r, at + 1)) {
      size_t b = at;
      while (b > 0 && (identChar(c[b - 1]) || c[b - 1] == '.')) --b;
      if (b < at && c.substr(0, b).ends_with("not ")) return true;
    }
  return false;
}

// A whole-tensor test once per step, outside any loop, that picks a path or checks an input:
// `if not padding_mask.any(): padding_mask = None` takes the unmasked attention path,
// `assert bool((grid[:, 0] == 1).all())`. One read per step that decides what the host does
// next (fairseq keeps it behind a `traceable` flag on purpose). Not `if pads.any():` guarding
// a masked write, which the write alone would do (the guard is the cost).
std::string pathTest(const Lines& text, const model::Function& f, const model::Event& e, uint32_t line) {
  if (model::enclosingScope(f, e.scope, model::ScopeKind::Loop) >= 0) return "";
  std::string_view c = text.code(line);
  if (!wholeTensorTest(c)) return "";
  bool test = startsWithWord(c, "assert") ||
              ((startsWithWord(c, "if") || startsWithWord(c, "elif")) && negatedTest(c));
  return test ? "the host needs the value: a whole-tensor test, once per step, decides the path" : "";
}

// A result copied to the host to be kept there, on `self` (`self.activation_mask[i] = m.cpu()`,
// `self.history = x.detach().cpu()`): per-step outputs stored for the user, not computed on.
std::string keptOnHost(const Lines& text, const model::Event& e, uint32_t line) {
  if (e.api != "Tensor.cpu") return "";
  std::string_view c = text.code(line);
  size_t eq = c.find(" = ");
  if (!c.starts_with("self.") || eq == std::string_view::npos || !c.ends_with(".cpu()")) return "";
  if (c.substr(0, eq).find('(') != std::string_view::npos) return "";
  return "the host needs the values: the result is kept on the host, stored on `self`";
}

// A host value computed only when the caller did not pass it: `if max_seqlen is None:
// max_seqlen = int(seqlens.max().item())`. The parameter is the API's way to avoid the read
// (TransformerEngine documents passing max_seqlen_q); the fallback needs the value on the host.
std::string omittedArgument(const Lines& text, const model::Function& f, const model::Event& e, uint32_t line) {
  if (e.sync != model::SyncKind::ValueRead) return "";
  std::string_view c = text.code(line);
  size_t eq = c.find(" = ");
  if (eq == std::string_view::npos) return "";
  std::string_view target = c.substr(0, eq);
  bool param = false;
  for (const auto& p : f.params) param |= p == target;
  if (!param) return "";
  size_t in = text.indent(line);
  for (uint32_t l = line; l-- > f.loc.line;) {
    std::string_view h = text.code(l);
    if (h.empty() || text.indent(l) >= in || h[0] == ')') continue;
    in = text.indent(l);
    if (h == "if " + std::string(target) + " is None:")
      return "the host needs the value: computed only when the caller omits `" + std::string(target) + "`";
    if (startsWithWord(h, "def") || startsWithWord(h, "for") || startsWithWord(h, "while")) break;
  }
  return "";
}

// The exit test of a loop: `while mask.any():`, or `if done.all():` whose body only leaves.
std::string loopExit(const Lines& text, const model::Function& f, const model::Event& e, uint32_t line) {
  if (model::enclosingScope(f, e.scope, model::ScopeKind::Loop) < 0) return "";
  std::string_view c = text.code(line);
  if (!wholeTensorTest(c) || !c.ends_with(":")) return "";
  if (startsWithWord(c, "while"))
    return "the host needs the value: the loop's exit test (data-dependent iteration count)";
  if (!startsWithWord(c, "if") && !startsWithWord(c, "elif")) return "";
  uint32_t body = line + 1, limit = text.size();
  while (body <= limit && text.code(body).empty()) ++body;
  if (body > limit || text.indent(body) <= text.indent(line)) return "";
  std::string_view b = text.code(body);
  if (b != "break" && !startsWithWord(b, "return") && b != "return") return "";
  if (text.blockEnd(line, limit) != body) return "";  // the body does more than leave
  return "the host needs the value: the loop's exit test (an early stop)";
}

// A guard taken on first use only: `if self.buf is None:`, `if not self.initialized:`,
// `if "step" not in state:`, `if len(state) == 0:`, or the `else` of `if "step" in group:`.
// What it holds builds state the later calls reuse (an optimizer's per-group step counter).
bool firstUseGuard(std::string_view cond, bool elseArm) {
  auto stateName = [](std::string_view n) {
    return n.starts_with("self.") || n.find("state") != std::string_view::npos ||
           n.find("cache") != std::string_view::npos || n.find("group") != std::string_view::npos;
  };
  if (cond.ends_with(":")) cond.remove_suffix(1);
  while (!cond.empty() && cond.back() == ' ') cond.remove_suffix(1);
  bool quoted = !cond.empty() && (cond[0] == '"' || cond[0] == '\'');
  if (elseArm) {
    size_t in = cond.find(" in ");
    if (quoted && in != std::string_view::npos && cond.find(" not in ") == std::string_view::npos)
      return stateName(cond.substr(in + 4));
    return cond.starts_with("self.") && cond.ends_with(" is not None");
  }
  if (cond.starts_with("self.") && cond.ends_with(" is None")) return true;
  if (size_t in = cond.find(" not in "); in != std::string_view::npos) return stateName(cond.substr(in + 8));
  if (cond.starts_with("len(") && cond.ends_with(") == 0")) return stateName(cond.substr(4));
  if (cond.starts_with("not self.")) {
    std::string_view n = cond.substr(9);
    return n.find("init") != std::string_view::npos || n.find("built") != std::string_view::npos;
  }
  return false;
}

// The branches around `line` inside `f`: whether one is a first-use guard.
std::string firstUse(const Lines& text, const model::Function& f, uint32_t line) {
  size_t in = text.indent(line);
  for (uint32_t l = line; l-- > f.loc.line;) {
    std::string_view c = text.code(l);
    if (c.empty() || text.indent(l) >= in) continue;
    in = text.indent(l);
    if (startsWithWord(c, "def") || startsWithWord(c, "async") || startsWithWord(c, "class")) break;
    if (startsWithWord(c, "if") || startsWithWord(c, "elif")) {
      if (firstUseGuard(c.substr(c.find(' ') + 1), false)) return "one-time set-up: built on first use";
    } else if (c == "else:") {
      for (uint32_t k = l; k-- > f.loc.line;) {  // the `if` this `else` belongs to
        std::string_view h = text.code(k);
        if (h.empty() || text.indent(k) > in) continue;
        if (text.indent(k) < in) break;
        if (startsWithWord(h, "if") || startsWithWord(h, "elif"))
          if (firstUseGuard(h.substr(h.find(' ') + 1), true)) return "one-time set-up: built on first use";
        break;
      }
    }
  }
  return "";
}

// In a function that runs a stepping loop, outside that loop; or a function of the module
// called only from such places.
std::string oncePerCall(const Lines& text, const model::Module& m, const model::Function& f, uint32_t line) {
  if (hotAround(m, line)) return "";
  std::string_view name(f.name);
  name = name.substr(name.rfind('.') + 1);  // npos + 1 == 0
  // A block of a modular pipeline (diffusers' `__call__(self, components, state)`: encoders,
  // latent preparation, decoding) runs once per pipeline call; the denoising loop's blocks take
  // the step too (`__call__(self, components, block_state, i, t)`) and are not this.
  std::vector<std::string> params;
  for (const auto& p : f.params)
    if (p != "self") params.push_back(p);
  if (name == "__call__" && params == std::vector<std::string>{"components", "state"})
    return "once per call: a block of a modular pipeline";
  auto loops = steppingLoops(text, f.loc.line, f.endLine);
  if (!loops.empty())
    return within(loops, line) ? "" : "once per call: outside the stepping loop of `" + std::string(name) + "()`";
  // Every mention of the name, its `def` aside, is a call outside the stepping loop of a
  // function that has one.
  if (name.empty() || name.ends_with("__")) return "";
  std::string caller = callersOnly(text, name, f.loc.line, f.endLine, [&](uint32_t def, uint32_t call) {
    auto callerLoops = steppingLoops(text, def, text.blockEnd(def, text.size()));
    return !callerLoops.empty() && !within(callerLoops, call);
  });
  if (caller.empty()) return "";
  return "once per call: called only outside the stepping loop of `" + caller + "()`";
}

}  // namespace

std::string deliberateShapeReason(const Finding& f, const model::Module& m, std::string_view src) {
  if (f.ruleId != "SL302" || src.empty() || m.lang != model::Lang::Python) return "";
  const model::Function* fn = innermost(m, f.loc.line);
  if (!fn) return "";
  const model::Event* e = syncAt(*fn, f.loc.line);
  if (!e) return "";
  Lines text(src);
  // A closure run on every iteration of a loop is that loop's body: "once per step" is wrong there.
  bool loopBody = !fn->perIteration.empty();
  if (std::string why = loopBody ? "" : bulkRead(text, *fn, *e, f.loc.line); !why.empty()) return why;
  if (std::string why = loopExit(text, *fn, *e, f.loc.line); !why.empty()) return why;
  if (std::string why = loopBody ? "" : pathTest(text, *fn, *e, f.loc.line); !why.empty()) return why;
  if (std::string why = keptOnHost(text, *e, f.loc.line); !why.empty()) return why;
  if (std::string why = omittedArgument(text, *fn, *e, f.loc.line); !why.empty()) return why;
  if (std::string why = firstUse(text, *fn, f.loc.line); !why.empty()) return why;
  // A module named for logging (`moe_logging.py`): what it gathers is shown, not computed on.
  std::string_view path(m.path);
  std::string_view file = path.substr(path.rfind('/') + 1);
  if (file.find("logging") != std::string_view::npos) return "logging: a module named for it";
  return loopBody ? "" : oncePerCall(text, m, *fn, f.loc.line);
}

}  // namespace sl
