// Expressions: what each call does to streams, tensors and the host, per PyApiTable.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "python/PyLowering.h"

namespace sl::py {

using model::CopyDir;
using model::EventKind;
using model::StreamKind;
using model::StreamRef;
using model::SyncKind;

namespace {
// What eval() does with a node, by its type: one table lookup per node instead of a chain of
// strcmp over the type name (~1 % of a check: eval runs for every expression node).
enum class ExprKind : unsigned char {
  Other, Identifier, Call, Attribute, Subscript, Parenthesized, Operator, String, Literal, Interpolation,
  Conditional, Comprehension, ForInClause, Yield,
};
ExprKind exprKind(TSNode e) {
  thread_local const NodeTypes* built = nullptr;
  thread_local std::vector<ExprKind> kinds;  // by NodeTypes number
  const TSLanguage* lang = ts_tree_language(e.tree);
  const NodeTypes& types = NodeTypes::of(lang);
  if (&types != built) {
    static const std::pair<const char*, ExprKind> kNames[] = {
        {"identifier", ExprKind::Identifier},
        {"call", ExprKind::Call},
        {"attribute", ExprKind::Attribute},
        {"subscript", ExprKind::Subscript},
        {"parenthesized_expression", ExprKind::Parenthesized},
        {"binary_operator", ExprKind::Operator},
        {"comparison_operator", ExprKind::Operator},
        {"unary_operator", ExprKind::Operator},
        {"boolean_operator", ExprKind::Operator},
        {"not_operator", ExprKind::Operator},
        {"string", ExprKind::String},
        {"lambda", ExprKind::Literal},
        {"integer", ExprKind::Literal},
        {"float", ExprKind::Literal},
        {"true", ExprKind::Literal},
        {"false", ExprKind::Literal},
        {"none", ExprKind::Literal},
        {"interpolation", ExprKind::Interpolation},
        {"conditional_expression", ExprKind::Conditional},
        {"list_comprehension", ExprKind::Comprehension},
        {"generator_expression", ExprKind::Comprehension},
        {"set_comprehension", ExprKind::Comprehension},
        {"dictionary_comprehension", ExprKind::Comprehension},
        {"for_in_clause", ExprKind::ForInClause},
        {"yield", ExprKind::Yield},
    };
    kinds.assign(ts_language_symbol_count(lang), ExprKind::Other);
    for (const auto& [name, kind] : kNames)
      if (TSSymbol id = types.id(name); id < kinds.size()) kinds[id] = kind;
    built = &types;
  }
  const TSSymbol id = types.typeOf(e);
  return id < kinds.size() ? kinds[id] : ExprKind::Other;
}

Value tensor(Kind k, std::string path = {}) {
  Value v;
  v.fact.kind = k;
  v.fact.local = true;
  v.path = std::move(path);
  return v;
}
}  // namespace

const Lowerer::Arg* Lowerer::CallArgs::keyword(std::string_view name) const {
  for (const auto& [k, a] : kw)
    if (k == name) return &a;
  return nullptr;
}

const Lowerer::Arg* Lowerer::CallArgs::at(size_t i, std::string_view kwName) const {
  if (i < pos.size()) return &pos[i];
  return kwName.empty() ? nullptr : keyword(kwName);
}

std::string Lowerer::pathOf(TSNode e) const {
  if (is(e, "identifier")) return std::string(text(e, mc_.src));
  if (is(e, "attribute")) {
    std::string base = pathOf(field(e, "object"));
    return base.empty() ? "" : base + "." + std::string(text(field(e, "attribute"), mc_.src));
  }
  if (is(e, "subscript")) {
    std::string base = pathOf(field(e, "value"));
    return base.empty() ? "" : base + "[]";
  }
  if (is(e, "parenthesized_expression")) return pathOf(ts_node_named_child(e, 0));
  return "";
}

std::string Lowerer::dotted(TSNode e) const {
  if (is(e, "identifier")) return std::string(text(e, mc_.src));
  if (is(e, "attribute")) {
    std::string base = dotted(field(e, "object"));
    return base.empty() ? "" : base + "." + std::string(text(field(e, "attribute"), mc_.src));
  }
  return "";
}

// Walks from an expression to what it takes its value from, through the parts, views and
// getters of an object (not through calls that make new storage, nor through `self.m(x)`):
// the `self.attr` attribute or the identifier it starts at; null when it is neither.
TSNode Lowerer::originOf(TSNode e) const {
  for (int steps = 0; steps < 64 && !ts_node_is_null(e); ++steps) {
    if (is(e, "call")) {
      TSNode fnNode = field(e, "function");
      // `self.m(x)` / `self.layer(x)`: a method's or module's result is a new value; a getter
      // of a state object (`self.store.get(i)`) hands out the object's state.
      if (!is(fnNode, "attribute")) return TSNode{};
      TSNode recv = field(fnNode, "object");
      if ((is(recv, "identifier") && text(recv, mc_.src) == "self") || returnsNewStorage(text(field(fnNode, "attribute"), mc_.src)))
        return TSNode{};
      e = recv;
    } else if (is(e, "subscript")) e = field(e, "value");
    else if (is(e, "parenthesized_expression")) e = ts_node_named_child(e, 0);
    else if (is(e, "attribute")) {
      TSNode obj = field(e, "object");
      if (is(obj, "identifier") && text(obj, mc_.src) == "self") return e;
      e = obj;
    } else {
      return is(e, "identifier") ? e : TSNode{};
    }
  }
  return TSNode{};
}

Lowerer::Origins Lowerer::originsOf(TSNode e) const {
  Origins out;
  TSNode o = ts_node_is_null(e) ? TSNode{} : originOf(e);
  if (ts_node_is_null(o)) return out;
  if (is(o, "attribute")) {
    out.state = "self." + std::string(text(field(o, "attribute"), mc_.src));
    return out;
  }
  std::string name(text(o, mc_.src));
  if (auto it = fn_.stateOf.find(name); it != fn_.stateOf.end()) out.state = it->second;
  if (name == "self" || name == "cls" || name == "ctx") return out;
  const bool param = std::find(fn_.params.begin(), fn_.params.end(), name) != fn_.params.end();
  if (param) out.argument = name;
  else if (auto it = fn_.argOf.find(name); it != fn_.argOf.end()) out.argument = it->second;
  if (!param && bound_.count(name)) out.local = name;
  return out;
}

model::Event& Lowerer::emit(EventKind k, TSNode at, std::string api) {
  model::Event e;
  e.kind = k;
  e.loc = locOf(at);
  e.scope = scope_;
  e.stream = model::effectiveStream(fn_, scope_);
  e.api = std::move(api);
  fn_.events.push_back(std::move(e));
  return fn_.events.back();
}

model::Event& Lowerer::emitWork(TSNode at, const std::vector<Value>& args, std::string api) {
  auto& e = emit(EventKind::Work, at, std::move(api));
  for (const auto& a : args)
    if (isCuda(a) && !a.path.empty()) e.reads.push_back(a.path);
  if (const Fact* f = strongestCuda(args)) stamp(e, *f);
  return e;
}

void Lowerer::readValue(TSNode at, const Value& v, SyncKind why, const char* api) {
  if (isCuda(v)) {
    auto& e = emit(EventKind::HostSync, at, api);
    e.sync = why;
    stamp(e, v.fact);
    if (!v.path.empty()) e.reads.push_back(v.path);
  } else if (v.fact.kind == Kind::HostTensor && v.fact.pendingCopy) {
    auto& r = emit(EventKind::HostRead, at, api);
    r.value = v.path;
    stamp(r, v.fact);
  }
}

Kind Lowerer::deviceKind(const Arg* device) const {
  if (!device) return Kind::HostDevice;  // factories default to the CPU
  Kind k = device->value.fact.kind;
  if (k == Kind::CudaDevice || k == Kind::HostDevice) return k;
  TSNode n = device->node;
  if (is(n, "integer")) return Kind::CudaDevice;
  if (is(n, "string")) {
    std::string_view t = text(n, mc_.src);
    if (t.find("cuda") != std::string_view::npos) return Kind::CudaDevice;
    if (t.find("cpu") != std::string_view::npos) return Kind::HostDevice;
  }
  return Kind::Unknown;
}

bool Lowerer::truthy(const Arg* a) const { return a && text(a->node, mc_.src) == "True"; }

Value Lowerer::eval(TSNode e) {
  // Generated code can nest expressions thousands deep (long `a + b + ...` chains): stop
  // descending rather than exhaust the worker thread's stack.
  if (ts_node_is_null(e) || depth_ > kMaxDepth) return {};
  struct Depth {
    int& d;
    explicit Depth(int& x) : d(++x) {}
    ~Depth() { --d; }
  } guard(depth_);
  const ExprKind kind = exprKind(e);
  if (kind == ExprKind::Identifier) {
    Value v;
    v.path = std::string(text(e, mc_.src));
    v.fact = lookup(v.path);
    if (v.fact.kind == Kind::Unknown) v.canonical = canonicalOf(v.path);
    deviceByName(v, e);
    return v;
  }
  if (kind == ExprKind::Call) return evalCall(e);
  if (kind == ExprKind::Yield) {  // a generator hands its values out as a return does
    handOut(e);
    return {};
  }
  if (kind == ExprKind::Attribute) return evalAttribute(e);
  if (kind == ExprKind::Subscript) return evalSubscript(e);
  if (kind == ExprKind::Parenthesized) return eval(ts_node_named_child(e, 0));
  if (kind == ExprKind::Operator) return evalOperator(e);
  if (kind == ExprKind::String) {  // "cuda", "cuda:0", f"cuda:{rank}", "cpu": device names
    std::string_view s = text(e, mc_.src);
    size_t q = s.find_first_of("\"'");
    std::string_view body = q == std::string_view::npos ? s : s.substr(q + 1);
    if (body.rfind("cuda", 0) == 0 && (body.size() == 5 || body[4] == ':' || body[4] == body.back()))
      return Value{Fact{Kind::CudaDevice}, "", "", false};
    if (body.rfind("cpu", 0) == 0 && body.size() == 4) return Value{Fact{Kind::HostDevice}, "", "", false};
    // other strings: their interpolations (f"{t.item()}") are evaluated below
  }
  if (kind == ExprKind::Literal) return {};
  if (kind == ExprKind::Interpolation) {  // f"{t}" formats the tensor: reads its value
    Value v = eval(field(e, "expression"));
    readValue(e, v, SyncKind::ValueRead, "format");
    return {};
  }
  if (kind == ExprKind::Conditional) {
    Value a = eval(ts_node_named_child(e, 0));
    Value cond = eval(ts_node_named_child(e, 1));
    Value b = eval(ts_node_named_child(e, 2));
    readValue(e, cond, SyncKind::ValueRead, "bool");
    // `"cuda" if torch.cuda.is_available() else "cpu"`: code written for the GPU, with a
    // CPU fallback; its GPU branch is what runs where streams matter.
    if ((a.fact.kind == Kind::CudaDevice) != (b.fact.kind == Kind::CudaDevice) &&
        (a.fact.kind == Kind::HostDevice || b.fact.kind == Kind::HostDevice)) {
      Value d{Fact{Kind::CudaDevice}, "", "", false};
      d.fact.conf = model::Confidence::Medium;
      d.fact.why = because(nullptr, locOf(e), "the device is chosen as CUDA when one is available");
      return d;
    }
    // `torch.cuda.stream(s) if c else nullcontext()`: a region when c holds.
    if (a.fact.kind == Kind::StreamContext && b.fact.kind != Kind::StreamContext) return a;
    if (b.fact.kind == Kind::StreamContext && a.fact.kind != Kind::StreamContext) return b;
    // `x if x.is_cuda else torch.tensor(x).cuda()`: a GPU tensor on one side and nothing known
    // on the other is a GPU tensor, no surer than medium (as when two `if` arms meet).
    // (Not against a literal: `1 if not capturable else torch.tensor([1], device=d)` is either.)
    auto named = [&](int i) {
      TSNode n = ts_node_named_child(e, uint32_t(i));
      return is(n, "identifier") || is(n, "attribute") || is(n, "subscript") || is(n, "call");
    };
    if ((isCuda(a) && b.fact.kind == Kind::Unknown && named(2)) || (isCuda(b) && a.fact.kind == Kind::Unknown && named(0))) {
      Value v = isCuda(a) ? a : b;
      v.path.clear();
      v.fact.conf = std::min(v.fact.conf, model::Confidence::Medium);
      return v;
    }
    return a.fact.kind == b.fact.kind ? a : Value{};
  }
  const bool comprehension = kind == ExprKind::Comprehension;
  if (kind == ExprKind::ForInClause) {  // iterating a CUDA tensor yields CUDA tensors
    Iteration it = iterationOf(field(e, "right"));
    bindIteration(field(e, "left"), it);
    return {};
  }
  Value last;
  int saved = scope_;
  if (comprehension) {
    // The first clause's iterable is evaluated once, before the loop; the other clauses and
    // the element expression (the first child) run per iteration.
    bool first = true;
    for (TSNode c : NamedChildren(e)) {
      if (is(c, "for_in_clause") && first) {
        first = false;
        Iteration it = iterationOf(field(c, "right"));
        saved = pushScope(model::ScopeKind::Loop, e);
        bindIteration(field(c, "left"), it);
      } else if (is(c, "for_in_clause") || is(c, "if_clause")) {
        eval(c);
      }
    }
    if (first) saved = pushScope(model::ScopeKind::Loop, e);
    size_t before = fn_.events.size();
    last = eval(ts_node_named_child(e, 0));
    // `[torch.cuda.Stream() for ...]` keeps every element: the creations are not per-iteration waste.
    for (size_t i = before; i < fn_.events.size(); ++i)
      if ((fn_.events[i].kind == EventKind::StreamCreate || fn_.events[i].kind == EventKind::EventCreate) &&
          fn_.events[i].value.empty()) {
        fn_.events[i].value = "<collected>";
        fn_.escaped.push_back("<collected>");
      }
  } else {
    for (TSNode c : NamedChildren(e)) last = eval(c);
  }
  popScope(saved);
  // `[torch.cuda.Stream() for _ in range(n)]` is a container of streams.
  if (comprehension && last.fact.kind == Kind::Stream) return tensor(Kind::StreamContainer);
  return {};
}

Value Lowerer::evalAttribute(TSNode e) {
  std::string d = dotted(e);
  if (!d.empty()) {
    Fact f = lookup(d);
    if (f.kind != Kind::Unknown) return Value{f, d, "", false};
    if (std::string canon = canonicalOf(d); !canon.empty()) return Value{{}, d, canon, false};
  }
  Value obj = eval(field(e, "object"));
  std::string_view attr = text(field(e, "attribute"), mc_.src);
  std::string path = obj.path.empty() ? "" : obj.path + "." + std::string(attr);
  if (isCuda(obj)) {
    if (attr == "device") return tensor(Kind::CudaDevice);
    if (attr == "T" || attr == "mT" || attr == "H" || attr == "mH" || attr == "data" ||
        attr == "grad" || attr == "real" || attr == "imag")
      return Value{obj.fact, attr == "grad" ? path : obj.path, "", false};
    return {};
  }
  if (obj.fact.kind == Kind::HostTensor && attr == "device") return tensor(Kind::HostDevice);
  // `s.cuda_stream`: the raw handle of stream s (what custom ops, CUDA Python and ctypes calls
  // take): a call handed it runs its work on s, as one handed s itself.
  if (attr == "cuda_stream" && (obj.fact.kind == Kind::Stream || (obj.fact.kind == Kind::Unknown && mc_.streamPaths.count(obj.path))))
    return obj;
  if (!path.empty()) {
    Value v{lookup(path), path, "", false};
    deviceByName(v, e);
    return v;
  }
  return {};
}

Value Lowerer::evalSubscript(TSNode e) {
  TSNode valueNode = field(e, "value");
  Value base = eval(valueNode);
  Value idx;
  bool mask = false;  // a boolean index (comparison, `.bool()`): the output's size is data
  for (TSNode c : NamedChildren(e)) {
    if (ts_node_eq(c, valueNode)) continue;
    if (is(c, "slice")) {  // `x[: n]` with a CUDA `n`: the host reads n to slice
      for (TSNode b : NamedChildren(c)) readValue(b, eval(b), SyncKind::ValueRead, "slice");
      continue;
    }
    Value v = eval(c);
    if (isCuda(v) && (is(c, "comparison_operator") ||
                      (is(c, "call") && text(field(field(c, "function"), "attribute"), mc_.src) == "bool")))
      mask = true, idx = v;
    else if (!isCuda(idx)) idx = v;
  }
  if (base.fact.kind == Kind::StreamContainer)
    return Value{Fact{Kind::Stream, StreamRef::side(base.path + "[]")}, base.path + "[]", "", false};
  indexedOnGpu(base, idx, e);
  if (isCuda(base)) {
    // Basic indexing (ints, slices) is a view: no kernel. Indexing with a tensor gathers on
    // the GPU; a boolean mask sizes its output from the data, so the host waits (like nonzero).
    // The view keeps its base's name (`self.buffer[a:b].copy_(g)` writes `self.buffer[]`), so
    // that what is read or written through it is a use of the base's storage.
    if (!isCuda(idx)) {
      Value view = cudaFrom(base.fact);
      if (!base.path.empty()) view.path = base.path + "[]";
      return view;
    }
    if (mask) readValue(e, idx, SyncKind::ValueRead, "mask-index");
    emitWork(e, {base, idx}, "index");
    return cudaFrom(base.fact);
  }
  if (base.fact.kind == Kind::HostTensor && base.fact.pendingCopy) {
    auto& r = emit(EventKind::HostRead, e, "index");
    r.value = base.path;
    stamp(r, base.fact);
  }
  // An element or slice of a host tensor (`cpu_tokens[i]` after `.cpu()`) is in host memory too.
  // (As pinned as the tensor it views; the pending copy, if any, was just read.)
  if (base.fact.kind == Kind::HostTensor) {
    Fact f = base.fact;
    f.pendingCopy = false;
    return Value{f, base.path.empty() ? "" : base.path + "[]", "", false};
  }
  Fact f = base.path.empty() ? Fact{} : lookup(base.path + "[]");
  return Value{f, base.path.empty() ? "" : base.path + "[]", "", false};
}

Value Lowerer::evalOperator(TSNode e) {
  const char* t = ts_node_type(e);
  std::vector<Value> operands;
  for (TSNode c : NamedChildren(e)) operands.push_back(eval(c));
  bool anyCuda = std::any_of(operands.begin(), operands.end(), isCuda);
  if (!std::strcmp(t, "boolean_operator") || !std::strcmp(t, "not_operator")) {
    // `a and b` / `a or b` / `not a` call bool() on their left operand (the right one is only
    // returned): the host waits for a tensor's value.
    if (!operands.empty()) readValue(e, operands.front(), SyncKind::ValueRead, "bool");
    return {};
  }
  if (!std::strcmp(t, "comparison_operator")) {
    std::string_view op = text(e, mc_.src);
    // `x is None`, `k in d`: identity/membership, no tensor op.
    if (op.find(" is ") != std::string_view::npos || op.find(" in ") != std::string_view::npos) return {};
  }
  for (const auto& v : operands)
    if (v.fact.kind == Kind::HostTensor && v.fact.pendingCopy) {
      auto& r = emit(EventKind::HostRead, e, "operator");
      r.value = v.path;
      stamp(r, v.fact);
    }
  // `t.data_ptr() + offset`: an address into the same storage (raw-pointer copies, NVSHMEM).
  if (!anyCuda && !std::strcmp(t, "binary_operator"))
    for (const auto& v : operands)
      if (v.fact.kind == Kind::DevicePointer) return Value{v.fact, "", "", false};
  if (!anyCuda && !std::strcmp(t, "binary_operator") && operands.size() == 2 &&
      text(field(e, "operator"), mc_.src) == "@") {
    // `x @ w`: Python's numbers and containers have no matrix product; its operands are tensors
    // (a guess about the device, as for a torch op's arguments).
    for (auto& v : operands) usedAsTensor(v, e, "is an operand of @ (matrix product)");
    anyCuda = std::any_of(operands.begin(), operands.end(), isCuda);
  }
  if (!anyCuda) return {};
  // `[x] * n` with a CUDA `n`: Python repeats the list n times, so it reads n on the host.
  if (std::string_view(ts_node_type(ts_node_named_child(e, 0))) == "list" && operands.size() == 2 && isCuda(operands[1])) {
    readValue(e, operands[1], SyncKind::ValueRead, "list-repeat");
    return {};
  }
  useOnStream(operands, e);
  emitWork(e, operands, "operator");
  return cudaFrom(*strongestCuda(operands));
}

// The call's first positional argument names a value known to be a stream (`x.stream(s)`).
bool Lowerer::firstArgIsStream(TSNode argList) const {
  if (ts_node_is_null(argList) || ts_node_named_child_count(argList) == 0) return false;
  TSNode first = ts_node_named_child(argList, 0);
  if (is(first, "keyword_argument") || is(first, "list_splat") || is(first, "dictionary_splat")) return false;
  std::string p = pathOf(first);
  return !p.empty() && lookup(p).kind == Kind::Stream;
}

std::string Lowerer::canonicalOf(std::string_view dotted) const {
  std::string canon = mc_.imports.canonical(dotted);
  if (!canon.empty() || moduleAliases_.empty()) return canon;
  std::string_view head = dotted.substr(0, dotted.find('.'));
  auto it = moduleAliases_.find(std::string(head));
  return it == moduleAliases_.end() ? "" : it->second + std::string(dotted.substr(head.size()));
}

Value Lowerer::evalCall(TSNode call) {
  TSNode fnNode = field(call, "function");
  CallArgs a{call, {}, {}};
  TSNode argList = field(call, "arguments");
  // Callee object first (its chain may contain calls), then arguments left to right.
  Value recv;
  std::string_view method;
  std::string canon;
  if (is(fnNode, "attribute")) {
    std::string d = dotted(fnNode);
    canon = d.empty() || lookup(d).kind != Kind::Unknown ? "" : canonicalOf(d);
    if (canon.empty()) {
      recv = eval(field(fnNode, "object"));
      method = text(field(fnNode, "attribute"), mc_.src);
      // `get_accelerator().current_stream()`: the accelerator's method is torch.cuda's.
      if (recv.canonical == "torch.cuda" && recv.path.empty()) {
        canon = acceleratorApi(method);
        if (!canon.empty()) method = {};
      } else if (recv.fact.kind == Kind::Unknown && recv.path != "self") {
        canon = duckDeviceApi(method, firstArgIsStream(argList));
        if (!canon.empty()) method = {};
      }
    } else if (lookupFunction(canon) == Api::None && canon.rfind("torch.", 0) != 0 &&
               std::count(d.begin(), d.end(), '.') >= 2) {
      // `Worker.torch_platform.Stream()`: a platform wrapper kept on an imported class, not a
      // function of a module (`module.Stream()` may be any library's).
      std::string duck = duckDeviceApi(std::string_view(canon).substr(canon.rfind('.') + 1), firstArgIsStream(argList));
      if (!duck.empty() && !mc_.functions.count(canon)) canon = std::move(duck);
    }
  } else if (is(fnNode, "identifier")) {
    canon = canonicalOf(text(fnNode, mc_.src));
  } else {
    recv = eval(fnNode);
  }
  // Project knowledge (config): a configured helper acts as the torch API it stands for.
  if (std::string api = mc_.knowledge ? mc_.knowledge->resolve(text(fnNode, mc_.src)) : ""; !api.empty()) {
    canon = std::move(api);
    method = {};
  }
  std::vector<std::pair<std::string, size_t>> handedOver;  // streams/events passed as arguments
  auto handOver = [&](const Value& v) {  // positional or keyword: `Slot(ready_event=Event())`
    if (v.fact.kind != Kind::Stream && v.fact.kind != Kind::Event) return;
    size_t created = fn_.events.size();
    if (v.path.empty() && created && fn_.events.back().value.empty() &&
        (fn_.events.back().kind == EventKind::StreamCreate || fn_.events.back().kind == EventKind::EventCreate))
      handedOver.emplace_back("", created - 1);  // created right in the call's arguments
    else if (!v.path.empty())
      handedOver.emplace_back(v.path, 0);
  };
  if (!ts_node_is_null(argList)) {
    for (TSNode c : NamedChildren(argList)) {
      if (is(c, "keyword_argument")) {
        TSNode v = field(c, "value");
        a.kw.emplace_back(text(field(c, "name"), mc_.src), Arg{v, eval(v)});
        handOver(a.kw.back().second.value);
      } else if (is(c, "list_splat") || is(c, "dictionary_splat")) {
        eval(c);
        a.splat = true;
      } else {
        a.pos.push_back(Arg{c, eval(c)});
        handOver(a.pos.back().value);
      }
    }
  }

  // `partial(torch.cuda.stream, stream=s)` is a function that enters s when called (timm's
  // prefetcher: `with stream_context():`); calling a name that holds one opens the region.
  if (canon == "functools.partial" && !a.pos.empty() &&
      lookupFunction(mc_.imports.canonical(dotted(a.pos[0].node))) == Api::StreamContext) {
    CallArgs bound{call, {a.pos.begin() + 1, a.pos.end()}, a.kw, a.splat};
    Value v = callApi(Api::StreamContext, Value{{}, "", "torch.cuda.stream", false}, bound);
    v.fact.kind = Kind::Callable;
    return v;
  }
  if (std::string d = dotted(fnNode); !d.empty())
    if (Fact f = lookup(d); f.kind == Kind::Callable) {
      f.kind = Kind::StreamContext;
      return Value{f, "", "", true};
    }
  // A stream or event handed to a function we do not know (queue.put(ev), lst.append(s),
  // a project class imported from elsewhere) may be kept there; torch's own stream APIs and
  // methods of known objects do not keep it.
  bool torchApi = canon == "torch" || canon.rfind("torch.", 0) == 0;
  bool knownCallee = torchApi || recv.fact.kind != Kind::Unknown;
  if (!knownCallee)
    for (auto& [path, index] : handedOver) {
      if (path.empty()) path = fn_.events[index].value = "<argument>";
      fn_.escaped.push_back(path);
    }
  // `bufs.append(t)`, `queue.put(t)`: a tensor put into a container is kept, not freed.
  if (storesValue(method))
    for (const auto& x : a.pos) {
      storeAddress(recv.path, x.value);  // `ptrs.append(t.data_ptr())`
      if ((isCuda(x.value) || x.value.fact.kind == Kind::HostTensor) && !x.value.path.empty())
        fn_.escaped.push_back(x.value.path);
    }

  // `getattr(torch, self.device)`, `getattr(torch, device_type)`: the device module picked by
  // name at run time (torch.cuda on a GPU), as torch.get_device_module() returns it.
  if (is(fnNode, "identifier") && text(fnNode, mc_.src) == "getattr" && a.pos.size() == 2 &&
      mc_.imports.canonical(dotted(a.pos[0].node)) == "torch" && !is(a.pos[1].node, "string")) {
    Value v;
    v.canonical = "torch.cuda";
    return v;
  }
  if (!canon.empty()) {
    Value callee;
    callee.canonical = canon;
    Api api = lookupFunction(canon);
    // A function of another module of the project (or of a library): a call the project index
    // may resolve (driver/ProjectIndex.h), so its syncs and GPU work count here too.
    // (`torchao.ops.f`, `torch_geometric.utils.softmax` are projects' modules, not torch's.)
    if (api == Api::None && !torchApi) {
      helperCall(canon, a);
      return deviceResult(a, canon);
    }
    // A custom operator (`torch.ops.mylib.op(x, out, s.cuda_stream)`) handed a stream runs on it.
    if (canon.starts_with("torch.ops.")) {
      Value out;
      withHandedStream(a, [&] { out = callApi(api, callee, a); });
      return out;
    }
    return callApi(api, callee, a);
  }
  if (is(fnNode, "identifier")) {
    std::string name(text(fnNode, mc_.src));
    bool nested = nested_.count(name) > 0;  // a closure of this function
    // Its body runs here (inlineClosure); the call stays a call too: who calls a closure, and
    // how often, decides whether the closure's own code is per-step (PyHotClosures.h).
    const bool inlined = nested && inlineClosure(name, a);
    if (nested) {
      name = fn_.name + "." + name;
    } else if (auto it = outerClosures_.find(name); it != outerClosures_.end() && !bound_.count(name)) {
      name = it->second, nested = true;  // a sibling closure, or one of an enclosing function
    }
    if (inlined) {
      emitCall(a.call, name, a);
      return {};
    }
    if (nested || mc_.functions.count(name)) {
      helperCall(name, a);
      // A helper of this module that returns a stream it made or keeps (`get_side_stream(dev)`,
      // a per-device cache): its result is a side stream, named where the caller binds it.
      if (mc_.streamReturners.count(name)) return Value{Fact{Kind::Stream, StreamRef::side("")}, "", "", true};
      return deviceResult(a, name);
    }
    // `max(1, n)` / `min(n, limit)` compare their arguments (`1 < n`, then bool()): a CUDA
    // tensor among them is read on the host (litgpt 47806045). Not `max(xs)` with one argument:
    // a list of host ints taken for a tensor would make it a guess.
    bool compares = (name == "max" || name == "min") && a.pos.size() >= 2 && !a.splat;
    if (isHostValueBuiltin(name) || isPrintLike(name) || compares) {
      for (const auto& arg : a.pos) readValue(call, arg.value, SyncKind::ValueRead, name.c_str());
    }
    if (isHostBuiltin(name) || !mc_.imports.canonical(name).empty()) return {};
    // A module instance is a parameter or a local (`model`, `loss_fn = nn.MSELoss()`); a
    // module-level function (`is_fp8(t)`) returns what it likes.
    Value callee{lookup(name), name, "", false};
    bool instance = bound_.count(name) || std::find(fn_.params.begin(), fn_.params.end(), name) != fn_.params.end() ||
                    captured_.count(name);
    if (!instance && callee.fact.kind != Kind::CudaModule) {
      // A class of this file constructs an object, however it is told where to put its
      // buffers (`Bucket(n, torch.device("cuda"))`): its fields are what its methods make them.
      // Unless it is a tensor (derives from one) or takes part in the tensor's stream protocol
      // (defines `record_stream`, forwarded to the tensors it wraps): then it stands for those
      // tensors, on the device it was given.
      Value result = deviceResult(a, name);
      if (result.fact.kind == Kind::Unknown) return result;  // no device given: nothing to decide
      const std::string prefix = name + ".";
      const bool moduleClass = std::any_of(mc_.functions.begin(), mc_.functions.end(),
                                           [&](const std::string& f) { return f.starts_with(prefix); });
      const bool tensorLike = mc_.functions.count(prefix + "record_stream") > 0 || mc_.tensorClasses.count(name) > 0;
      return moduleClass && !tensorLike ? Value{} : result;
    }
    return moduleCall(callee, name, a);
  }
  if (!method.empty()) {
    if (recv.path == "self" && !className_.empty()) {
      std::string callee = className_ + "." + std::string(method);
      if (mc_.functions.count(callee)) {
        helperCall(callee, a);
        return deviceResult(a, callee);
      }
      if (method == "log") lightningLog(recv, a);  // LightningModule.log (PyCalls.cpp)
      // `self.layer(x)`: a submodule (an attribute, not a method of this class). A method the
      // prefilter did not parse is still a method: look for its `def` in the text.
      std::string attr = "self." + std::string(method);
      if (mc_.src.find("def " + std::string(method) + "(") != std::string_view::npos) return {};
      return moduleCall(Value{lookup(attr), attr, "", false}, attr, a);
    }
    return callMethod(recv, method, a);
  }
  // `kernel[grid](a, b, out)`: a launch of a device kernel of this module or an imported one;
  // its summary (model::Function::kernelLoads) says which arguments it reads and writes.
  if (is(fnNode, "subscript")) {
    TSNode k = field(fnNode, "value");
    const std::string name(is(k, "identifier") || is(k, "attribute") ? text(k, mc_.src) : std::string_view());
    std::string kernel = mc_.functions.count(name) ? name : name.empty() ? "" : mc_.imports.canonical(name);
    Value out = moduleCall(recv, text(fnNode, mc_.src).substr(0, 40), a);
    if (!kernel.empty()) emitCall(a.call, kernel, a);
    return out;
  }
  // `self.layers[i](x)`, `make_head()(x)`
  if (!is(fnNode, "attribute")) return moduleCall(recv, text(fnNode, mc_.src).substr(0, 40), a);
  return {};
}

}  // namespace sl::py
