#include "python/PyFunctionRoles.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sl::py {
namespace {

// Registrations whose hook runs on every forward, backward or optimizer step. Not the
// state-dict and load hooks: those run once. `tensorParam`: the parameter (counted without
// `self`) autograd hands the hook a tensor in, on the device of the tensor hooked; -1 where it
// hands a module and tuples, or a process group's state.
struct HookRegistration {
  const char* name;
  int tensorParam;
};
const HookRegistration kHookRegistrations[] = {
    {"register_forward_hook", -1},          {"register_forward_pre_hook", -1},
    {"register_full_backward_hook", -1},    {"register_full_backward_pre_hook", -1},
    {"register_backward_hook", -1},
    {"register_hook", 0},                         // Tensor.register_hook(hook(grad))
    {"register_post_accumulate_grad_hook", 0},    // hook(param), its .grad just accumulated
    {"register_comm_hook", -1},             {"register_multi_grad_hook", -1},
    {"register_module_forward_hook", -1},   {"register_module_forward_pre_hook", -1},
    {"register_module_full_backward_hook", -1}, {"register_module_full_backward_pre_hook", -1},
    {"register_step_pre_hook", -1},         {"register_step_post_hook", -1},
    // torch.autograd.graph.saved_tensors_hooks(pack, unpack) (hookCall names the two by
    // position): pack gets each tensor the forward saves, produced on the forward's current
    // stream; unpack gets what pack returned, no tensor of autograd's.
    {"saved_tensors_hooks pack", 0},        {"saved_tensors_hooks unpack", -1},
};

// A loss is computed on every training step: functions named as the computation of one
// (`compute_loss`, `loss_fn`, `chunked_cross_entropy`, a bare `loss` method). Not accessors and
// set-up (`get_loss_weights`, `init_loss`), loss-scale bookkeeping (`update_loss_scale`),
// reporting (`log_loss`, `print_losses`), nor a test's or a check's name (`test_loss`).
template <class Has>
std::string lossByName(const std::vector<std::string_view>& words, const Has& has) {
  if (words.empty() || !(has("loss") || has("losses") || (has("cross") && has("entropy")))) return "";
  for (const char* other : {"get", "set", "init", "initialize", "reset", "load", "save", "build", "create", "make",
                            "register", "setup", "configure", "log", "print", "plot", "report", "show", "write",
                            "record", "dump", "format", "test", "check", "is", "has", "should", "validate"})
    if (words[0] == other) return "";
  for (const char* w : {"scale", "scaler", "scaling", "weight", "weights", "type", "types", "name", "names", "cfg",
                        "config", "class", "cls", "registry", "str", "repr", "summary", "history", "stats"})
    if (has(w)) return "";
  return "named as a loss computation";
}

// Frameworks call these once per training or decoding step, whatever class holds them: the
// callbacks `on_train_batch_end`, `on_megatron_step_end`, `on_step_begin` (Lightning, NeMo,
// transformers' TrainerCallback), and functions whose name has the word `step` (`train_step`,
// `training_step`, `update_step_context`, `denoising_step`). Not accessors and set-up named
// after a step (`get_step`, `set_step`, `init_step_state`, `num_step`, `warmup_step`), nor
// a bare `step` (a scheduler's or an environment's, not only an optimizer's).
// Loss computations too (lossByName).
std::string stepByName(std::string_view name) {
  std::vector<std::string_view> words;
  for (size_t b = 0; b < name.size();) {
    size_t e = name.find('_', b);
    if (e == std::string_view::npos) e = name.size();
    if (e > b) words.push_back(name.substr(b, e - b));
    b = e + 1;
  }
  auto has = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
  if (std::string why = lossByName(words, has); !why.empty()) return why;
  if (words.size() < 2) return "";
  if (words[0] == "on" && (has("step") || has("batch")))
    return "named as a per-step callback";
  if (!has("step")) return "";
  for (const char* setup : {"get", "set", "init", "initialize", "reset", "load", "save", "num", "max", "min", "total",
                            "first", "last", "global", "warmup", "is", "has", "should", "skip", "build", "create",
                            "make", "register", "setup", "configure", "compile", "capture", "profile", "benchmark"})
    if (words[0] == setup) return "";
  return "named as a per-step function";
}

bool isHookRegistration(std::string_view name) {
  for (const auto& h : kHookRegistrations)
    if (name == h.name) return true;
  return false;
}

enum class ClassRole { None, Module, AutogradFunction, Optimizer, Metric };

struct FnDef {
  std::string name;  // as PythonFrontend names it
  std::string cls;   // the class of a method, "" otherwise
  uint32_t begin = 0, end = 0;
  TSNode body{};
};

struct ClassDef {
  TSNode node{};   // the class_definition
  TSNode bases{};  // argument_list, or null
  std::vector<std::pair<std::string, std::string>> methods;  // (method, function name)
  bool tensorForward = false;  // defines forward(self, x: torch.Tensor, ...)
  ClassRole role = ClassRole::None;
  bool resolving = false, resolved = false;
};

std::string_view lastName(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

class RoleFinder {
 public:
  RoleFinder(std::string_view src, const Imports& imports) : src_(src), imports_(imports) {}

  FunctionRoles run(TSNode root) {
    definitions(root, "", "");
    FunctionRoles out;
    for (auto& [name, c] : classes_) {
      const char* methods[2] = {nullptr, nullptr};
      const char* kind = "";
      switch (roleOf(name)) {
        case ClassRole::Module: methods[0] = "forward", methods[1] = "training_step", kind = "nn.Module."; break;
        case ClassRole::AutogradFunction: methods[0] = "forward", methods[1] = "backward", kind = "autograd.Function."; break;
        case ClassRole::Optimizer: methods[0] = "step", kind = "Optimizer."; break;
        // torcheval's and torchmetrics' `update` runs on every batch.
        case ClassRole::Metric: methods[0] = "update", kind = "Metric."; break;
        case ClassRole::None: continue;
      }
      for (const auto& [method, fn] : c.methods)
        for (const char* m : methods)
          if (m && method == m) out.hot.emplace(fn, kind + method);
    }
    hooks(root, out);
    for (const auto& f : fns_)
      if (std::string why = stepByName(lastName(f.name)); !why.empty()) out.hot.emplace(f.name, why);
    calledFromHot(out);
    return out;
  }

  // A helper of this module that per-step code calls on every call (`forward` calling
  // `self._pack(x)` or `_offsets(x)`) runs every step too, and so do the helpers it calls in
  // turn, up to three levels, each reason naming the function it serves. A call under an `if`
  // counts only in an arm chosen by configuration (`if self.use_cache and kv_cache is not None:`,
  // an argument's or a setting's truth or None-ness: every step of that configuration runs it;
  // FastVideo 959dbcc8), not one chosen by a counter, a comparison, a logging or rank guard, or
  // lazy initialisation (`if self._freqs is None:`). Calls in nested functions are left out, and
  // so are helpers named as set-up or logging (deliberateRole decides those).
  void calledFromHot(FunctionRoles& out) {
    std::unordered_set<std::string> frontier;
    for (const auto& [name, why] : out.hot) frontier.insert(name);
    for (int level = 0; level < 3 && !frontier.empty(); ++level) {
      std::vector<std::pair<std::string, std::string>> found;
      for (const auto& f : fns_) {
        if (!frontier.count(f.name) || ts_node_is_null(f.body)) continue;
        const std::string& reason = out.hot.at(f.name);
        std::string caller(lastName(f.name));
        for (TSNode s : NamedChildren(f.body)) directCalls(s, [&](TSNode call) {
          TSNode fn = field(call, "function");
          std::string callee;
          if (is(fn, "identifier")) {
            callee = std::string(text(fn, src_));
          } else if (is(fn, "attribute") && !f.cls.empty() && text(field(fn, "object"), src_) == "self") {
            callee = f.cls + "." + std::string(text(field(fn, "attribute"), src_));
          }
          if (callee.empty() || callee == f.name || !names_.count(callee) || out.hot.count(callee)) return;
          if (!deliberateRole(lastName(callee)).empty()) return;
          found.emplace_back(callee, "called every step from `" + caller + "()`, " + reason);
        }, true);
      }
      frontier.clear();
      for (auto& [callee, why] : found)
        if (out.hot.emplace(callee, why).second) out.hotViaCaller.insert(callee), frontier.insert(callee);
    }
  }

  // An `if` whose every condition (elif ones too) is a configuration's: names, attributes and
  // calls tested for truth or None-ness, joined by and/or/not. No comparison, counter or
  // remainder (`step == 0`, `i % n`), no guard word (log, rank, eval, first, init...), and no
  // `self.X is None` (lazy initialisation runs once).
  bool configChain(TSNode ifNode) const {
    auto config = [&](TSNode cond) {
      std::string c(text(cond, src_));
      if (c.find_first_of("%<>=") != std::string::npos) return false;
      if (c.find("self.") != std::string::npos && c.find(" is None") != std::string::npos) return false;
      std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
      for (const char* w : {"log", "verbose", "debug", "print", "rank", "eval", "first", "init", "warmup", "profil",
                            "step", "iter", "epoch", "valid", "test", "once", "built", "initialized", "export",
                            "tracing", "scripting", "compiling", "onnx"})
        if (c.find(w) != std::string::npos) return false;
      return true;
    };
    if (!config(field(ifNode, "condition"))) return false;
    for (TSNode c : NamedChildren(ifNode))
      if (is(c, "elif_clause") && !config(field(c, "condition"))) return false;
    return true;
  }

  // Calls in statement `s` that run whenever `s` does: not under if/while/for/try/with arms
  // that may be skipped (an `if` body), not in nested definitions or lambdas. In document
  // order, by one cursor (a cursor per node cost ~3 % of a check: issue 12); a subtree whose
  // text holds no `(` holds no call (the file's text holds every byte the parsed text does).
  template <class Fn>
  void directCalls(TSNode s, const Fn& visit, bool configArms = false) {
    const NodeTypes& types = NodeTypes::of(ts_tree_language(s.tree));
    const TSSymbol call = types.id("call");
    const TSSymbol stops[] = {types.id("if_statement"), types.id("function_definition"),
                              types.id("class_definition"), types.id("decorated_definition"),
                              types.id("lambda"), types.id("conditional_expression"),
                              types.id("try_statement"), types.id("match_statement")};
    const bool mayPrune = !ts_node_has_error(ts_tree_root_node(s.tree));  // a MISSING `(`
    TSTreeCursor cur = ts_tree_cursor_new(s);
    for (bool more = true; more;) {
      TSNode n = ts_tree_cursor_current_node(&cur);
      bool enter = ts_node_is_named(n);
      if (enter) {
        const TSSymbol type = types.typeOf(n);
        enter = std::find(std::begin(stops), std::end(stops), type) == std::end(stops);
        if (!enter && configArms && type == stops[0] && configChain(n))
          for (TSNode c : NamedChildren(n)) directCalls(c, visit, true);
        if (enter && type == call) visit(n);
        enter = enter && (!mayPrune || holdsParen(n));
      }
      if (enter && ts_tree_cursor_goto_first_child(&cur)) continue;
      while (!(more = ts_tree_cursor_goto_next_sibling(&cur)))
        if (!ts_tree_cursor_goto_parent(&cur)) break;
    }
    ts_tree_cursor_delete(&cur);
  }

 private:
  // Mirrors PythonFrontend's lowerDefinitions, so names match the model's functions.
  void definitions(TSNode block, const std::string& prefix, const std::string& cls) {
    for (TSNode s : NamedChildren(block)) {
      TSNode d = is(s, "decorated_definition") ? field(s, "definition") : s;
      if (is(d, "function_definition")) {
        std::string n(text(field(d, "name"), src_));
        std::string name = prefix + n;
        fns_.push_back({name, cls, ts_node_start_byte(d), ts_node_end_byte(d), field(d, "body")});
        names_.insert(name);
        if (!cls.empty()) {
          ClassDef& c = classes_[cls];
          c.methods.emplace_back(n, name);
          if (n == "forward") c.tensorForward |= takesTensors(field(d, "parameters"));
        }
        definitions(field(d, "body"), name + ".", "");
      } else if (is(d, "class_definition")) {
        std::string c(text(field(d, "name"), src_));
        ClassDef& def = classes_[c];
        if (ts_node_is_null(def.node)) def.node = d, def.bases = field(d, "superclasses");
        definitions(field(d, "body"), c + ".", c);
      } else if (cls.empty() && (is(d, "if_statement") || is(d, "try_statement"))) {
        for (TSNode c : NamedChildren(d))
          if (is(c, "block")) definitions(c, prefix, cls);
      }
    }
  }

  // A class's role from its bases: the first base with a role decides.
  ClassRole roleOf(const std::string& cls) {
    auto it = classes_.find(cls);
    if (it == classes_.end()) return ClassRole::None;
    ClassDef& c = it->second;
    if (c.resolved || c.resolving) return c.role;  // a cycle (invalid Python) resolves to None
    c.resolving = true;
    ClassRole role = ClassRole::None;
    bool based = false;  // has a base other than object
    if (!ts_node_is_null(c.bases))
      for (TSNode b : NamedChildren(c.bases)) {
        if (is(b, "subscript")) {  // `Metric[Tensor]`: its role, but not a base for the guesses below (Generic[T])
          TSNode v = field(b, "value");
          if ((is(v, "identifier") || is(v, "attribute")) && (role = baseRole(std::string(text(v, src_)))) != ClassRole::None)
            break;
          continue;
        }
        if (!is(b, "identifier") && !is(b, "attribute")) continue;  // metaclass=...
        std::string written(text(b, src_));
        based |= written != "object";
        if ((role = baseRole(written)) != ClassRole::None) break;
      }
    // A base from another file (`class UNet(ModelMixin)`): the class is a Module when its own
    // code builds one — it calls super().__init__ and stores torch.nn modules in `self.`.
    if (role == ClassRole::None && based && buildsSubmodules(classText(c.node))) role = ClassRole::Module;
    // Nor when it only wraps modules built elsewhere (`class DiTPiP(BaseModel)` holding
    // `self.model = model`): a `forward` that takes tensors is a Module's forward.
    if (role == ClassRole::None && based && c.tensorForward) role = ClassRole::Module;
    c.role = role, c.resolving = false, c.resolved = true;
    return role;
  }

  // The class's text in the file, found by indentation: under the prefilter the tree may hold
  // only parts of it. A line indented no deeper than `class` ends it (blank lines and comments
  // do not); a string continued at column 0 ends it early, which only loses a detection.
  std::string_view classText(TSNode cls) const {
    size_t b = ts_node_start_byte(cls), indent = ts_node_start_point(cls).column, end = src_.size();
    for (size_t nl = src_.find('\n', b); nl != std::string_view::npos; nl = src_.find('\n', nl + 1)) {
      size_t p = nl + 1;
      while (p < src_.size() && (src_[p] == ' ' || src_[p] == '\t')) ++p;
      if (p >= src_.size()) break;
      if (src_[p] == '\n' || src_[p] == '\r' || src_[p] == '#') continue;
      if (p - (nl + 1) <= indent) {
        end = nl + 1;
        break;
      }
    }
    return src_.substr(b, end - b);
  }

  static bool buildsSubmodules(std::string_view cls) {
    if (cls.find("super(") == std::string_view::npos || cls.find("__init__(") == std::string_view::npos) return false;
    for (size_t p = cls.find("self."); p != std::string_view::npos; p = cls.find("self.", p + 5)) {
      size_t eol = cls.find('\n', p);
      std::string_view line = cls.substr(p, eol == std::string_view::npos ? std::string_view::npos : eol - p);
      size_t eq = line.find(" = ");
      if (eq == std::string_view::npos) continue;
      std::string_view rhs = line.substr(eq + 3);
      if (rhs.starts_with("nn.") || rhs.starts_with("torch.nn.")) return true;
    }
    return false;
  }

  // A parameter annotated as a tensor (`x: torch.Tensor`, `mask: Optional[Tensor]`,
  // `ids: torch.LongTensor`), after `self`.
  bool takesTensors(TSNode params) const {
    if (ts_node_is_null(params)) return false;
    for (TSNode p : NamedChildren(params)) {
      if (!is(p, "typed_parameter") && !is(p, "typed_default_parameter")) continue;
      std::string_view type = text(field(p, "type"), src_);
      for (size_t at = type.find("Tensor"); at != std::string_view::npos; at = type.find("Tensor", at + 6)) {
        // The word ends there (`Tensor`, `FloatTensor`), not `TensorDict` or `TensorType`.
        size_t e = at + 6;
        if (e == type.size() || !identChar(type[e])) return true;
      }
    }
    return false;
  }

  ClassRole baseRole(const std::string& written) {
    std::string canonical = imports_.canonical(written);
    const std::string& full = canonical.empty() ? written : canonical;
    std::string_view last = lastName(full);
    bool capital = !last.empty() && std::isupper(static_cast<unsigned char>(last[0]));
    if (full.starts_with("torch.autograd.") && last.ends_with("Function")) return ClassRole::AutogradFunction;
    if (written.ends_with("autograd.Function")) return ClassRole::AutogradFunction;
    if (last.ends_with("Module")) return ClassRole::Module;
    if (full.starts_with("torch.nn.") && capital && !full.starts_with("torch.nn.utils.") &&
        last != "Parameter" && last != "UninitializedParameter" && last != "Buffer" && last != "UninitializedBuffer")
      return ClassRole::Module;
    if (last.ends_with("Optimizer")) return ClassRole::Optimizer;
    if (last == "Metric" && (full.starts_with("torcheval.") || full.starts_with("torchmetrics."))) return ClassRole::Metric;
    if (full.starts_with("torch.optim.") && capital && full.find('.', 12) == std::string::npos)
      return ClassRole::Optimizer;
    if (written.find('.') == std::string::npos) return roleOf(written);  // a class of this module
    return ClassRole::None;
  }

  // Calls of a hook registration, raise statements, except clauses and export-only branches
  // anywhere in the module (iteratively: trees can be deep). The one walk over every node of a
  // file: each node's type is read once, as a number, and subtrees that cannot hold a call, a
  // raise or an assignment (a string that is not an f-string, an import) are not entered
  // (issue 12: this walk was 14 % of a check).
  void hooks(TSNode root, FunctionRoles& out) {
    const NodeTypes& types = NodeTypes::of(ts_tree_language(root.tree));
    const TSSymbol call = types.id("call"), raise = types.id("raise_statement"),
                   assignment = types.id("assignment"), string = types.id("string"),
                   import = types.id("import_statement"), importFrom = types.id("import_from_statement"),
                   except = types.id("except_clause"), exceptGroup = types.id("except_group_clause"),
                   ifStatement = types.id("if_statement"), assertion = types.id("assert_statement");
    const std::vector<unsigned char>& prune = pruneModes(types, ts_tree_language(root.tree));
    // In a tree with errors a call may lack its `(` (a MISSING token): no pruning there.
    const bool mayPrune = !ts_node_has_error(root);
    TSTreeCursor cur = ts_tree_cursor_new(root);
    for (bool more = true; more;) {
      TSNode n = ts_tree_cursor_current_node(&cur);
      const TSSymbol type = types.typeOf(n);
      if (mayPrune && type < prune.size() && prune[type] != kVisit && !mayHoldTarget(n, prune[type])) {
        while (!(more = ts_tree_cursor_goto_next_sibling(&cur)))
          if (!ts_tree_cursor_goto_parent(&cur)) break;
        continue;
      }
      if (type == call) hookCall(n, out);
      if (type == raise)
        out.raises.emplace_back(ts_node_start_point(n).row + 1, ts_node_end_point(n).row + 1);
      if (type == except || type == exceptGroup)
        out.handlers.emplace_back(ts_node_start_point(n).row + 1, ts_node_end_point(n).row + 1);
      if (type == assertion)
        out.checks.emplace_back(ts_node_start_point(n).row + 1, ts_node_end_point(n).row + 1);
      if (type == ifStatement && onlyRaises(n)) {
        TSNode cond = field(n, "condition");
        out.checks.emplace_back(ts_node_start_point(cond).row + 1, ts_node_end_point(cond).row + 1);
      }
      if (type == ifStatement && exportCondition(field(n, "condition"))) {
        TSNode body = field(n, "consequence");
        out.exporting.emplace_back(ts_node_start_point(n).row + 1, ts_node_end_point(body).row + 1);
      }
      if (type == assignment) patchedForward(n, out);
      if ((type == call && loggingCall(n)) || (type == assignment && metricsTarget(field(n, "left"))))
        out.logging.emplace_back(ts_node_start_point(n).row + 1, ts_node_end_point(n).row + 1);
      bool leaf = type == import || type == importFrom || (type == string && !formatted(n));
      if (!leaf && ts_tree_cursor_goto_first_child(&cur)) continue;
      while (!(more = ts_tree_cursor_goto_next_sibling(&cur)))
        if (!ts_tree_cursor_goto_parent(&cur)) break;
    }
    ts_tree_cursor_delete(&cur);
  }

  // `if torch.isnan(loss).any(): raise ...`: an `if` with no other arm whose body only raises
  // is a validity check, like an assertion.
  static bool onlyRaises(TSNode ifStatement) {
    if (!ts_node_is_null(field(ifStatement, "alternative"))) return false;
    TSNode body = field(ifStatement, "consequence");
    bool any = false;
    for (TSNode s : NamedChildren(body)) {
      if (!is(s, "raise_statement")) return false;
      any = true;
    }
    return any;
  }

  // What hooks() may skip, by node type (issue 12: its sibling steps through tree-sitter's
  // hidden nodes cost ~500 instructions a node, and this walk was ~10 % of a check). Only
  // statements, and the definitions and blocks holding them, can contain a raise, an except
  // clause or an if statement: those are always entered (kVisit). Below them, only calls and
  // assignments are looked at, and only for names: a hook registration's `register_`, and
  // what loggingCall and metricsTarget accept (`print`, `log` in logger/logging/log_*,
  // `writer`, `set_postfix`/`set_description`, `meter`, `metric`; case aside), so a subtree
  // whose text holds none of these words has nothing to find (kNeedsWord: expression
  // statements and assignments, `x: int` has no `=`). In an expression or a simple statement
  // only calls count, and a call's text holds its `(` as well (kNeedsWordAndParen). Which node
  // types can hold which was worked out from the grammar (grammar.json: the rules from which
  // those node types are reachable, aliases included). The file's text may hold more than the
  // parsed text (large literals and grammar gaps are parsed blanked), never less, so testing
  // it only skips less. Keep the word list in step with loggingCall, metricsTarget and
  // kHookRegistrations.
  static constexpr unsigned char kVisit = 0, kNeedsWord = 1, kNeedsWordAndParen = 2;
  static const std::vector<unsigned char>& pruneModes(const NodeTypes& types, const TSLanguage* lang) {
    thread_local const NodeTypes* built = nullptr;
    thread_local std::vector<unsigned char> modes;
    if (built == &types) return modes;
    modes.assign(ts_language_symbol_count(lang), kNeedsWordAndParen);
    for (const char* t : {"module", "block", "case_clause", "class_definition", "decorated_definition",
                          "elif_clause", "else_clause", "except_clause", "except_group_clause", "finally_clause",
                          "for_statement", "function_definition", "if_statement", "match_statement",
                          "raise_statement", "try_statement", "while_statement", "with_statement",
                          "assert_statement"})
      if (TSSymbol id = types.id(t); id < modes.size()) modes[id] = kVisit;
    for (const char* t : {"expression_statement", "assignment", "augmented_assignment"})
      if (TSSymbol id = types.id(t); id < modes.size()) modes[id] = kNeedsWord;
    built = &types;
    return modes;
  }
  bool mayHoldTarget(TSNode n, unsigned char mode) const {
    uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e > src_.size() || b > e) return true;
    std::string_view t = src_.substr(b, e - b);
    if (mode == kNeedsWordAndParen && t.find('(') == std::string_view::npos) return false;
    return holdsRoleWord(t);
  }
  bool holdsParen(TSNode n) const {
    uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
    return e > src_.size() || b > e || src_.substr(b, e - b).find('(') != std::string_view::npos;
  }
  static bool holdsRoleWord(std::string_view t) {
    auto at = [&](size_t i, std::string_view w) {  // w (lower case) at t[i], case aside
      if (t.size() - i < w.size()) return false;
      for (size_t k = 0; k < w.size(); ++k) {
        char c = t[i + k];  // ASCII case folding, as std::tolower in the C locale
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
        if (c != w[k]) return false;
      }
      return true;
    };
    for (size_t i = 0; i < t.size(); ++i) {
      switch (t[i] | 0x20) {  // ASCII letters folded to lower case; other bytes match no case
        case 'l': if (at(i, "log")) return true; break;
        case 'p': if (at(i, "print") || at(i, "plot")) return true; break;
        case 'f': if (at(i, "forward")) return true; break;
        case 'w': if (at(i, "writer") || at(i, "wandb")) return true; break;
        // saved_tensors_hooks, and `super().__init__(pack, unpack)` of a subclass of it
        case 's': if (at(i, "set_") || at(i, "saved_tensors_hooks") || at(i, "super(")) return true; break;
        case 'm': if (at(i, "meter") || at(i, "metric")) return true; break;
        case 'r': if (at(i, "register_")) return true; break;
        default: break;
      }
    }
    return false;
  }

  // `torch.onnx.is_in_onnx_export()`, `torch.jit.is_tracing()`, `self.onnx_trace`, `onnx_export`
  // (and `a and b` of such): true only while the model is exported or traced. `not x` is the
  // common path and does not count.
  bool exportCondition(TSNode c) const {
    while (is(c, "parenthesized_expression")) c = ts_node_named_child(c, 0);
    if (is(c, "boolean_operator") && text(field(c, "operator"), src_) == "and")
      return exportCondition(field(c, "left")) || exportCondition(field(c, "right"));
    if (is(c, "call")) {
      std::string last = lowerLast(c);
      return last == "is_in_onnx_export" || last == "is_tracing";
    }
    if (!is(c, "identifier") && !is(c, "attribute")) return false;
    return lowerLast(c).find("onnx") != std::string::npos;
  }

  // An f-string (its prefix holds f or F): only those hold expressions.
  bool formatted(TSNode str) const {
    std::string_view t = text(str, src_);
    for (char c : t.substr(0, t.find_first_of("'\"")))
      if (c == 'f' || c == 'F') return true;
    return false;
  }

  // The last name of `x.y.z` lower-cased ("z"); of a call or subscript, its object's.
  std::string lowerLast(TSNode n) const {
    while (is(n, "call") || is(n, "subscript")) n = is(n, "call") ? field(n, "function") : field(n, "value");
    std::string_view t = is(n, "attribute") ? text(field(n, "attribute"), src_) : text(n, src_);
    std::string out(t);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }

  // A call whose arguments only go to output: print, a logger, an experiment tracker, a
  // summary writer, a progress bar, a meter. Not `x.log()` (torch's logarithm) nor
  // `logits.log()`: a method `log` counts only on self, a tracker or a logger.
  bool loggingCall(TSNode call) const {
    TSNode fn = field(call, "function");
    if (is(fn, "identifier")) {
      std::string_view f = text(fn, src_);
      // `plot_alignment_to_numpy(...)`, `plot_spectrogram(...)`: a figure for people.
      return f == "print" || f.starts_with("print_") || f.ends_with("_print") || f.starts_with("plot_") || loggingVerb(f);
    }
    if (!is(fn, "attribute")) return false;
    std::string_view method = text(field(fn, "attribute"), src_);
    std::string obj = lowerLast(field(fn, "object"));
    if (obj.ends_with("logger")) return true;  // logger.info, self.logger.log_metrics
    if (obj == "logging" || obj == "log")       // the module's functions, not logging.getLogger
      for (const char* level : {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"})
        if (method == level) return true;
    if (obj == "wandb") return true;  // wandb.log, and the media it logs: wandb.Image(...), wandb.Audio(...)
    if (method == "log") return obj == "self" || obj == "mlflow" || obj == "run" || obj == "tracker";
    if (loggingVerb(method)) return true;  // self.log_dict, tracker.log_metrics
    if (method.starts_with("add_") && obj.find("writer") != std::string::npos) return true;  // writer.add_scalar
    if (method == "set_postfix" || method == "set_description" || method == "set_postfix_str") return true;
    return obj == "meter" || obj.ends_with("_meter");  // loss_meter.update(loss.item()); not `parameter`
  }

  // `log_metrics`, `log_dict`, `log_stats`...: not `log_softmax`, `log_prob` or `log_mel`
  // (math and features), hence a list of what is logged.
  static bool loggingVerb(std::string_view f) {
    if (!f.starts_with("log_")) return false;
    for (const char* what : {"metric", "dict", "stat", "scalar", "info", "hyperparam", "text", "image", "table",
                             "value", "summary", "rank", "memory", "time", "throughput", "step", "train", "val",
                             "eval", "loss", "grad", "to_", "all", "string", "msg", "message", "once", "dist"})
      if (f.substr(4).starts_with(what)) return true;
    return false;
  }

  // `metrics["loss"] = ...`, `self.log_dict[k] = ...`, `val_log = {...}`: a dict of values to
  // show. (`log_probs = ...` is not: only a name that ends in `log`/`logs` counts.)
  bool metricsTarget(TSNode left) const {
    if (!is(left, "subscript") && !is(left, "identifier") && !is(left, "attribute")) return false;
    std::string name = lowerLast(left);
    return name.find("metric") != std::string::npos || name == "logs" || name == "log" || name.ends_with("_log") ||
           name.ends_with("_logs") || name == "log_dict" || name.starts_with("logging_output") || name == "log_info";
  }

  // torch.autograd.graph.saved_tensors_hooks(pack, unpack): autograd calls pack with each tensor
  // the forward saves and unpack when backward needs it (activation offloading). Also as the base
  // of a context manager of the project: `super().__init__(pack, unpack)`.
  bool savedTensorsHooks(TSNode call, std::string_view name) const {
    if (name == "saved_tensors_hooks") return true;
    TSNode fn = field(call, "function");
    if (name != "__init__" || !is(fn, "attribute")) return false;
    TSNode obj = field(fn, "object");
    if (!is(obj, "call") || text(field(obj, "function"), src_) != "super") return false;
    for (TSNode p = ts_node_parent(call); !ts_node_is_null(p); p = ts_node_parent(p))
      if (is(p, "class_definition")) {
        TSNode bases = field(p, "superclasses");
        return !ts_node_is_null(bases) && text(bases, src_).find("saved_tensors_hooks") != std::string_view::npos;
      }
    return false;
  }

  void hookCall(TSNode call, FunctionRoles& out) {
    TSNode fn = field(call, "function");
    std::string_view name = is(fn, "attribute") ? text(field(fn, "attribute"), src_) : text(fn, src_);
    const bool saved = savedTensorsHooks(call, name);
    if (!isHookRegistration(name) && !saved) return;
    TSNode args = field(call, "arguments");
    if (!is(args, "argument_list")) return;
    int position = 0;
    for (TSNode a : NamedChildren(args)) {
      std::string_view registration = name;
      if (saved) {
        // `pack_hook=`/`unpack_hook=` by keyword, else by position.
        std::string_view kw = is(a, "keyword_argument") ? text(field(a, "name"), src_) : std::string_view();
        const bool pack = kw.empty() ? position == 0 : kw.starts_with("pack");
        registration = pack ? "saved_tensors_hooks pack" : "saved_tensors_hooks unpack";
      }
      ++position;
      if (is(a, "keyword_argument")) a = field(a, "value");
      // functools.partial(hook, ...): the hook is its first argument.
      if (is(a, "call") && lastName(text(field(a, "function"), src_)) == "partial") {
        TSNode pa = field(a, "arguments");
        a = is(pa, "argument_list") ? ts_node_named_child(pa, 0) : TSNode{};
      }
      std::string target = resolve(a, ts_node_start_byte(call));
      if (!target.empty() && !removesItself(target))
        out.hot.emplace(target, "a hook registered with " + std::string(registration));
    }
  }

  // `LlamaAttention.forward = fast_attention_forward` (unsloth, liger-kernel): a function of this
  // module patched in as a module class's forward runs as that forward, every step. Only a
  // class's attribute (a capitalized name), not an instance's (`model.forward = wrapped`).
  void patchedForward(TSNode assign, FunctionRoles& out) {
    TSNode left = field(assign, "left"), right = field(assign, "right");
    if (!is(left, "attribute") || text(field(left, "attribute"), src_) != "forward" || !is(right, "identifier")) return;
    std::string_view cls = lastName(text(field(left, "object"), src_));
    if (cls.empty() || !std::isupper(static_cast<unsigned char>(cls[0]))) return;
    std::string target = resolve(right, ts_node_start_byte(assign));
    if (!target.empty()) out.hot.emplace(target, "nn.Module.forward, patched in as `" + std::string(cls) + ".forward`");
  }

  // A hook that removes a hook handle (`self.first_check.remove()`, `handle.remove()`: no
  // argument, unlike a list's `remove(x)`) is a one-shot check, not per-step code.
  bool removesItself(const std::string& target) const {
    for (const auto& f : fns_)
      if (f.name == target) return src_.substr(f.begin, f.end - f.begin).find(".remove()") != std::string_view::npos;
    return false;
  }

  // The module function an argument names: `hook` (nested in an enclosing function, or at
  // module level) or `self.hook` (a method of the enclosing class); "" when none.
  std::string resolve(TSNode a, uint32_t at) const {
    if (ts_node_is_null(a)) return "";
    std::vector<const FnDef*> enclosing;  // innermost first
    for (const auto& f : fns_)
      if (f.begin <= at && at < f.end) enclosing.push_back(&f);
    std::sort(enclosing.begin(), enclosing.end(),
              [](const FnDef* x, const FnDef* y) { return x->end - x->begin < y->end - y->begin; });
    if (is(a, "identifier")) {
      std::string id(text(a, src_));
      for (const FnDef* f : enclosing)
        if (names_.count(f->name + "." + id)) return f->name + "." + id;
      return names_.count(id) ? id : "";
    }
    if (is(a, "attribute") && text(field(a, "object"), src_) == "self") {
      for (const FnDef* f : enclosing)
        if (!f->cls.empty()) {
          std::string m = f->cls + "." + std::string(text(field(a, "attribute"), src_));
          return names_.count(m) ? m : "";
        }
    }
    return "";
  }

  std::string_view src_;
  const Imports& imports_;
  std::vector<FnDef> fns_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, ClassDef> classes_;
};

}  // namespace

FunctionRoles findFunctionRoles(TSNode root, std::string_view src, const Imports& imports) {
  return RoleFinder(src, imports).run(root);
}

namespace {

// The snake_case words of a function name, lower-cased, leading/trailing underscores dropped
// ("_load_from_state_dict" -> load, from, state, dict; "setUp" -> setup).
std::vector<std::string> nameWords(std::string_view name) {
  std::vector<std::string> words(1);
  for (char c : name) {
    if (c == '_') {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += char(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

// Why a function named `last` is deliberate code: it runs once (construction, loading,
// conversion, warm-up) or gathers values to show (logging); "" when its name does not say.
// Precise on purpose: `load_batch`, `build_attention_mask` or `prepare_inputs_for_generation`
// run every step, so `load`, `build` and `prepare` count only with the word that says what is
// loaded, built or prepared once.
std::string roleByName(std::string_view last) {
  for (const char* m : {"__init__", "__post_init__", "__setstate__", "__new__"})
    if (last == m) return "one-time set-up `" + std::string(last) + "`";
  std::vector<std::string> w = nameWords(last);
  if (w.empty()) return "";
  auto has = [&](const char* word) { return std::find(w.begin(), w.end(), word) != w.end(); };
  const std::string& first = w[0];
  bool once = false;
  for (const char* f : {"init", "initialize", "initialise", "setup", "configure", "calibrate", "calibration",
                        "warmup", "export", "convert", "save"})
    once |= first == f;
  once |= first == "set" && w.size() > 1 && w[1] == "up";        // set_up
  once |= first == "warm" && w.size() > 1 && w[1] == "up";       // warm_up
  once |= first == "reset" && has("parameters");                 // reset_parameters
  once |= first == "tie" && has("weights");                      // tie_weights
  once |= first == "post" && w.size() > 1 && w[1] == "init";     // post_init
  once |= first == "from" && (has("pretrained") || has("config") || has("checkpoint") || has("file"));
  once |= first == "load" && (w.size() == 1 || has("state") || has("checkpoint") || has("ckpt") ||
                              has("model") || has("weights") || has("pretrained") || has("adapter") ||
                              has("from") || has("params") || has("parameters"));
  once |= (first == "build" || first == "prepare") && w.size() > 1 && w.back() == "model";
  once |= has("prepare") && w.size() > 2 && w.back() == "model";  // fsdp2_prepare_model
  // Checkpoint I/O: a state dict gathered, converted or loaded (`gather_cpu_state_dict`,
  // `_remap_adapter_state_dict_for_load`, `gather_from_sharded_optimizer_state`): once per save
  // or load. Not activation checkpointing (`checkpoint_unpack` runs every backward).
  once |= has("state") && (has("dict") || has("gather"));
  once |= first == "prepare" && w.back() == "latents";            // prepare_latents: once per pipeline call
  once |= (first == "quantize" || first == "wrap" || first == "shard") && has("model");
  once |= first == "capture" && (has("graph") || has("graphs") || has("cudagraph"));  // CUDA-graph capture
  // Placing a model's parts once (`move_non_experts_to_gpu`); not `move_to_device(batch)`.
  once |= first == "move" && (has("model") || has("weights") || has("params") || has("parameters") ||
                              has("experts") || has("modules") || has("buffers"));
  // Placing an adapter's or a model's state on a device (`set_lora_device`,
  // `_move_indices_to_device`): once, when the model is placed. A noun for state is required:
  // `move_to_device(batch)` and `set_device` run every step or say nothing.
  bool placing = (first == "set" || first == "move") && (has("device") || has("gpu") || has("cuda"));
  bool stateNoun = false;
  for (const char* n : {"lora", "adapter", "adapters", "indices", "index", "state", "states", "buffer", "buffers",
                        "weight", "weights", "param", "params", "parameters", "module", "modules", "experts"})
    stateNoun |= has(n);
  once |= placing && stateNoun;
  // Merging an adapter into its base weights (and back) happens once, on request; not
  // `merge_attention_states`.
  once |= (first == "merge" || first == "unmerge") && (w.size() == 1 || has("unload") || has("adapter"));
  if (once) return "one-time set-up `" + std::string(last) + "`";
  // Functions that gather values to show: `log_all`, `training_log`, `dist_reduce_metrics`,
  // `print_eviction_stats`. Not math: `log_softmax`, `compute_log_probs`, `log_likelihood`.
  bool logMath = false;
  for (const char* m : {"softmax", "prob", "probs", "sigmoid", "likelihood", "det", "normal", "sum", "exp", "space",
                        "mel", "spec", "scale", "var", "std"})
    logMath |= w.size() > 1 && w[1] == m;
  bool logging = ((first == "log" || first == "logging") && !logMath) || first == "print" || w.back() == "log" ||
                 w.back() == "logging" || (has("metrics") && first != "update");  // not a metric's per-step update
  return logging ? "logging `" + std::string(last) + "`" : "";
}

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

// roleByName, remembered per thread by the function's own name: a pure function of it, and
// own names repeat across classes and files (`forward`, `__init__`) where qualified ones do
// not; its word lists cost ~8 k instructions a name (issue 12).
const std::string& roleByOwnName(std::string_view last) {
  thread_local std::unordered_map<std::string, std::string, NameHash, std::equal_to<>> known;
  if (auto it = known.find(last); it != known.end()) return it->second;
  if (known.size() >= (1u << 16)) known.clear();  // a bound on memory, for huge projects
  return known.emplace(std::string(last), roleByName(last)).first->second;
}

}  // namespace

std::string deliberateRole(std::string_view name) {
  std::string_view last = lastName(name);
  for (const char* m : {"__str__", "__repr__", "__format__", "__rich_repr__", "extra_repr"})
    if (last == m) return "`" + std::string(last) + "`";
  // A quantization observer (`class AWQObserver(nn.Module)`, torch.ao's `HistogramObserver`)
  // runs only while calibrating: it records statistics, on the host when it must.
  if (size_t dot = name.rfind('.'); dot != std::string_view::npos) {
    std::string_view cls = lastName(name.substr(0, dot));
    if (cls.ends_with("Observer")) return "calibration `" + std::string(cls) + "`";
  }
  return roleByOwnName(last);
}

bool spacesOutInTime(std::string_view c) {
  if (c.find('%') != std::string_view::npos) return true;
  for (std::string_view w : {"interval", "every", "freq", "period"})
    if (c.find(w) != std::string_view::npos) return true;
  return false;
}

bool namedAsPerStep(std::string_view name) { return !stepByName(name).empty(); }

bool hotByNameOnly(std::string_view why) { return why.starts_with("named as "); }

int hookTensorParam(std::string_view why) {
  constexpr std::string_view kPrefix = "a hook registered with ";
  if (!why.starts_with(kPrefix)) return -1;
  why.remove_prefix(kPrefix.size());
  for (const auto& h : kHookRegistrations)
    if (why == h.name) return h.tensorParam;
  return -1;
}

std::vector<size_t> perStepRegistrations(std::string_view src) {
  std::vector<size_t> out;
  for (size_t p = src.find("register_"); p != std::string_view::npos; p = src.find("register_", p + 9)) {
    if (p > 0 && identChar(src[p - 1])) continue;  // `_register_hooks`: another name
    size_t e = p;
    while (e < src.size() && identChar(src[e])) ++e;
    if (isHookRegistration(src.substr(p, e - p))) out.push_back(p);
  }
  // `saved_tensors_hooks(pack, unpack)` made where the hooks are handed over (a method returning
  // the context manager); a subclass's `super().__init__(pack, unpack)` sits in `__init__`, kept anyway.
  constexpr std::string_view kSaved = "saved_tensors_hooks";
  for (size_t p = src.find(kSaved); p != std::string_view::npos; p = src.find(kSaved, p + kSaved.size())) {
    size_t e = p + kSaved.size();
    while (e < src.size() && (src[e] == ' ' || src[e] == '\t')) ++e;
    if ((p == 0 || !identChar(src[p - 1])) && e < src.size() && src[e] == '(') out.push_back(p);
  }
  for (size_t p = src.find(".forward"); p != std::string_view::npos; p = src.find(".forward", p + 8)) {
    size_t e = p + 8;
    if (e < src.size() && identChar(src[e])) continue;  // `.forward_hooks`
    while (e < src.size() && (src[e] == ' ' || src[e] == '\t')) ++e;
    if (e + 1 >= src.size() || src[e] != '=' || src[e + 1] == '=') continue;
    size_t b = p;  // the class's name: capitalized, as patchedForward wants it
    while (b > 0 && identChar(src[b - 1])) --b;
    if (b < p && std::isupper(static_cast<unsigned char>(src[b]))) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sl::py
