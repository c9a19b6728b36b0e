// Lowers one Python function body (or module-level code) into a model::Function.
//
// It tracks, per name, what the name holds (a CUDA tensor, a host tensor, a tensor whose device
// is not known, a stream, an event, a module on the GPU...), flow-sensitively in statement
// order. Each CUDA fact carries a confidence and the chain of reasons that made it
// (model::Evidence): direct evidence (torch factories with a CUDA device, `.cuda()`, torch ops
// on CUDA values) is high; inference from use (a side-stream region, `record_stream`, the
// output of a module on the GPU, what the project's callers pass in) is medium; a bare
// `torch.Tensor` annotation only says "a tensor" (low, hidden by default). CPU evidence
// (`.cpu()`, a factory without a device, numpy) wins over inference.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "config/ProjectKnowledge.h"
#include "model/StreamModel.h"
#include "python/PyApiTable.h"
#include "python/PyConfigAttrs.h"
#include "python/PyImports.h"
#include "python/TsNode.h"

namespace sl::py {

enum class Kind : uint8_t {
  Unknown,
  CudaTensor,
  HostTensor,
  CudaModule,       // an nn.Module moved to the GPU (`Net().cuda()`, `model.to(cuda_device)`)
  Stream,
  Event,
  StreamContainer,  // dict/list/attribute holding streams (the seed's `backward_streams[device]`)
  CudaDevice,
  HostDevice,
  StreamContext,    // the object torch.cuda.stream(s) returns
  Callable,         // a function that opens a stream region when called: `partial(torch.cuda.stream, stream=s)`
  DevicePointer,    // an address into a CUDA tensor's storage (`t.data_ptr() + off`): `pointee` names it
};

// The reasons a value is what it is, newest first; shared by every copy of the fact.
struct Why {
  model::Evidence ev;
  std::shared_ptr<const Why> prev;
};
using WhyPtr = std::shared_ptr<const Why>;
WhyPtr because(WhyPtr prev, Loc loc, std::string text);
std::vector<model::Evidence> chainOf(const WhyPtr& w, size_t max = 3);  // origin first

struct Fact {
  Fact() = default;
  explicit Fact(Kind k, model::StreamRef s = {}) : kind(k), stream(std::move(s)) {}
  Kind kind = Kind::Unknown;
  model::StreamRef stream;      // Stream / StreamContext: which stream
  bool pinned = false;          // HostTensor: page-locked
  bool pinUnknown = false;      // HostTensor known by its name only (`out_cpu`): pinned or not
  bool local = false;           // produced in this function (its producer stream is known)
  bool pendingCopy = false;     // HostTensor: target of a non_blocking D2H copy not yet synced
  bool mixed = false;           // CudaTensor: a call's result that may bundle non-tensors
                                // (counts, flags): its unpacked parts are only low-confidence
  model::Confidence conf = model::Confidence::High;  // CudaTensor/CudaModule/CudaDevice
  WhyPtr why;                   // what made it so (CudaTensor/CudaModule/CudaDevice/DevicePointer)
  std::string pointee;          // DevicePointer: the tensor's access path
};

// The value of an expression: its fact, its access path when it names storage, and whether
// it is an unnamed temporary.
struct Value {
  Fact fact;
  std::string path;        // "x", "self.buf", "d[]"; "" for temporaries
  std::string canonical;   // resolved API name for dotted names / calls ("torch.cuda.stream")
  bool isCall = false;
};

inline bool isCuda(const Value& v) { return v.fact.kind == Kind::CudaTensor; }

// Facts and names shared by all functions of one module.
struct ModuleContext {
  std::string_view src;
  Imports imports;
  std::unordered_set<std::string> functions;                  // "f", "Class.method"
  // Functions lowered so far that return a stream they created or took from a cache of streams
  // (their result is a side stream: PyExpr's calls of module functions).
  std::unordered_set<std::string> streamReturners;
  // Names the file uses as streams somewhere (python/PyStreamPaths.h): a helper handed one of
  // them runs its work there, even before the file's first wait on it.
  std::unordered_set<std::string> streamPaths;
  std::unordered_map<std::string, Fact> globals;               // module-level names
  std::unordered_map<std::string, std::unordered_map<std::string, Fact>> classAttrs;  // "self.x"
  const ProjectKnowledge* knowledge = nullptr;                 // config: project helpers
  // The file names CUDA (`cuda`, an accelerator): only then is a tensor of unknown device
  // worth a (low-confidence) guess. A file that never touches CUDA is CPU code.
  bool touchesCuda = false;
  bool namesCudaItself = false;  // this file's own text names CUDA
  bool modelParallel = false;    // ... or Megatron's model-parallel state (GPU-only: NCCL groups)
  bool namesLightning = false;   // this file's own text names lightning (Lowerer::lightningLog)
  ConfigAttrs config;            // attributes a class sets in `__init__` only
  // Fields a class of this file annotates as tensors (`logprobs: torch.Tensor = None` in a
  // dataclass): a parameter annotated with the class has them (`out: InferOutput` -> `out.logprobs`).
  std::unordered_map<std::string, std::vector<std::string>> tensorFields;
  // Classes of this file that derive from a tensor type (`torch.Tensor`, `nn.Parameter`).
  std::unordered_set<std::string> tensorClasses;
  // Lines of logging calls and metrics stores (model::Module::loggingOnly): a value's name is
  // no evidence there (`pbar.set_postfix(loss=loss.item())` logs whatever it is given).
  const std::vector<std::pair<uint32_t, uint32_t>>* logging = nullptr;
};

// Records in mc.tensorFields the class-body fields of `classDef` annotated as tensors.
void collectTensorFields(TSNode classDef, ModuleContext& mc);

class Lowerer {
 public:
  Lowerer(ModuleContext& mc, model::Function& fn, std::string className);
  void lowerParameters(TSNode params);
  // A nested function (closure, hook) sees what its enclosing function's names held.
  void inherit(const std::unordered_map<std::string, Fact>& outer);
  // Closures the enclosing function defines (short name -> "outer.inner"): a nested function
  // calls its siblings by their short names (`def send_all(): for o in outs: send(o)`).
  void inheritClosures(const std::unordered_map<std::string, std::string>& outer) { outerClosures_ = outer; }
  // The names the enclosing functions bind (parameters, locals): what a closure calls by one of
  // them (`block(x)`, `loss_fn(out, y)`) is a module instance it captured, as in the enclosing function.
  void inheritNames(const std::unordered_set<std::string>& outer) { captured_ = outer; }
  std::unordered_set<std::string> namesForClosures() const;
  // What a function nested in this one can call by short name: this function's closures and
  // the ones it sees itself.
  std::unordered_map<std::string, std::string> closures() const;
  // In `forward` of an nn.Module: tensor parameters are the module's inputs, on its device;
  // so are parameters the body uses as tensors (`x.item()`, `cache["end"].item()`).
  void moduleInputs(TSNode at);
  // In an autograd.Function's forward/backward: the parameters after `ctx` are what `apply()`
  // was given or the incoming gradients, tensors of a device the body does not name (low; a use
  // on a side stream then says they are on the GPU).
  void autogradInputs(TSNode at);
  void hookInputs(TSNode at);  // PyInfer.cpp
  Value pointedTo(const Value& v) const;
  // The tensors a value hands a callee: what an address points into (pointedTo), every tensor
  // whose address a table holds (`dst_arr[i] = dst.data_ptr()`, `ptrs.append(t.data_ptr())`:
  // a batched raw copy is handed the table), else the value itself.
  std::vector<Value> handedTensors(const Value& v) const;
  // Positional parameter `index` is given a CUDA tensor by per-step code of another module
  // (python/PythonFrontend.h CallerInputs): an annotated tensor there is on the GPU (medium).
  void callerInput(size_t index, const std::string& why, TSNode at);
  // Parameters the body proves to be host tensors (python/PyHostProof.h) are host tensors.
  void hostByUse(TSNode body);
  void lowerBlock(TSNode block);
  // self.* facts learned in this function (seeds the class's other methods).
  std::unordered_map<std::string, Fact> selfFacts() const;
  const std::unordered_map<std::string, Fact>& env() const { return env_; }
  // Some `return` hands out a side stream: one it made or one kept in a cache it fills with
  // new streams (`_streams[dev] = Stream(dev)`; `return _streams[dev]`).
  bool returnsSideStream() const { return returnsSideStream_; }

 private:
  // statements (PyLowering.cpp)
  void lowerStatement(TSNode s);
  void lowerAssignment(TSNode a);
  void bind(TSNode target, const Value& v);
  // Records (or forgets) that name `target` now holds state read from a `self.` attribute.
  void noteStateOrigin(TSNode target, TSNode from);
  void noteAttributeView(TSNode target, TSNode from);
  void dropAttributeViews(TSNode at, const std::string& attribute);
  void noteStash(TSNode target, TSNode from);
  void noteArgumentPart(TSNode target, TSNode from);
  void nameProducers(TSNode target, const std::string& path, const Value& v);
  void alias(const std::string& name, const std::string& from);
  void handOut(TSNode s);  // a return or a yield
  void lowerIf(TSNode s);
  void lowerLoop(TSNode s);
  // What one iteration of `for <left> in <right>` binds: the parts of a zip/enumerate, or the
  // whole iterable (its elements are CUDA tensors when it is one).
  struct Iteration {
    bool zipped = false;
    std::vector<Value> parts;
    std::vector<TSNode> partNodes;  // the expression each part is taken from (null: none)
    Value iterable;
    bool losses = false;  // `for k, v in loss_dict.items()`: the elements are losses
    std::shared_ptr<Iteration> zippedElement;  // `enumerate(zip(a, b))`: the parts of its element
  };
  Iteration iterationOf(TSNode right);
  bool describesSibling(TSNode target, TSNode part) const;
  // Binds `name` (a parameter or a field of one) as its tensor annotation says; `subject` opens the reason.
  void annotatedTensor(const std::string& name, const std::string& subject, TSNode at);
  bool bindParts(TSNode left, const Iteration& it);
  // A comprehension's target: the parts of a zip/enumerate, else an element of the iterable.
  void bindIteration(TSNode left, const Iteration& it);
  void lowerWith(TSNode s);
  void lowerTry(TSNode s);
  int pushScope(model::ScopeKind kind, TSNode at, model::StreamRef stream = {});
  void popScope(int saved) { scope_ = saved; }
  bool looksLikeGuard(TSNode cond) const;
  bool spacesOut(TSNode cond) const;
  // The condition tests only this function's parameters (model::Scope::onArguments).
  bool testsOnlyArguments(TSNode cond) const;
  // Every scope enclosing the current one is a branch on the arguments (or the body itself).
  bool onlyArgumentBranches() const;
  bool leavesUnlessGuard(TSNode s) const;
  // `path` reads an input of this nn.Module.forward that the body never rebinds (`x`,
  // `cache["end"]`, `batch.ids`): whatever of it is a tensor came in on the module's device.
  bool forwardInput(const std::string& path) const;
  // `v` calls a tensor method (or reads itself on the host): a tensor of unknown device, or of
  // the module's device when it is read from an input of forward (forwardInput).
  void usedAsTensor(Value& v, TSNode at, const std::string& why);
  bool hostAttribute(const std::string& path) const;
  void queuedInRegion(Value& v, TSNode at, std::string_view method);
  void queuedInRegion(Value& v, TSNode at, const std::function<std::string(const model::StreamRef&)>& why);
  // `t.record_stream(s)`: only a CUDA tensor has an allocator block to mark, so `v` is one, and
  // the events of this function that produced it were GPU work, whatever their guess said.
  void provenCuda(const Value& v, TSNode at, std::string_view method);
  void condition(TSNode cond);

  // expressions (PyExpr.cpp)
  struct Arg {
    TSNode node;
    Value value;
  };
  struct CallArgs {
    TSNode call;
    std::vector<Arg> pos;
    std::vector<std::pair<std::string_view, Arg>> kw;
    bool splat = false;  // `f(*xs)` / `f(**kw)`: positions past it are unknown
    const Arg* keyword(std::string_view name) const;
    const Arg* at(size_t i, std::string_view kwName = {}) const;  // positional i or keyword
  };
  Value eval(TSNode e);
  Value evalCall(TSNode call);
  bool firstArgIsStream(TSNode argList) const;
  Value evalAttribute(TSNode e);
  Value evalSubscript(TSNode e);
  Value evalOperator(TSNode e);
  Value callApi(Api api, const Value& callee, CallArgs& a);
  Value callMethod(const Value& in, std::string_view method, CallArgs& a);
  void indexOnSameDevice(const Value& recv, std::string_view method, CallArgs& a);
  Value callTensorMethod(const Value& in, std::string_view method, CallArgs& a);
  Value callHostTensorMethod(const Value& recv, std::string_view method, CallArgs& a);
  Value copyToDevice(const Value& src, CallArgs& a, const char* api);
  void readValue(TSNode at, const Value& v, model::SyncKind why, const char* api);
  Kind deviceKind(const Arg* device) const;  // CudaDevice / HostDevice / Unknown
  bool truthy(const Arg* a) const;           // literal True
  std::string pathOf(TSNode e) const;
  std::string dotted(TSNode e) const;  // "a.b.c" for attribute chains of identifiers, else ""
  // What an expression takes its value from without new storage, in the three forms the model
  // keeps, each "" when none: the `self.` attribute ("self.store" for `self.store.get(i).data`,
  // `self.store[i]`, or a local bound from one: model::Function::stateOf), the parameter
  // ("params" for `p.grad.to_local()` after `for p in params:`, `batch["x"]`: argOf), and the
  // local of this function (`xs` for `xs[i]`, an element of `for x in xs`: partOf).
  struct Origins {
    std::string state, argument, local;
  };
  Origins originsOf(TSNode e) const;
  TSNode originOf(TSNode e) const;  // the `self.attr` or identifier the walk ends at
  // `x = helper(...)`: the call's event produced the locals the assignment binds.
  void producedByCall(TSNode target, TSNode from, size_t before);
  Fact lookup(const std::string& path) const;
  // What a dotted name names in torch or another library (`torch.cuda.Stream`): by the module's
  // imports, else through a local bound to a module or function of one (`dev = torch.cuda`,
  // then `dev.Stream()`); "" when neither says.
  std::string canonicalOf(std::string_view dotted) const;

  // CUDA values and their reasons (PyFacts.cpp).
  Value cudaNew(TSNode at, std::string why, model::Confidence c = model::Confidence::High);
  static Value cudaFrom(const Fact& origin);
  static const Fact* strongestCuda(const std::vector<Value>& vs);
  static void stamp(model::Event& e, const Fact& f);
  // A value placed on device argument `d`: as sure as a device variable, certain for a literal.
  static model::Confidence deviceConfidence(const Arg* d);

  // Inference from use (PyInfer.cpp).
  void asTensor(Value& v, TSNode at, const std::string& why);
  void useOnStream(Value& v, TSNode at);
  void useOnStream(std::vector<Value>& vs, TSNode at);
  void copiedAsync(Value& v, TSNode at);
  void indexedOnGpu(Value& base, const Value& idx, TSNode at);
  void combinedWithGpu(Value& recv, std::string_view method, const CallArgs& a);
  void lightningLog(const Value& recv, CallArgs& a);
  bool resultMovedToDevice(TSNode call) const;  // PyCalls.cpp
  void stampProducers(const std::string& path, const Fact& f);
  void promote(Value& v, TSNode at, const std::string& reason);
  Value onGpu(const Value& recv, CallArgs& a, const char* api);
  Value deviceResult(const CallArgs& a, std::string_view callee);
  Value moduleCall(const Value& callee, std::string_view calleeText, const CallArgs& a);
  Value moduleOutput(const Value& callee, std::string_view calleeText, const CallArgs& a);
  void readWeights(const Value& callee, const CallArgs& a, size_t before);
  Value toDevice(Value recv, std::string_view method, CallArgs& a);
  bool loopBound(const std::string& path) const;
  void deviceByName(Value& v, TSNode at) const;
  void callWork(TSNode call, const std::vector<Arg>& args, const std::string& callee);
  // A Call event to `callee` (a function of this or another module of the project).
  void emitCall(TSNode call, const std::string& callee, const CallArgs& a);
  // callWork + emitCall for the project's own function or another library's. Handed a side
  // stream as an argument (`gather(x, bufs, stream=self.comm)`), the callee runs its GPU work
  // on that stream: the call is a region of its own on it (Scope::handedStream).
  void helperCall(const std::string& callee, const CallArgs& a);
  void withHandedStream(const CallArgs& a, const std::function<void()>& lower);  // PyInfer.cpp

  model::Event& emit(model::EventKind k, TSNode at, std::string api = {});
  model::Event& emitWork(TSNode at, const std::vector<Value>& args, std::string api);
  void objectCallWork(const Value& recv, std::string_view method, const CallArgs& a);
  std::string currentFunctionClassMethod(std::string_view name) const;

  ModuleContext& mc_;
  model::Function& fn_;
  std::string className_;
  int scope_ = 0;
  int depth_ = 0;  // expression nesting (eval recursion)
  static constexpr int kMaxDepth = 400;
  std::unordered_map<std::string, Fact> env_;
  bool returnsSideStream_ = false;
  std::unordered_set<std::string> loopBound_;  // names bound from a `for` target (loader batches)
  std::unordered_set<std::string> lossElements_;  // names bound by iterating a container of losses
  void noteLossElements(TSNode left, const Iteration& it);
  // `loss.item()`, `kl_loss.detach()`: a tensor read or used under a loss's name (lossElements_).
  bool namedAsLoss(const std::string& path, TSNode at) const;
  std::unordered_set<std::string> bound_;      // local names assigned in this function
  // Containers of device addresses: container path -> the addresses stored in it (DevicePointer
  // values, one per pointee), for handedTensors.
  std::unordered_map<std::string, std::vector<Value>> pointerTables_;
  void storeAddress(const std::string& container, const Value& address);
  // Locals bound to a library's module or function (`dev = torch.cuda`): name -> what it names.
  std::unordered_map<std::string, std::string> moduleAliases_;
  std::unordered_set<std::string> argumentParts_;  // locals bound to a part of a parameter (noteArgumentPart)
  // Locals that view an attribute's tensor without new storage (`g = p.grad.to_local()`,
  // `w = mod.weight[:n]`): local -> "p.grad". Dropping the attribute (`p.grad = None`) drops
  // the storage they use (noteAttributeView, dropAttributeViews).
  std::map<std::string, std::string> attributeViews_;
  std::unordered_set<std::string> nested_;     // functions defined in this one (closures)
  // Of nested_, the definitions (the `function_definition` nodes) a direct call may inline.
  std::unordered_map<std::string, TSNode> nestedDefs_;
  int inlining_ = 0;  // depth of closure bodies being lowered at their call (inlineClosure)
  // `call_ag()`: a closure of this function called directly runs its body here, on the names it
  // shares with this function and the arguments of the call (PyLowering.cpp). False when it cannot.
  bool inlineClosure(const std::string& shortName, const CallArgs& a);
  std::unordered_map<std::string, std::string> outerClosures_;  // siblings and outer closures
  std::unordered_set<std::string> captured_;   // names bound by the enclosing functions (inheritNames)
  bool cpuFunction_ = false;                   // named like CPU code (`*_cpu`, `cpu_*`)
  bool moduleForward_ = false;                 // `forward` of an nn.Module (moduleInputs)
  std::unordered_set<std::string> nonTensorParams_;  // annotated `int`, `str`, `List[int]`...
  std::unordered_set<std::string> updatedInputs_;    // inputs written through (`cache["k"][i] = x`)
  int cpuBranch_ = 0;                          // inside `if device.type == "cpu":` arms
};

}  // namespace sl::py
