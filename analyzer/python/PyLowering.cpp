// Statements: scopes (regions, loops, branches), bindings, lifetimes.
#include "python/PyLowering.h"
#include "python/PyFunctionRoles.h"

#include <algorithm>
#include <cctype>

namespace sl::py {

using model::EventKind;
using model::ScopeKind;

// The names a loop or assignment target binds (`x`, `k, v`, `[a, (b, c)]`), each passed to `f`.
template <class F>
static void forEachTargetName(TSNode target, std::string_view src, F&& f) {
  std::vector<TSNode> todo{target};
  while (!todo.empty()) {
    TSNode t = todo.back();
    todo.pop_back();
    if (is(t, "identifier")) f(std::string(text(t, src)));
    else for (TSNode c : NamedChildren(t)) todo.push_back(c);
  }
}

Lowerer::Lowerer(ModuleContext& mc, model::Function& fn, std::string className)
    : mc_(mc), fn_(fn), className_(std::move(className)) {
  cpuFunction_ = fn_.name.find("cpu") != std::string::npos || fn_.name.find("host") != std::string::npos;
  if (fn_.scopes.empty()) fn_.scopes.push_back(model::Scope{ScopeKind::Function, -1, fn_.loc, {}});
  if (auto it = mc_.classAttrs.find(className_); !className_.empty() && it != mc_.classAttrs.end())
    for (const auto& [k, f] : it->second) env_[k] = f;
}

void Lowerer::inherit(const std::unordered_map<std::string, Fact>& outer) {
  for (const auto& [k, f] : outer) {
    if (f.kind == Kind::Unknown || env_.count(k)) continue;
    Fact g = f;
    g.local = false;  // produced by the enclosing function, not here
    env_[k] = g;
  }
}

std::unordered_set<std::string> Lowerer::namesForClosures() const {
  auto out = captured_;
  out.insert(bound_.begin(), bound_.end());
  out.insert(fn_.params.begin(), fn_.params.end());
  return out;
}

std::unordered_map<std::string, std::string> Lowerer::closures() const {
  auto out = outerClosures_;
  for (const auto& n : nested_) out[n] = fn_.name + "." + n;
  return out;
}

std::unordered_map<std::string, Fact> Lowerer::selfFacts() const {
  std::unordered_map<std::string, Fact> out;
  for (const auto& [k, f] : env_)
    if (k.rfind("self.", 0) == 0 && f.kind != Kind::Unknown) {
      Fact g = f;
      g.local = false;  // in other methods the producer is not known
      out[k] = g;
    }
  return out;
}

Fact Lowerer::lookup(const std::string& path) const {
  if (auto it = env_.find(path); it != env_.end()) return it->second;
  if (auto it = mc_.globals.find(path); it != mc_.globals.end()) {
    Fact f = it->second;
    f.local = false;
    return f;
  }
  return {};
}

int Lowerer::pushScope(ScopeKind kind, TSNode at, model::StreamRef stream) {
  int saved = scope_;
  fn_.scopes.push_back(model::Scope{kind, scope_, locOf(at), std::move(stream)});
  scope_ = int(fn_.scopes.size() - 1);
  return saved;
}

// Annotated tensor parameters are evidence of a CUDA tensor whose producer is unknown.
static bool annotationIsTensor(std::string_view t) {
  return t == "torch.Tensor" || t == "Tensor" || t == "Optional[torch.Tensor]" ||
         t == "Optional[Tensor]" || t == "torch.Tensor | None" || t == "Tensor | None";
}

// An annotation of Python numbers or strings (`int`, `Optional[float]`, `List[int]`,
// `Dict[str, int]`), with no tensor in it.
static bool annotationIsScalar(std::string_view t) {
  if (t.find("Tensor") != std::string_view::npos) return false;
  for (std::string_view w : {"int", "float", "bool", "str"}) {
    for (size_t at = t.find(w); at != std::string_view::npos; at = t.find(w, at + 1)) {
      bool startOk = at == 0 || !identChar(t[at - 1]);
      bool endOk = at + w.size() == t.size() || !identChar(t[at + w.size()]);
      if (startOk && endOk) return true;
    }
  }
  return false;
}

void collectTensorFields(TSNode classDef, ModuleContext& mc) {
  std::vector<std::string> fields;
  for (TSNode s : NamedChildren(field(classDef, "body"))) {
    if (!is(s, "expression_statement") || ts_node_named_child_count(s) != 1) continue;
    TSNode a = ts_node_named_child(s, 0);
    TSNode type = is(a, "assignment") ? field(a, "type") : TSNode{};
    if (ts_node_is_null(type) || !is(field(a, "left"), "identifier") || !annotationIsTensor(text(type, mc.src))) continue;
    fields.emplace_back(text(field(a, "left"), mc.src));
  }
  const std::string name(text(field(classDef, "name"), mc.src));
  if (!fields.empty()) mc.tensorFields[name] = std::move(fields);
  // `class FlatParameter(nn.Parameter)`, `class QTensor(torch.Tensor)`: its instances are tensors.
  std::string_view bases = text(field(classDef, "superclasses"), mc.src);
  if (bases.find("Tensor") != std::string_view::npos || bases.find("Parameter") != std::string_view::npos)
    mc.tensorClasses.insert(name);
}

// `out: InferOutput`, `Optional["InferOutput"]`: the class of this file the annotation names.
static std::string_view annotatedClass(std::string_view t) {
  if (t.starts_with("Optional[") && t.ends_with("]")) t = t.substr(9, t.size() - 10);
  if (t.ends_with(" | None")) t.remove_suffix(7);
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) t = t.substr(1, t.size() - 2);
  return t;
}

// What a tensor annotation says of `name` (a parameter, or a field of one: `out.logprobs`,
// `subject` then names the field's class too): a host tensor when its name says so
// (`tokens_cpu: Tensor`), else a GPU guess in a file that touches CUDA. Measured on real
// projects: in a file that itself names CUDA, tensor parameters are GPU tensors far more often
// than not (the wrong ones had CPU evidence: `.cpu()` callers, `*_cpu` names), and so are they
// in a file that splits the model across GPUs (Megatron's parallel state); elsewhere in a GPU
// project the guess is weaker. Nothing in CPU-only files.
void Lowerer::annotatedTensor(const std::string& name, const std::string& subject, TSNode at) {
  std::string_view last = std::string_view(name).substr(name.rfind('.') + 1);  // npos + 1 == 0
  if (last.find("cpu") != std::string_view::npos || last.find("host") != std::string_view::npos) {
    env_[name] = Fact{Kind::HostTensor};
    env_[name].pinUnknown = true;
    return;
  }
  if (!mc_.touchesCuda) return;
  Fact f{Kind::CudaTensor};
  const bool gpuFile = mc_.namesCudaItself || mc_.modelParallel;
  f.conf = gpuFile && !cpuFunction_ ? model::Confidence::Medium : model::Confidence::Low;
  f.why = because(nullptr, locOf(at), subject + " in a file that " +
                                          (mc_.namesCudaItself ? "uses CUDA"
                                           : mc_.modelParallel ? "splits the model across GPUs (Megatron's parallel state)"
                                                               : "belongs to a project that uses CUDA"));
  env_[name] = f;
}

void Lowerer::lowerParameters(TSNode params) {
  for (TSNode p : NamedChildren(params)) {
    TSNode nameNode = parameterName(p);
    if (!is(nameNode, "identifier")) continue;
    std::string name(text(nameNode, mc_.src));
    fn_.params.push_back(name);
    TSNode type = field(p, "type");
    if (ts_node_is_null(type)) continue;
    std::string_view annotation = text(type, mc_.src);
    // An annotation says "a tensor", not where it lives: a low-confidence guess in a file that
    // touches CUDA, promoted when the body uses it on the GPU; nothing in CPU-only files.
    // `cur_iter: int`, `sizes: List[int]`: whatever the body does with it, not a tensor.
    if (annotationIsScalar(annotation)) nonTensorParams_.insert(name);
    if (annotationIsTensor(annotation)) annotatedTensor(name, "'" + name + "' is annotated as a tensor", p);
    // `out: InferOutput`, a class of this file with fields annotated as tensors: each field
    // is as good a guess as a tensor-annotated parameter (lmdeploy adac4b18).
    const bool hostByName = name.find("cpu") != std::string::npos || name.find("host") != std::string::npos;
    if (auto it = mc_.tensorFields.find(std::string(annotatedClass(annotation)));
        it != mc_.tensorFields.end() && mc_.touchesCuda && !hostByName)
      for (const std::string& f : it->second)
        annotatedTensor(name + "." + f,
                        "'" + name + "." + f + "' is annotated as a tensor (" + it->first + "." + f + ")", p);
  }
}

// `if not should_log: return` / `if step % every != 0: continue`: a guard that leaves when it
// fails guards the rest of the block as much as `if should_log:` guards its body, so the rest
// is lowered in a Guarded scope (the function or iteration goes on only when the guard holds).
void Lowerer::lowerBlock(TSNode block) {
  int saved = -2;
  for (TSNode s : NamedChildren(block)) {
    lowerStatement(s);
    if (saved == -2 && leavesUnlessGuard(s)) saved = pushScope(ScopeKind::Guarded, s);
  }
  if (saved != -2) popScope(saved);
}

// An `if` with no other arm whose body only leaves (return/continue) and whose condition is a
// failed guard: negated (`not verbose`, `rank != 0`) or an interval remainder (`step % n`,
// `step % n != 0`). `if verbose: return` is not one: the rest then runs on the common path.
bool Lowerer::leavesUnlessGuard(TSNode s) const {
  if (!is(s, "if_statement") || ts_node_named_child_count(s) != 2) return false;  // elif/else
  TSNode body = field(s, "consequence");
  if (ts_node_named_child_count(body) != 1) return false;
  TSNode leave = ts_node_named_child(body, 0);
  if (!is(leave, "return_statement") && !is(leave, "continue_statement")) return false;
  if (ts_node_named_child_count(leave) != 0) {  // `return None` only: a value returned is a result
    TSNode v = ts_node_named_child(leave, 0);
    if (!is(v, "none")) return false;
  }
  TSNode cond = field(s, "condition");
  std::string_view c = text(cond, mc_.src);
  bool negated = is(cond, "not_operator") || (is(cond, "comparison_operator") && c.find("!=") != c.npos) ||
                 (is(cond, "binary_operator") && c.find('%') != c.npos);
  return negated && looksLikeGuard(cond);
}

void Lowerer::lowerStatement(TSNode s) {
  const char* t = ts_node_type(s);
  if (!std::strcmp(t, "expression_statement")) {
    for (TSNode c : NamedChildren(s)) {
      if (is(c, "assignment")) lowerAssignment(c);
      else if (is(c, "augmented_assignment")) {
        Value rhs = eval(field(c, "right"));
        Value lhs = eval(field(c, "left"));
        if (lhs.fact.kind == Kind::CudaTensor) {
          auto& e = emitWork(c, {lhs, rhs}, "augmented-assignment");
          e.writes.push_back(lhs.path);
        } else if (rhs.fact.kind == Kind::CudaTensor && lhs.fact.kind == Kind::Unknown) {
          // `self.stats += torch.tensor(s, device=dev)`, `total += loss`: the sum is computed
          // on the GPU like `a + b` (a number plus a CUDA tensor is a CUDA tensor), and the
          // name holds it from here on.
          auto& e = emitWork(c, {lhs, rhs}, "augmented-assignment");
          if (!lhs.path.empty()) {
            e.writes.push_back(lhs.path);
            env_[lhs.path] = cudaFrom(rhs.fact).fact;
          }
        }
      } else eval(c);
    }
  } else if (!std::strcmp(t, "return_statement")) {
    if (scope_ != 0 && !fn_.firstInnerReturn && !onlyArgumentBranches())
      fn_.firstInnerReturn = ts_node_start_point(s).row + 1;
    handOut(s);
  } else if (!std::strcmp(t, "delete_statement")) {
    for (TSNode c : NamedChildren(s)) {
      auto del = [&](TSNode n) {
        std::string p = pathOf(n);
        if (p.empty()) return;
        Kind k = lookup(p).kind;
        // `del self.stash[k]`: an entry of object state drops what it held (Function::stashes).
        const bool entry = p.starts_with("self.") && p.ends_with("[]");
        if (k == Kind::CudaTensor || k == Kind::HostTensor || entry) emit(EventKind::Free, n, "del").value = p;
        env_.erase(p);
      };
      if (is(c, "expression_list")) for (TSNode d : NamedChildren(c)) del(d);
      else del(c);
    }
  } else if (!std::strcmp(t, "if_statement")) lowerIf(s);
  else if (!std::strcmp(t, "for_statement") || !std::strcmp(t, "while_statement")) lowerLoop(s);
  else if (!std::strcmp(t, "with_statement")) lowerWith(s);
  else if (!std::strcmp(t, "try_statement")) lowerTry(s);
  else if (!std::strcmp(t, "match_statement")) {
    eval(field(s, "subject"));
    TSNode body = field(s, "body");
    for (TSNode c : NamedChildren(body)) {
      int saved = pushScope(ScopeKind::Branch, c);
      if (TSNode cb = field(c, "consequence"); !ts_node_is_null(cb)) lowerBlock(cb);
      popScope(saved);
    }
  } else if (!std::strcmp(t, "function_definition") || !std::strcmp(t, "class_definition") ||
             !std::strcmp(t, "decorated_definition")) {
    // Lowered separately as functions of their own (PythonFrontend). A nested function is
    // called by its short name from here on: calls resolve to "outer.inner".
    TSNode d = is(s, "decorated_definition") ? field(s, "definition") : s;
    if (is(d, "function_definition") && fn_.name != "<module>") {
      std::string name(text(field(d, "name"), mc_.src));
      nested_.insert(name);
      nestedDefs_[name] = d;
    }
  } else if (!std::strcmp(t, "import_statement") || !std::strcmp(t, "import_from_statement")) {
    mc_.imports.add(s, mc_.src);
  } else if (!std::strcmp(t, "block")) {
    lowerBlock(s);
  } else if (!std::strcmp(t, "assert_statement")) {
    condition(ts_node_named_child(s, 0));
  } else {
    // raise, print-like statements...: evaluate their expressions for effects.
    for (TSNode c : NamedChildren(s)) eval(c);
  }
}

namespace {
// Whether the body of a closure can run in place of its call: no `return` or `yield` (which
// would leave the enclosing function instead), no `nonlocal`/`global` rebinding (which would
// outlive the call). Judged from the body's text, strings and nested functions included: a word
// there only makes the test refuse.
bool runsInPlace(std::string_view body) {
  for (std::string_view w : {"return", "yield", "nonlocal", "global"})
    for (size_t at = body.find(w); at != std::string_view::npos; at = body.find(w, at + 1)) {
      size_t after = at + w.size();
      if ((at == 0 || !identChar(body[at - 1])) && (after >= body.size() || !identChar(body[after]))) return false;
    }
  return true;
}
}  // namespace

// A closure the function defines and then calls (`def call_ag(): push(a, ws, ag_stream)` ...
// `call_ag()`, also `call_ag(use_pull)`) does its work on the function's own names, at the call: its GPU work, waits and
// regions are this function's, in order, so a fork or join missing around the call shows here.
// Lowered separately as well (PythonFrontend), the closure alone cannot tell where the names
// it captures were produced. Its local bindings stay its own: the names this function binds are
// restored after the body.
bool Lowerer::inlineClosure(const std::string& shortName, const CallArgs& a) {
  auto it = nestedDefs_.find(shortName);
  if (it == nestedDefs_.end() || inlining_ >= 2 || a.splat) return false;
  TSNode params = field(it->second, "parameters"), body = field(it->second, "body");
  if (ts_node_is_null(body) || !runsInPlace(text(body, mc_.src))) return false;
  // Its parameters take the call's arguments, by position or keyword (`call_ag(use_pull)`);
  // one left out takes its default (unknown here). `*args`/`**kw` closures are not inlined.
  std::vector<std::string> names;
  if (!ts_node_is_null(params))
    for (TSNode p : NamedChildren(params)) {
      TSNode n = parameterName(p);
      if (!is(n, "identifier")) return false;
      names.emplace_back(text(n, mc_.src));
    }
  if (a.pos.size() > names.size()) return false;
  std::vector<const Value*> given(names.size(), nullptr);
  for (size_t i = 0; i < a.pos.size(); ++i) given[i] = &a.pos[i].value;
  for (const auto& [k, x] : a.kw) {
    auto at = std::find(names.begin(), names.end(), k);
    if (at == names.end()) return false;
    given[size_t(at - names.begin())] = &x.value;
  }
  auto env = env_;
  auto bound = bound_;
  auto aliases = moduleAliases_;
  auto tables = pointerTables_;
  auto nested = nested_;
  auto defs = nestedDefs_;
  for (size_t i = 0; i < names.size(); ++i) {
    const Value v = given[i] ? *given[i] : Value{};
    bound_.insert(names[i]);
    if (v.fact.kind == Kind::Unknown) env_.erase(names[i]);
    else env_[names[i]] = v.fact;
    // What the caller produced under its own name is the parameter's producer too.
    if (isCuda(v) && !v.path.empty() && v.path != names[i]) alias(names[i], v.path);
  }
  ++inlining_;
  lowerBlock(body);
  --inlining_;
  env_ = std::move(env);
  bound_ = std::move(bound);
  moduleAliases_ = std::move(aliases);
  pointerTables_ = std::move(tables);
  nested_ = std::move(nested);
  nestedDefs_ = std::move(defs);
  return true;
}

void Lowerer::lowerAssignment(TSNode a) {
  TSNode right = field(a, "right");
  if (ts_node_is_null(right)) {  // annotated declaration without value
    return;
  }
  // Chained `a = b = expr` nests assignments on the right.
  const size_t before = fn_.events.size();
  Value v = is(right, "assignment") ? (lowerAssignment(right), eval(field(right, "left")))
                                    : eval(right);
  TSNode left = field(a, "left");
  producedByCall(left, right, before);
  // `p.grad = None`, `self.buf = None`: the object drops its tensor (a gradient's only owner, as
  // a rule): a lifetime end for the storage used through that name. (A local's rebinding is
  // bind's.)
  if (is(right, "none") && is(left, "attribute"))
    if (std::string p = pathOf(left); !p.empty()) {
      // `p.grad`/`p.data` of a CUDA tensor (a hook's parameter) is one too, named or not.
      Fact f = lookup(p);
      if (f.kind == Kind::Unknown && (p.ends_with(".grad") || p.ends_with(".data")))
        f = lookup(p.substr(0, p.rfind('.'))), f.local = false;
      if (isCuda(Value{f, p, "", false}) && !f.local) emit(EventKind::Free, left, "drop").value = p;
      dropAttributeViews(left, p);
    }
  // `param.data = buf` (a layer-wise offloader swapping weights in): the module's next ops read
  // `buf` through the parameter, on the stream current here, so handing it over is a use of
  // `buf` on this stream (an upload on a side stream must be joined first).
  // Only a tensor can be assigned there, so a value of unknown kind is one too (a low guess).
  if (is(left, "attribute") && text(field(left, "attribute"), mc_.src) == "data" && !v.path.empty() &&
      (isCuda(v) || v.fact.kind == Kind::Unknown) && model::enclosingSideRegion(fn_, scope_) < 0) {
    auto& e = emit(EventKind::Work, left, "Tensor.data=");
    e.reads.push_back(v.path);
    if (isCuda(v)) stamp(e, v.fact);
    else e.confidence = model::Confidence::Low;
  }
  bind(left, v);
  if (is(left, "identifier") && is(right, "call") && v.fact.kind == Kind::Stream)
    if (std::string callee(text(field(right, "function"), mc_.src)); mc_.streamReturners.count(callee))
      fn_.streamFrom[std::string(text(left, mc_.src))] = callee;
  noteStash(left, right);
  noteStateOrigin(left, right);
  noteAttributeView(left, right);
  noteArgumentPart(left, right);
  // `self.ready = ev`: from here the local and the attribute are one object (object state);
  // `self.bufs[k] = t`: the local is an entry of the container.
  if (is(right, "identifier") && is(left, "attribute")) {
    TSNode obj = field(left, "object");
    if (is(obj, "identifier") && text(obj, mc_.src) == "self")
      fn_.stateOf[std::string(text(right, mc_.src))] = "self." + std::string(text(field(left, "attribute"), mc_.src));
  } else if (is(right, "identifier") && is(left, "subscript")) {
    std::string p = pathOf(left);
    if (p.starts_with("self.") && p.ends_with("[]") && p.find('[') == p.size() - 2)
      fn_.stateOf[std::string(text(right, mc_.src))] = p.substr(0, p.size() - 2);
  }
}

// `x = helper(...)`, `a, b = helper(...)`, `xs = [helper(t) for t in ts]`: the helper made what
// it returns with work queued on the stream current at the call, so the call is where the locals
// were produced (an input of a later side-stream region that must wait for it, or a side-stream
// result to join).
void Lowerer::producedByCall(TSNode target, TSNode from, size_t before) {
  if (!(is(target, "identifier") || is(target, "pattern_list") || is(target, "tuple_pattern"))) return;
  std::vector<TSNode> calls;
  if (is(from, "call")) calls.push_back(from);
  else if (is(from, "list_comprehension") || is(from, "generator_expression"))
    calls.push_back(field(from, "body"));
  else if (is(from, "list") || is(from, "tuple"))
    for (TSNode c : NamedChildren(from)) calls.push_back(c);
  for (TSNode c : calls) {
    if (ts_node_is_null(c) || !is(c, "call")) continue;
    const auto at = locOf(c);
    for (size_t i = fn_.events.size(); i-- > before;) {
      auto& e = fn_.events[i];
      if (e.kind != EventKind::Call || e.loc != at) continue;
      forEachTargetName(target, mc_.src, [&](std::string n) { e.writes.push_back(std::move(n)); });
      break;
    }
  }
}

// `self.stash[k] = (t, ev)` / `self.stash[k] = t`: the CUDA tensors named on the right now live
// in the container too (model::Function::stashes).
void Lowerer::noteStash(TSNode target, TSNode from) {
  if (!is(target, "subscript")) return;
  std::string p = pathOf(target);
  if (!p.starts_with("self.") || !p.ends_with("[]")) return;
  std::string root = p.substr(0, p.size() - 2);
  if (root.find('[') != std::string::npos) return;
  if (is(from, "parenthesized_expression")) from = ts_node_named_child(from, 0);
  std::vector<TSNode> parts;
  if (is(from, "tuple") || is(from, "list") || is(from, "expression_list"))
    for (TSNode c : NamedChildren(from)) parts.push_back(c);
  else
    parts.push_back(from);
  for (TSNode c : parts) {
    if (!is(c, "identifier")) continue;
    std::string name(text(c, mc_.src));
    if (lookup(name).kind == Kind::CudaTensor) fn_.stashes.push_back({name, root, locOf(target), fn_.events.size(), scope_});
  }
}

// `lengths = kwargs.get("packed_seq_lengths")`, `mask = batch["mask"]`, `n = cfg.size`, bound
// on every call (not in a branch): a part of what the caller passed, so `if lengths is None:
// return` dispatches on the arguments like a test of a parameter would (testsOnlyArguments).
void Lowerer::noteArgumentPart(TSNode target, TSNode from) {
  if (!is(target, "identifier")) return;
  std::string name(text(target, mc_.src));
  TSNode base = from;
  if (is(base, "call")) {  // `param.get(key[, default])`
    TSNode fn = field(base, "function");
    if (!is(fn, "attribute") || text(field(fn, "attribute"), mc_.src) != "get") base = TSNode{};
    else base = field(fn, "object");
  } else if (is(base, "subscript")) {
    base = field(base, "value");
  } else if (is(base, "attribute")) {
    base = field(base, "object");
  } else {
    base = TSNode{};
  }
  bool part = scope_ == 0 && !ts_node_is_null(base) && is(base, "identifier") &&
              std::find(fn_.params.begin(), fn_.params.end(), text(base, mc_.src)) != fn_.params.end() &&
              text(base, mc_.src) != "self" && text(base, mc_.src) != "cls";
  if (part) argumentParts_.insert(name);
  else argumentParts_.erase(name);
}

// `g = p.grad.to_local()`, `w = layer.weight[:, :n]`: through views (subscripts, methods that
// hand the receiver's storage on), the attribute of a named object `g` reads. Not `self.`
// state (stateOf covers it) and not a copy (`p.grad.clone()`).
void Lowerer::noteAttributeView(TSNode target, TSNode from) {
  if (!is(target, "identifier")) return;
  std::string name(text(target, mc_.src));
  attributeViews_.erase(name);
  TSNode e = from;
  for (int steps = 0; steps < 16 && !ts_node_is_null(e); ++steps) {
    if (is(e, "parenthesized_expression")) e = ts_node_named_child(e, 0);
    else if (is(e, "subscript")) e = field(e, "value");
    else if (is(e, "call")) {
      TSNode fnNode = field(e, "function");
      if (!is(fnNode, "attribute") || returnsNewStorage(text(field(fnNode, "attribute"), mc_.src))) return;
      e = field(fnNode, "object");
    } else if (is(e, "attribute")) {
      TSNode obj = field(e, "object");
      if (!is(obj, "identifier") || text(obj, mc_.src) == "self") return;
      attributeViews_[name] = std::string(text(e, mc_.src));
      return;
    } else {
      return;
    }
  }
}

// `p.grad = None` frees what the locals viewing `p.grad` use, when they are CUDA tensors: a
// side stream still reading them (a copy to the host) needs record_stream first (SL201).
void Lowerer::dropAttributeViews(TSNode at, const std::string& attribute) {
  for (const auto& [local, viewed] : attributeViews_)
    if (viewed == attribute && isCuda(Value{lookup(local), local, "", false}))
      emit(EventKind::Free, at, "drop").value = local;
}

void Lowerer::noteStateOrigin(TSNode target, TSNode from) {
  if (!is(target, "identifier")) return;
  std::string name(text(target, mc_.src));
  Origins o = originsOf(from);
  // The last binding decides; `x = x[0]` keeps no link to itself.
  auto keep = [&](std::map<std::string, std::string>& to, std::string& origin) {
    if (origin.empty() || origin == name) to.erase(name);
    else to[name] = std::move(origin);
  };
  keep(fn_.stateOf, o.state);
  keep(fn_.argOf, o.argument);
  keep(fn_.partOf, o.local);
}

// In a bundle `latents, n, prefix_latents, prefix_latents_frames = prepare(...)`, a part named
// after another part plus a suffix that is no tensor's name (`_frames`, `_lens`; not `_mask`)
// describes that part: its length, count or shape, not a second tensor of the same kind.
bool Lowerer::describesSibling(TSNode target, TSNode part) const {
  std::string_view name = text(part, mc_.src);
  for (TSNode c : NamedChildren(target)) {
    std::string_view other = text(c, mc_.src);
    if (other.size() + 1 < name.size() && name.starts_with(other) && name[other.size()] == '_')
      return !looksLikeTensorName(name.substr(other.size() + 1));
  }
  return false;
}

void Lowerer::bind(TSNode target, const Value& v) {
  if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "list_pattern")) {
    // `a, b = f(x_cuda)`: the parts of a CUDA result are CUDA tensors (or small metadata that
    // nobody reads as a tensor), no surer than medium.
    for (TSNode c : NamedChildren(target)) {
      Value part;
      if (v.fact.kind == Kind::CudaTensor) {
        part = cudaFrom(v.fact);
        // A bundle of tensors and counts: trust the part's name (`latents`, `mask` vs `num_steps`).
        // So is a parameter known only by its annotation: unpacked, it is a tuple despite it
        // (`if isinstance(out, tuple): out, tp_reduce, is_sp = out`), not rows of a tensor.
        bool bundle = v.fact.mixed || (!v.fact.local && !v.path.empty() && v.path.find('.') == std::string::npos &&
                                       std::find(fn_.params.begin(), fn_.params.end(), v.path) != fn_.params.end());
        if (!bundle) part.fact.conf = std::min(part.fact.conf, model::Confidence::Medium);
        else part.fact.conf = looksLikeTensorName(text(c, mc_.src)) && !describesSibling(target, c)
                                  ? model::Confidence::Medium
                                  : model::Confidence::Low;
        // `storing_device, env_device = self._get_devices(...)`: a part named as a device is one
        // (left unknown, so that its uses take it for a device by name, as for a single name).
        if (is(c, "identifier") || is(c, "attribute"))
          if (looksLikeDeviceName(pathOf(c))) part = Value{};
      }
      bind(c, part);
    }
    return;
  }
  std::string p = pathOf(target);
  if (p.empty()) return;
  // A local stream/event stored into an attribute or container outlives the call.
  // A local stream, event or tensor stored into an attribute or container outlives the call.
  if (!is(target, "identifier") && !v.path.empty() && v.path.find_first_of(".[") == std::string::npos &&
      (v.fact.kind == Kind::Stream || v.fact.kind == Kind::Event || v.fact.kind == Kind::CudaTensor ||
       v.fact.kind == Kind::HostTensor))
    fn_.escaped.push_back(v.path);
  if (is(target, "subscript")) {
    std::string base = p.substr(0, p.size() - 2);
    if (lookup(base).kind == Kind::HostTensor) emit(EventKind::HostWrite, target, "setitem").value = base;
    storeAddress(base, v);  // `dst_arr[i] = dst.data_ptr()`: a table of addresses
    // `cache[key] = torch.cuda.Stream()`: the container now holds streams.
    if (v.fact.kind == Kind::Stream) env_[base] = Fact{Kind::StreamContainer};
    // `self.cpu_params[name] = t.pin_memory()`: the entries are what was stored (a read of
    // `base[k]` looks up `base[]`, in this method and, for object state, in the class's
    // others); a container given tensors of both kinds is left unknown.
    if (v.fact.kind == Kind::CudaTensor || v.fact.kind == Kind::HostTensor) {
      if (auto it = env_.find(p); it == env_.end()) env_[p] = v.fact;
      else if (it->second.kind != v.fact.kind) it->second = Fact{};  // stays unknown
    }
    nameProducers(target, p, v);
    return;
  }
  Fact old = lookup(p);
  // Rebinding a name that held a CUDA tensor drops the reference: a lifetime end.
  // In a loop, a fresh host tensor bound each iteration replaces last iteration's buffer.
  bool freshInLoop = v.fact.kind == Kind::HostTensor && v.path.empty() &&
                     model::enclosingScope(fn_, scope_, ScopeKind::Loop) >= 0;
  if (((old.kind == Kind::CudaTensor || old.kind == Kind::HostTensor) && old.local && v.path != p) || freshInLoop)
    emit(EventKind::Free, target, "reassign").value = p;
  Fact f = v.fact;
  // A call's result that may be a tensor or a count: its name decides (`latents` vs `err`).
  if (f.kind == Kind::CudaTensor && f.mixed && is(target, "identifier"))
    f.conf = looksLikeTensorName(p) ? model::Confidence::Medium : model::Confidence::Low;
  // ... and one bound to a device's name is that device (`self._device = get_device(device=
  // cfg.device)`): left unknown, so that its uses take it for a device by name (deviceByName).
  if (f.kind == Kind::CudaTensor && f.mixed && looksLikeDeviceName(p)) f = Fact{};
  if (is(target, "identifier")) {
    bound_.insert(p);
    // `dev = torch.cuda`: the local names the module from here on (canonicalOf); a value that
    // is no library name (a call's result, a tensor) ends that.
    if (f.kind == Kind::Unknown && !v.isCall && !v.canonical.empty() && v.canonical.find('.') != std::string::npos)
      moduleAliases_[p] = v.canonical;
    else
      moduleAliases_.erase(p);
  }
  // A fresh stream, or one fetched from a container, is named where the user binds it
  // (`backward_stream = cache[device]` reads better than `cache[]` in a diagnostic).
  if (f.kind == Kind::Stream && f.stream.kind == model::StreamKind::Side &&
      (f.stream.name.empty() || f.stream.name.ends_with("[]")) && !is(target, "subscript"))
    f.stream.name = p;
  if (f.kind == Kind::Unknown) env_.erase(p);
  else env_[p] = f;
  nameProducers(target, p, v);
  if (is(target, "identifier") && isCuda(v) && !v.isCall && !v.path.empty() && v.path != p) alias(p, v.path);
}

// `input = next_input`: one tensor under two names. The event that last wrote `from` wrote the
// storage `name` now holds, so a rule asking who produced `name` (on which stream) finds it.
void Lowerer::alias(const std::string& name, const std::string& from) {
  for (auto it = fn_.events.rbegin(); it != fn_.events.rend(); ++it) {
    const bool wrote = std::find(it->writes.begin(), it->writes.end(), from) != it->writes.end() ||
                       ((it->kind == EventKind::Alloc || it->kind == EventKind::Copy) && it->value == from);
    if (!wrote) continue;
    if (std::find(it->writes.begin(), it->writes.end(), name) == it->writes.end()) it->writes.push_back(name);
    return;
  }
}

// Events of this statement that produced the bound value (allocation, copy, clock read,
// stream or event creation, an event recorded, the op writing a tensor) learn the name they
// were stored under.
void Lowerer::nameProducers(TSNode target, const std::string& p, const Value& v) {
  for (auto it = fn_.events.rbegin(); it != fn_.events.rend(); ++it) {
    if (it->loc.line < locOf(target).line) break;
    // `ev = s.record_event()` records the event it returns.
    if (it->value.empty() && (it->kind == EventKind::Alloc || it->kind == EventKind::Copy ||
                              it->kind == EventKind::Clock || it->kind == EventKind::StreamCreate ||
                              it->kind == EventKind::EventCreate || it->kind == EventKind::EventRecord)) {
      it->value = p;
      // A copy to the device comes with the allocation of its destination: name both.
      auto prev = std::next(it);
      if (it->kind == EventKind::Copy && prev != fn_.events.rend() && prev->kind == EventKind::Alloc &&
          prev->loc == it->loc && prev->value.empty())
        prev->value = p;
      break;
    }
    if (it->kind == EventKind::Work && it->writes.empty() && v.fact.kind == Kind::CudaTensor) {
      it->writes.push_back(p);
      break;
    }
  }
}

// `if t:` / `while t > 0:` call bool() on a CUDA tensor: the host waits for its value.
void Lowerer::condition(TSNode cond) {
  // `if a and b:` / `if not a:`: a condition calls bool() on every operand that can end its
  // evaluation, the last one included (as an expression, `a and b` only tests `a`).
  while (is(cond, "parenthesized_expression") && ts_node_named_child_count(cond) == 1) cond = ts_node_named_child(cond, 0);
  if (is(cond, "boolean_operator")) {
    condition(field(cond, "left"));
    condition(field(cond, "right"));
    return;
  }
  if (is(cond, "not_operator")) {
    condition(field(cond, "argument"));
    return;
  }
  Value v = eval(cond);
  readValue(cond, v, model::SyncKind::ValueRead, "bool");
}

// A guard that spaces its arm out in time (PyFunctionRoles.h spacesOutInTime).
bool Lowerer::spacesOut(TSNode cond) const { return spacesOutInTime(text(cond, mc_.src)); }

// A logging or interval guard: `if step % log_interval == 0`, `if verbose:`, `if rank == 0:`.
// Words are matched as whole parts of identifiers (`log_every`, `is_debug`), so `logits` or
// `use_checkpoint` are not guards; `x % 2 == 0` is a parity test, not an interval.
bool Lowerer::looksLikeGuard(TSNode cond) const {
  std::string c(text(cond, mc_.src));
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (size_t pct = c.find('%'); pct != std::string::npos) {
    size_t d = c.find_first_not_of(" ", pct + 1);
    bool parity = d != std::string::npos && c.compare(d, 1, "2") == 0 &&
                  (d + 1 >= c.size() || !std::isalnum(static_cast<unsigned char>(c[d + 1])));
    if (!parity) return true;
  }
  static const char* kWords[] = {"log", "logging", "logger", "verbose", "debug", "print", "interval", "report",
                                 "monitor", "display", "profile", "profiler", "profiling", "rank", "eval",
                                 "evaluate", "evaluation", "validate", "validation", "wandb", "tensorboard"};
  // Split into identifier parts at non-alphanumerics and underscores.
  size_t i = 0;
  while (i < c.size()) {
    while (i < c.size() && !std::isalnum(static_cast<unsigned char>(c[i]))) ++i;
    size_t j = i;
    while (j < c.size() && std::isalnum(static_cast<unsigned char>(c[j]))) ++j;
    std::string_view w(c.data() + i, j - i);
    for (const char* k : kWords)
      if (w == k) return true;
    i = j;
  }
  return false;
}

namespace {
// What a name holds after two paths meet. A stream that is a side stream on one path makes
// the region a side region; a CUDA value on one path stays CUDA, no surer than the other path
// allows (medium when the other path does not know; low when it says CPU).
Fact joinFacts(const Fact& a, const Fact& b) {
  using model::Confidence;
  if (a.kind == b.kind) {
    Fact f = a;
    f.conf = std::min(a.conf, b.conf);
    if (!a.stream.isSide() && b.stream.isSide()) f.stream = b.stream;
    f.pinned = a.pinned && b.pinned;
    f.pinUnknown = a.pinUnknown || b.pinUnknown;
    f.pendingCopy = a.pendingCopy || b.pendingCopy;
    return f;
  }
  if (a.kind == Kind::Unknown || b.kind == Kind::Unknown) {
    Fact f = a.kind == Kind::Unknown ? b : a;
    f.conf = std::min(f.conf, Confidence::Medium);
    return f;
  }
  const Fact& cuda = a.kind == Kind::CudaTensor ? a : b;
  if (cuda.kind == Kind::CudaTensor && (a.kind == Kind::HostTensor || b.kind == Kind::HostTensor)) {
    Fact f = cuda;
    f.conf = Confidence::Low;  // `x.cuda() if gpu else x`: CPU evidence weighs in
    return f;
  }
  return a;
}

// A block whose last statement leaves (return, raise, continue, break) does not reach the join.
bool fallsThrough(TSNode block) {
  uint32_t n = ts_node_named_child_count(block);
  if (n == 0) return true;
  TSNode last = ts_node_named_child(block, n - 1);
  return !(is(last, "return_statement") || is(last, "raise_statement") || is(last, "continue_statement") ||
           is(last, "break_statement"));
}
}  // namespace

// Each arm starts from the facts before the `if`; afterwards the facts of the arms that fall
// through are joined (an arm that returns does not shape what follows).
// `if ptr is not None and ptr.dim() == 1:`, `if isinstance(x, Tensor) and x.is_cuda:`: every
// name the condition reads is a parameter, an imported name (a module flag, `is_compiling()`)
// or a builtin; an attribute's object counts, not its name. `self`, locals and module state
// (a cache, a once-flag) make it something else.
bool Lowerer::testsOnlyArguments(TSNode cond) const {
  static const std::unordered_set<std::string_view> kBuiltins = {
      "isinstance", "len", "hasattr", "getattr", "callable", "type", "int", "float", "bool", "all", "any", "min", "max"};
  // `if x.numel() == 0:` / `if len(xs) == 0:`: an arm for empty input is an edge case, not
  // what each step runs.
  // Cheap rejections first (this runs for every `if` lowered): the text names no parameter,
  // or names `self`.
  // `self.X` counts when X is configuration (set in `__init__` only: PyConfigAttrs.h).
  std::string_view c = text(cond, mc_.src);
  if ((c.find("self") != std::string_view::npos && className_.empty()) ||
      (std::none_of(fn_.params.begin(), fn_.params.end(),
                    [&](const std::string& p) { return p != "cls" && c.find(p) != std::string_view::npos; }) &&
       std::none_of(argumentParts_.begin(), argumentParts_.end(),
                    [&](const std::string& p) { return c.find(p) != std::string_view::npos; })))
    return false;
  for (std::string_view w : {"numel", "== 0", "<= 0", "< 1", "empty"})
    for (size_t at = c.find(w); at != std::string_view::npos; at = c.find(w, at + 1)) {
      size_t end = at + w.size();  // `< 1` is not `< 14`
      if (end >= c.size() || !std::isdigit(static_cast<unsigned char>(c[end]))) return false;
    }
  // Every `self.X` must be configuration: checked on the text first (most `if self.x:` test
  // state, and the walk below is the costly part).
  for (size_t at = c.find("self."); at != std::string_view::npos; at = c.find("self.", at + 1)) {
    size_t b = at + 5, e = b;
    while (e < c.size() && identChar(c[e])) ++e;
    if (!mc_.config.isConfig(mc_.src, className_, c.substr(b, e - b))) return false;
  }
  bool param = false;
  std::vector<std::string_view> selfAttrs;
  std::vector<TSNode> todo{cond};
  for (size_t seen = 0; !todo.empty(); ++seen) {
    if (seen > 64) return false;  // a long condition is no simple dispatch
    TSNode n = todo.back();
    todo.pop_back();
    if (is(n, "identifier")) {
      std::string_view t = text(n, mc_.src);
      if (t == "self" || t == "cls") return false;
      if (std::find(fn_.params.begin(), fn_.params.end(), t) != fn_.params.end() ||
          argumentParts_.count(std::string(t))) {
        param = true;
        continue;
      }
      if (kBuiltins.count(t)) continue;
      if (bound_.count(std::string(t)) || mc_.imports.canonical(t).empty()) return false;
      continue;
    }
    if (is(n, "attribute")) {
      TSNode obj = field(n, "object");
      if (is(obj, "identifier") && text(obj, mc_.src) == "self") {
        selfAttrs.push_back(text(field(n, "attribute"), mc_.src));  // judged last: the costly test
        continue;
      }
      todo.push_back(obj);
      continue;
    }
    if (is(n, "keyword_argument")) {
      todo.push_back(field(n, "value"));
      continue;
    }
    if (is(n, "lambda") || is(n, "named_expression") || is(n, "await")) return false;
    for (TSNode c : NamedChildren(n)) todo.push_back(c);
  }
  for (std::string_view a : selfAttrs)  // decided by how the object was built
    if (!mc_.config.isConfig(mc_.src, className_, a)) return false;
  return param || !selfAttrs.empty();
}

bool Lowerer::onlyArgumentBranches() const {
  for (int s = scope_; s > 0; s = fn_.scopes[size_t(s)].parent)
    if (fn_.scopes[size_t(s)].kind != ScopeKind::Branch || !fn_.scopes[size_t(s)].onArguments) return false;
  return true;
}

// `return x, y` / `yield x`: what the statement hands to the caller, which uses it on the
// stream current at the call (a side stream's result must be joined first).
void Lowerer::handOut(TSNode s) {
  auto returns = [&](std::string p) {
    fn_.returned.push_back(std::move(p));
    fn_.returnedAt.push_back(locOf(s));
  };
  for (TSNode c : NamedChildren(s)) {
    Value v = eval(c);
    if (!v.path.empty()) returns(v.path);
    const bool made = !v.path.empty() && std::any_of(fn_.events.begin(), fn_.events.end(), [&](const model::Event& e) {
      return e.kind == EventKind::StreamCreate && e.value == pathOf(c);
    });
    returnsSideStream_ |= made || (v.fact.kind == Kind::Stream && v.fact.stream.kind == model::StreamKind::Side);
    if (is(c, "expression_list") || is(c, "tuple"))
      for (TSNode d : NamedChildren(c))
        if (std::string p = pathOf(d); !p.empty()) returns(p);
  }
}

void Lowerer::lowerIf(TSNode s) {
  TSNode cond = field(s, "condition");
  condition(cond);
  ScopeKind kind = looksLikeGuard(cond) ? ScopeKind::Guarded : ScopeKind::Branch;
  bool onArguments = testsOnlyArguments(cond);  // so far: every condition up to this arm
  const auto before = env_;
  std::vector<std::unordered_map<std::string, Fact>> arms;
  // `if device.type == "cpu":` — what the arm runs is CPU work (`elif device_type == "cpu"`).
  auto testsForCpu = [&](TSNode c) {
    std::string_view t = text(c, mc_.src);
    for (std::string_view w : {"== \"cpu\"", "== 'cpu'", "\"cpu\" ==", "'cpu' =="})
      if (t.find(w) != std::string_view::npos) return true;
    return false;
  };
  // `if ids.device.type == "mps":` — in the arm, `ids` lives on another device than CUDA: what
  // was known of it says nothing there (`ids = ids.to("cpu")` is no GPU read).
  auto otherDevice = [&](TSNode c) -> std::string {
    if (!is(c, "comparison_operator") || ts_node_named_child_count(c) != 2) return "";
    std::string_view t = text(c, mc_.src);
    if (t.find("==") == std::string_view::npos) return "";
    TSNode l = ts_node_named_child(c, 0), r = ts_node_named_child(c, 1);
    if (is(l, "string")) std::swap(l, r);
    if (!is(r, "string")) return "";
    std::string_view dev = text(r, mc_.src);
    bool other = false;
    for (std::string_view d : {"mps", "cpu", "xpu", "npu", "hpu", "xla", "meta"})
      other |= dev.size() == d.size() + 2 && dev.substr(1, d.size()) == d;
    std::string_view lt = text(l, mc_.src);
    if (!other || !lt.ends_with(".device.type")) return "";
    return pathOf(field(field(l, "object"), "object"));
  };
  // `if isinstance(out, torch.Tensor):` / `if torch.is_tensor(out):` — a type test.
  auto testsForTensor = [&](TSNode c) {
    if (!is(c, "call")) return false;
    std::string_view fn = text(field(c, "function"), mc_.src);
    if (fn == "torch.is_tensor") return true;
    if (fn != "isinstance") return false;
    TSNode args = field(c, "arguments");
    TSNode type = ts_node_named_child_count(args) == 2 ? ts_node_named_child(args, 1) : TSNode{};
    std::string_view t = ts_node_is_null(type) ? "" : text(type, mc_.src);
    return t == "torch.Tensor" || t == "Tensor";
  };
  int firstArm = -1;
  auto arm = [&](TSNode block, ScopeKind k, TSNode at, bool cpu = false, bool tensor = false,
                 const std::string& elsewhere = {}) {
    env_ = before;
    if (!elsewhere.empty()) env_.erase(elsewhere);
    int sv = pushScope(k, at);
    if (firstArm < 0) firstArm = scope_;
    fn_.scopes.back().firstArm = firstArm;
    fn_.scopes.back().interval = k == ScopeKind::Guarded && spacesOut(cond);
    fn_.scopes.back().onlyIfTensor = tensor && k == ScopeKind::Branch;
    fn_.scopes.back().onArguments = onArguments && k == ScopeKind::Branch;
    cpuBranch_ += cpu;
    lowerBlock(block);
    cpuBranch_ -= cpu;
    popScope(sv);
    if (fallsThrough(block)) arms.push_back(std::move(env_));
  };
  arm(field(s, "consequence"), kind, s, testsForCpu(cond), testsForTensor(cond), otherDevice(cond));
  bool hasElse = false;
  for (TSNode c : NamedChildren(s)) {
    if (is(c, "elif_clause")) {
      TSNode ec = field(c, "condition");
      env_ = before;
      condition(ec);
      onArguments = onArguments && testsOnlyArguments(ec);
      arm(field(c, "consequence"), looksLikeGuard(ec) ? ScopeKind::Guarded : ScopeKind::Branch, c, testsForCpu(ec));
    } else if (is(c, "else_clause")) {
      hasElse = true;
      arm(field(c, "body"), ScopeKind::Branch, c);  // the common path of an interval guard
    }
  }
  if (!hasElse) arms.push_back(before);
  if (arms.empty()) {  // every arm leaves: what follows runs on no path through this `if`
    env_ = before;
    return;
  }
  env_ = std::move(arms.front());
  for (size_t i = 1; i < arms.size(); ++i) {
    for (auto& [k, f] : env_) {
      auto it = arms[i].find(k);
      f = joinFacts(f, it == arms[i].end() ? Fact{} : it->second);
    }
    for (const auto& [k, f] : arms[i])
      if (!env_.count(k)) env_[k] = joinFacts(Fact{}, f);
  }
}

// `for i, t in enumerate(ts)` / `for a, b in zip(xs, ys)`: each target gets its iterable's
// element (a CUDA tensor's elements are CUDA tensors; enumerate's counter is an int). Anything
// else is evaluated whole. Shared by `for` statements and comprehension clauses.
Lowerer::Iteration Lowerer::iterationOf(TSNode right) {
  Iteration it;
  std::string_view over = is(right, "call") ? text(field(right, "function"), mc_.src) : "";
  if (over == "enumerate" || over == "zip") {
    it.zipped = true;
    if (over == "enumerate") it.parts.emplace_back(), it.partNodes.emplace_back();
    for (TSNode c : NamedChildren(field(right, "arguments"))) {
      if (is(c, "keyword_argument")) continue;
      if (over == "enumerate" && is(c, "call") && text(field(c, "function"), mc_.src) == "zip") {
        // `for i, (a, b) in enumerate(zip(xs, ys))`: the element is itself a zip's tuple.
        it.zippedElement = std::make_shared<Iteration>(iterationOf(c));
        it.parts.emplace_back(), it.partNodes.emplace_back();
        break;
      }
      Value v = eval(c);
      it.parts.push_back(isCuda(v) ? cudaFrom(v.fact) : Value{});
      it.partNodes.push_back(c);
      if (over == "enumerate") break;
    }
  } else {
    it.iterable = eval(right);
    // `loss_dict.items()`, `loss_map.values()`, `losses`: the container's name says what it holds.
    TSNode over = right;
    if (is(over, "call")) {
      TSNode f = field(over, "function");
      std::string_view m = is(f, "attribute") ? text(field(f, "attribute"), mc_.src) : "";
      over = m == "items" || m == "values" ? field(f, "object") : TSNode{};
    }
    std::string name = ts_node_is_null(over) ? std::string() : dotted(over);
    it.losses = !name.empty() && looksLikeLossName(name);
  }
  return it;
}

void Lowerer::noteLossElements(TSNode left, const Iteration& it) {
  if (it.losses) forEachTargetName(left, mc_.src, [&](std::string n) { lossElements_.insert(std::move(n)); });
}

// Binds a tuple target to the parts of a zip/enumerate; false when `left` is bound otherwise.
bool Lowerer::bindParts(TSNode left, const Iteration& it) {
  if (!it.zipped || !(is(left, "pattern_list") || is(left, "tuple_pattern"))) return false;
  size_t k = 0;
  for (TSNode c : NamedChildren(left)) {
    bool element = k == 1 && it.zippedElement;
    if (!(element && bindParts(c, *it.zippedElement))) {
      bind(c, k < it.parts.size() ? it.parts[k] : Value{});
      // An element of `zip(xs, ys)` comes from the sequence at its position.
      noteStateOrigin(c, k < it.partNodes.size() ? it.partNodes[k] : TSNode{});
    }
    ++k;
  }
  return true;
}

void Lowerer::bindIteration(TSNode left, const Iteration& it) {
  noteLossElements(left, it);
  if (!bindParts(left, it)) bind(left, isCuda(it.iterable) ? cudaFrom(it.iterable.fact) : Value{});
}

void Lowerer::lowerLoop(TSNode s) {
  bool isFor = is(s, "for_statement");
  TSNode right = isFor ? field(s, "right") : TSNode{};
  Iteration it = isFor ? iterationOf(right) : Iteration{};
  const Value& iterable = it.iterable;
  int saved = pushScope(ScopeKind::Loop, s);
  TSNode left = isFor ? field(s, "left") : TSNode{};
  if (isFor) noteLossElements(left, it);
  if (isFor && bindParts(left, it)) left = TSNode{};  // bound
  // Iterating a CUDA tensor yields CUDA tensors; anything else yields unknown values (a loader's
  // batches: copying one to the GPU is a real host-to-device copy).
  if (isFor) {
    if (!ts_node_is_null(left)) {
      bind(left, iterable.fact.kind == Kind::CudaTensor ? iterable : Value{});
      noteStateOrigin(left, right);  // `for p in self.params:`
    }
    if (iterable.fact.kind != Kind::CudaTensor)
      forEachTargetName(field(s, "left"), mc_.src, [&](std::string n) { loopBound_.insert(std::move(n)); });
  }
  else condition(field(s, "condition"));
  lowerBlock(field(s, "body"));
  popScope(saved);
  if (TSNode alt = field(s, "alternative"); !ts_node_is_null(alt)) {
    int sv = pushScope(ScopeKind::Branch, alt);
    lowerBlock(field(alt, "body"));
    popScope(sv);
  }
}

void Lowerer::lowerWith(TSNode s) {
  int saved = scope_;
  for (TSNode clause : NamedChildren(s)) {
    if (!is(clause, "with_clause")) continue;
    for (TSNode item : NamedChildren(clause)) {
      TSNode value = field(item, "value");
      TSNode alias{};
      if (is(value, "as_pattern")) {  // `with X as y` wraps X in as_pattern
        alias = field(value, "alias");
        value = ts_node_named_child(value, 0);
      }
      const size_t before = fn_.events.size();
      Value v = eval(value);
      // A stream is a context manager too (`with self.s1:`, torch.Stream.__enter__ makes it
      // current), as is what torch.cuda.stream(s) returns.
      const bool stream = v.fact.kind == Kind::Stream && v.fact.stream.isSide();
      if (stream && v.fact.stream.name.empty()) v.fact.stream.name = std::string(text(value, mc_.src));
      if (v.fact.kind == Kind::StreamContext || stream) {
        // Regions nest: a later item's region is inside the earlier ones.
        pushScope(ScopeKind::StreamRegion, value, v.fact.stream);
        fn_.scopes[size_t(scope_)].freshStream =
            std::any_of(fn_.events.begin() + long(before), fn_.events.end(),
                        [](const model::Event& e) { return e.kind == EventKind::StreamCreate; });
      }
      if (!ts_node_is_null(alias)) {
        TSNode target = is(alias, "as_pattern_target") ? ts_node_named_child(alias, 0) : alias;
        Value bound = v;
        if (v.fact.kind == Kind::StreamContext || stream) bound.fact = Fact{Kind::Stream, v.fact.stream};
        bind(target, bound);
      }
    }
  }
  lowerBlock(field(s, "body"));
  scope_ = saved;
}

void Lowerer::lowerTry(TSNode s) {
  lowerBlock(field(s, "body"));
  for (TSNode c : NamedChildren(s)) {
    if (is(c, "except_clause") || is(c, "except_group_clause") || is(c, "else_clause")) {
      int sv = pushScope(ScopeKind::Branch, c);
      for (TSNode d : NamedChildren(c))
        if (is(d, "block")) lowerBlock(d);
      popScope(sv);
    } else if (is(c, "finally_clause")) {
      for (TSNode d : NamedChildren(c))
        if (is(d, "block")) lowerBlock(d);
    }
  }
}

}  // namespace sl::py
