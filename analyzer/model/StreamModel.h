// StreamModel: the language-neutral description of what code does to CUDA streams.
//
// Frontends (Python via tree-sitter, C++ via Clang) lower source into it; runtime logs use the
// same event vocabulary; rules judge only this model, so one rule covers every language.
//
// Shape: a Module holds Functions; a Function is a tree of Scopes (function body, stream
// regions, loops, branches, guarded blocks) and a flat list of Events in source order, each
// pointing at its innermost Scope. "Dominates" is approximated structurally: an earlier event
// whose scope encloses a later event's scope runs before it on every path (loops' back edges
// and early exits ignored).
//
// Values are named by their access path as written ("x", "self.buf", "bufs[i]" -> "bufs[]"),
// and only values the frontend has evidence for (a CUDA tensor produced by a torch op, an
// allocation, an annotated parameter...) appear in reads/writes: no evidence, no finding.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/SourceFile.h"

namespace sl::model {

enum class Lang : uint8_t { Python, Cpp };

enum class StreamKind : uint8_t {
  Current,    // the thread's current stream (torch current_stream(), getCurrentCUDAStream())
  Default,    // the per-device default stream as torch names it (default_stream())
  Legacy,     // C++: 0 / nullptr / cudaStreamLegacy, the implicitly synchronizing stream
  PerThread,  // cudaStreamPerThread
  Side,       // a stream the code created or holds: `name` identifies it
  Unknown,    // a stream we cannot name (a parameter, a call result)
};

struct StreamRef {
  StreamKind kind = StreamKind::Current;
  std::string name;  // for Side/Unknown: the expression as written, e.g. "self.comm_stream"

  static StreamRef current() { return {}; }
  static StreamRef side(std::string n) { return {StreamKind::Side, std::move(n)}; }
  // A region on this stream moves work off the thread's current stream.
  bool isSide() const { return kind == StreamKind::Side || kind == StreamKind::Unknown; }
  std::string describe() const;  // "the current stream", "stream 'self.comm_stream'"
  friend bool operator==(const StreamRef&, const StreamRef&) = default;
};

enum class ScopeKind : uint8_t {
  Function,      // root of every function
  StreamRegion,  // `with torch.cuda.stream(s)`, CUDAStreamGuard: `stream` holds the target
  Loop,          // for / while bodies
  Branch,        // one arm of if/else, try/except, match
  Guarded,       // a branch under a logging/interval guard (`if step % N == 0`, `if verbose`)
};

struct Scope {
  ScopeKind kind = ScopeKind::Function;
  int parent = -1;  // index into Function::scopes; -1 for the root
  Loc loc;          // where the scope starts (the `with`, `for`, `if` keyword)
  StreamRef stream; // StreamRegion only
  // StreamRegion only: the region's own header creates its stream (`with stream(Stream()):`,
  // also under a conditional): nothing can have made that stream wait yet.
  bool freshStream = false;
  // StreamRegion only: the region is one call that is handed the stream as an argument
  // (`gather(x, bufs, stream=self.comm)`): the callee runs its GPU work there. A callee that
  // orders the stream itself (it waits or records: FunctionSummary::ordersStreams) owns the
  // protocol, and the rules leave such a region alone.
  bool handedStream = false;
  // Branch only: taken when a value is a tensor (`if isinstance(out, torch.Tensor):`,
  // `torch.is_tensor(x)`). The path that skips it holds no tensor to wait for, so a sync
  // there covers the GPU work whose result it tests.
  bool onlyIfTensor = false;
  // Branch only: its condition, and those of the arms before it, test nothing but the
  // function's own arguments (`if ptr is not None and ptr.dim() == 1:`, `if x.is_cuda:`), no
  // object or module state. Every call given the same kind of arguments takes it, so for a
  // helper run every step by its caller it runs every step too (unlike a lazy
  // `if self.cache is None:` set-up, taken once).
  bool onArguments = false;
  // Guarded only: the guard spaces its arm out in time (`if step % N == 0:`, `log_interval`),
  // rather than turning it on or off for a whole run (`if verbose:`, `if self.output_log:`).
  bool interval = false;
  // Branch/Guarded only: the first arm of the `if` this arm belongs to (its own index for the
  // first arm; -1 when not known). Two arms of one `if` never both run in one pass.
  int firstArm = -1;
};

enum class EventKind : uint8_t {
  Work,          // GPU work issued on `stream`; `reads`/`writes` name tensor values
  Alloc,         // a device allocation producing `value` (factory op, cudaMalloc, .cuda())
  HostSync,      // the host blocks until GPU work finishes; `sync` says on what
  Wait,          // `stream` waits on stream `other`, or on event `value` when set
  EventRecord,   // event `value` recorded on `stream`
  RecordStream,  // value `value` marked as used on stream `other` (record_stream)
  Free,          // `value` freed, deleted, reassigned, or its owner's scope ended
  Backward,      // autograd backward seeded from `reads`, called on `stream`
  Clock,         // a host clock read (time.time(), std::chrono::now()); `value` = result
  Copy,          // copy `reads[0]` -> `value` in direction `dir`
  StreamCreate,  // a stream created; `value` = where it is stored
  EventCreate,   // an event created; `value` = where it is stored
  HostRead,      // the host reads tensor `value`'s contents (numpy(), print, python indexing)
  HostWrite,     // the host writes host tensor `value`'s contents (copy_, in-place op, item assignment)
  Call,          // call to `callee`, a function of the same module (see ModuleSummary)
};

// Wait::value of a device-wide wait (entering a CUDA graph capture synchronizes the device):
// every stream's earlier work is done before what follows.
inline constexpr const char* kDeviceWideWait = "<device-synchronize>";

enum class SyncKind : uint8_t {
  None,
  Device,        // torch.cuda.synchronize, cudaDeviceSynchronize
  Stream,        // stream.synchronize, cudaStreamSynchronize
  Event,         // event.synchronize, cudaEventSynchronize
  ValueRead,     // .item(), .tolist(), .cpu(), bool(t): waits for the producer's stream
  BlockingCopy,  // cudaMemcpy, .to(cpu) without non_blocking
  Allocation,    // cudaMalloc / cudaFree: implicitly synchronize the device
};

enum class CopyDir : uint8_t { Unknown, HostToDevice, DeviceToHost, DeviceToDevice };
enum class Tri : uint8_t { Unknown, No, Yes };

// How sure the frontend is that the values an event touches live on the GPU.
//   High:   direct evidence (a CUDA factory, `.cuda()`, a torch op on such a value)
//   Medium: inferred from use (used inside a side-stream region, `record_stream`, the output of
//           a module moved to the GPU, a value the project's own callers pass in as CUDA)
//   Low:    a tensor of unknown device in a module that touches CUDA (an annotation says
//           nothing about the device): reported only with --min-confidence low
enum class Confidence : uint8_t { Low, Medium, High };
const char* confidenceName(Confidence c);  // "low", "medium", "high"
int parseConfidence(std::string_view name);  // the inverse, as an int; -1 when unknown

// One link of the chain that made a value a CUDA tensor ("created by torch.randn(device=...)").
struct Evidence {
  Loc loc;
  std::string text;
};

struct Event {
  EventKind kind = EventKind::Work;
  Loc loc;
  int scope = 0;                   // innermost enclosing scope
  StreamRef stream;                // where the event is issued (region's stream unless explicit)
  bool streamExplicit = false;     // stream named at the call (launch arg, stream=), not inherited
  // HostSync: a wait an API makes on its own, not a read of a value the caller asked for
  // (Lightning uploading a logged Python number). A switch that turns the call on for the
  // whole run (`if verbose:`) does not make it occasional, and it is no deliberate read.
  bool unrequested = false;
  StreamRef other;                 // Wait target / RecordStream target
  std::string value;               // primary value (see EventKind)
  std::vector<std::string> reads;  // tensor values read
  std::vector<std::string> writes; // tensor values written
  std::string api;                 // canonical API name: "torch.cuda.synchronize", "cudaMemcpy"
  std::string callee;              // Call: function name in this module
  SyncKind sync = SyncKind::None;
  CopyDir dir = CopyDir::Unknown;
  bool nonBlocking = false;        // Copy: non_blocking=True / cudaMemcpyAsync
  Tri srcPinned = Tri::Unknown;    // Copy: host side is page-locked
  bool srcTemporary = false;       // Copy: source is an unnamed temporary (dies at statement end);
                                   // Backward: its root was computed in the same statement
  bool srcStreamTracked = false;   // Copy: the host buffer's allocator records the copy's stream
                                   // (torch's caching host allocator), so freeing it early is safe
  bool pooled = false;             // StreamCreate: handed out from a pool, no driver call
  // Work: assumed, not seen: CUDA tensors handed to a method of an object we know nothing of
  // (`self.comm.all_reduce(t)`). Ordering rules count it as a use of what was handed; rules
  // about time spent (a timer around GPU work) do not, as the call may queue nothing.
  bool assumed = false;
  Confidence confidence = Confidence::High;  // that the values involved are CUDA tensors
  std::vector<Evidence> evidence;  // why (origin first); empty when the event names its device
  int block = -1;                  // basic block in Function::flow (-1: no control-flow graph)
  uint32_t cudaArgs = 0;           // Call: bit i set when positional argument i is a CUDA tensor
                                   // (medium confidence or more); the first 32 only
  // Call (also a kernel launch `k[grid](...)`): each positional argument's value path as the
  // caller names it ("" for a literal or an expression), up to a `*splat`. What the callee does
  // with its parameters (FunctionSummary::readsParams) is what the call does with these.
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> kwargs;  // keyword -> value path, likewise
};

// A function's control-flow graph, when the frontend builds one (C++: clang::CFG). Early
// returns, exclusive branches and loops are then judged on real paths instead of on the scope
// tree. Paths that throw or call a noreturn function end without reaching `exit`.
// Filled by the frontend (succ, entry, exit, Event::block), then computeFlow() derives the rest.
struct Flow {
  std::vector<std::vector<int>> succ;  // per block: successor blocks
  int entry = -1, exit = -1;
  std::vector<std::vector<bool>> dom;    // dom[b][a]: every path from entry to b passes a
  std::vector<std::vector<bool>> reach;  // reach[a][b]: b can run after a (a path of >= 1 edge)
  bool empty() const { return succ.empty(); }
};

struct Function {
  std::string name;                // "f", "Class.method", "<module>"
  Loc loc;
  std::vector<std::string> params;
  std::vector<Scope> scopes;       // scopes[0] is the Function scope
  std::vector<Event> events;       // source order
  std::vector<std::string> returned;  // values returned (escape the function)
  // Python: where each value of `returned` is returned (the `return` statement), same order;
  // shorter than `returned` when the frontend does not say (C++).
  std::vector<Loc> returnedAt;
  std::vector<std::string> escaped;   // locals stored into attributes/containers or passed on
  uint32_t endLine = 0;            // last line of the definition; 0 when the frontend does not say
  // Runs once per training step although no loop is in sight (nn.Module.forward, an
  // autograd.Function's forward/backward, an optimizer's step, a registered hook): why, e.g.
  // "nn.Module.forward". Empty: not known to be hot.
  std::string hot;
  // Hot only because per-step code calls it (a helper of `forward`): what it does on some
  // paths only (lazy initialisation, a cache refilled after an early return) is not per step.
  bool hotViaCaller = false;
  // A closure its enclosing code calls on every iteration of a loop (`for out in outs:
  // send(out)` with `def send(o): ...` defined alongside): where, e.g. "the loop at line 976 of
  // `send_all()`". Its body runs as often as the loop's own, so its implicit syncs stall like
  // the loop body's (SL302); explicit ones stay deliberate, as in a loop. Empty: not known.
  std::string perIteration;
  Loc perIterationLoop;  // that loop's `for`/`while`
  // Python: line of the first `return` inside a branch or loop (0: none). Code after it runs
  // on some calls only (`if cached: return`), which a function without a flow graph cannot say.
  // A return under branches on the arguments only (Scope::onArguments: `if x.numel() == 0:
  // return x`) does not count: what follows runs on every call given other arguments.
  uint32_t firstInnerReturn = 0;
  // Written for people, not for speed (`__repr__`, `extra_repr`...): why, e.g. "`__repr__`".
  // Performance notes inside it are left out unless the project asks for them.
  std::string deliberate;
  // Python: locals taken from an object's state (`p = self.store.get(i)`, `g = self.groups[i]`,
  // `for p in self.params:`): local name -> the `self.` attribute they come from (the last
  // binding). Lets a rule match what one method of a class writes with what another reads
  // through the same attribute.
  std::map<std::string, std::string> stateOf;
  // Python: locals taken from an argument without new storage (`for p in params:`,
  // `g = p.grad.to_local()`, `x = batch["x"]`): local name -> that parameter (the last
  // binding). What they hold was made by the caller, like the argument itself.
  std::map<std::string, std::string> argOf;
  // Python: locals taken from another local without new storage (`x = xs[i]`, `for x in xs:`,
  // `for a, b in zip(xs, ys)`): local -> that local. Made where and when it was made, on the
  // stream its producer ran on (rules/RuleHelpers producerOf follows it).
  std::map<std::string, std::string> partOf;
  // Python: locals bound to the stream a function of this module returns (`s = side_stream()`,
  // a helper that creates the stream once and caches it): local name -> that function.
  std::map<std::string, std::string> streamFrom;
  // Python: calls handed more than one side stream (`producer(a, bufs, intra_stream,
  // inter_stream)`): where the call is, and each stream after the first (the first makes the
  // call a region of its own, Scope::handedStream). The callee queues work on all of them.
  std::vector<std::pair<Loc, StreamRef>> alsoHanded;
  // Python: locals stored into a container of object state (`self.stash[k] = (t, ev)`): the
  // container keeps them alive until an entry is deleted (a Free of "self.stash[]", in any
  // method). `before` is the number of events lowered before the store.
  struct Stash {
    std::string value, root;  // "t", "self.stash"
    Loc loc;
    size_t before = 0;
    int scope = 0;  // innermost scope of the store
  };
  std::vector<Stash> stashes;
  // C/C++: events this function consumes, as written (`ctx->done`, `ev_pool[][].h2d`): handed to
  // a call other than one that creates, records or destroys them (a wait, a query, a timing, a
  // helper), used as a member call's object, returned, or copied into another variable. An
  // event recorded in a file where nothing consumes it orders nothing (rules/EventUse.h).
  // Null checks, `&ev` handed to a create call and assignments to the event are no use.
  std::vector<std::string> eventUses;
  // A device kernel (`@triton.jit`): parameters (bit i: params[i], the first 64) whose memory
  // it loads from / stores to (tl.load, tl.store, atomics, through pointer arithmetic, block
  // pointers and tensor descriptors). A launch reads and writes the tensors handed there.
  bool deviceKernel = false;
  uint64_t kernelLoads = 0, kernelStores = 0;
  Flow flow;                          // empty unless the frontend built a CFG
};

struct Module {
  std::string path;
  Lang lang = Lang::Python;
  std::vector<Function> functions;  // functions[0] is module-level code ("<module>")
  // Lines that run only when something already failed (`raise ValueError(f"{t.item()}")`):
  // [first, last] line spans; performance notes there are left out like deliberate code.
  std::vector<std::pair<uint32_t, uint32_t>> failureOnly;
  // Python checks: `assert` statements and the conditions of `if`s that only raise ([first, last]
  // lines). A read there validates a value; performance notes are left out like deliberate code.
  std::vector<std::pair<uint32_t, uint32_t>> checkOnly;
  // Python `except` handlers: [first, last] lines of each. They run after something failed (an
  // out-of-memory retry, an overflow skip), not on the common path of a step.
  std::vector<std::pair<uint32_t, uint32_t>> handlerOnly;
  // Python branches taken only while a model is exported or traced (`if self.onnx_trace:`,
  // `if torch.onnx.is_in_onnx_export():`): [first, last] lines of each; they run once.
  std::vector<std::pair<uint32_t, uint32_t>> exportOnly;
  // Lines whose values only go to output (`print(f"{loss.item()}")`, `logger.info(...)`,
  // `writer.add_scalar(...)`, `metrics["loss"] = ...`): [first, last] line spans; performance
  // notes there are left out like deliberate code (the read is the price of showing the value).
  std::vector<std::pair<uint32_t, uint32_t>> loggingOnly;
  const Function* find(const std::string& name) const;
};

// ---- Queries rules share (StreamModel.cpp) --------------------------------------------------

// True when scope `inner` is `outer` or nested in it.
bool scopeWithin(const Function& f, int inner, int outer);
// Innermost enclosing scope of `kind`, or -1.
int enclosingScope(const Function& f, int scope, ScopeKind kind);
// Innermost enclosing side-stream region, or -1.
int enclosingSideRegion(const Function& f, int scope);
// The stream that work issued in `scope` runs on when no stream is named at the call.
StreamRef effectiveStream(const Function& f, int scope);
// Event `a` (earlier) runs before event `b` on every path through the function.
bool dominates(const Function& f, size_t a, size_t b);
// Event `b` can run after event `a` on some path (false when they sit on exclusive branches,
// or `a` is followed by a return before `b`). Without a CFG: source order.
bool mayFollow(const Function& f, size_t a, size_t b);
// Scopes `a` and `b` sit in different arms of one `if` (Scope::firstArm): no pass runs both.
bool exclusiveScopes(const Function& f, int a, int b);
// Event `e` runs on every path through the function that returns normally (not one skipped by
// an early return or a branch). Without a CFG: it sits at the function's top level.
bool alwaysRuns(const Function& f, size_t e);
// Derives Flow::dom and Flow::reach from Flow::succ (frontends call it once per function).
void computeFlow(Flow& flow);
// Whether an event reads (or writes) `value`.
bool mentions(const Event& e, const std::string& value);

// Per-function facts that hold transitively through calls within one module: what a call to
// that function does. Lets a rule flag `helper()` inside a region when helper() synchronizes.
// For functions with a CFG, sync/alloc/backward are what the function does on every path that
// returns (a sync after `if (x) return;` is not), reached through calls that also always run.
struct FunctionSummary {
  const Event* sync = nullptr;      // first host sync reached (in this or a callee)
  const Event* alloc = nullptr;     // first allocation reached
  const Event* backward = nullptr;  // first backward reached
  const Function* backwardOwner = nullptr;  // function holding `backward`
  bool gpuWork = false;             // issues GPU work
  bool deviceWork = false;          // runs kernels on device data (not only allocations/uploads)
  // Makes a stream wait or records a tensor's use on one (wait_stream, wait_event,
  // record_stream, cudaStreamWaitEvent), on some path: a helper handed a stream that orders it
  // itself owns that stream's protocol (Scope::handedStream).
  bool ordersStreams = false;
  const Function* syncOwner = nullptr;  // function holding `sync`
  const std::string* syncPath = nullptr;  // file holding `sync` (another module's, across files)
  // Parameters (bit i: params[i], the first 64) whose tensors its GPU work reads / writes, in
  // this function or a callee it hands them to (a kernel it launches, a helper), transitively.
  // The callee's work proves what it is handed is device memory, even where the caller cannot.
  uint64_t readsParams = 0, writesParams = 0;
  const std::vector<std::string>* params = nullptr;  // the function's parameters (`self` first for a method)
};

class ModuleSummary {
 public:
  // `m` must outlive the summary (summaries point at its events).
  explicit ModuleSummary(const Module& m);
  // Summary for `callee`: a function of this module, else what the external lookup (the
  // project's other modules, driver/ProjectIndex.h) knows; nullptr when neither does.
  const FunctionSummary* of(const std::string& callee) const;

  // Callees in other modules ("pkg.utils.helper", "..utils.helper"): resolved by `lookup`.
  using ExternalLookup = std::function<const FunctionSummary*(const std::string& callee)>;
  void setExternal(ExternalLookup lookup);
  // Propagates callee facts through Call events to a fixpoint; true if any summary grew (after
  // setExternal, facts from other modules flow in: call again until no module grows).
  bool propagate();

 private:
  const Module* module_;
  std::map<std::string, FunctionSummary> byName_;
  ExternalLookup external_;
};

// One-call regions (Scope::handedStream) become plain calls when their callee orders the handed
// stream itself (FunctionSummary::ordersStreams, in this module or through the project index:
// its own waits decide what its work there may read), or when the function runs no protocol on
// that stream (no wait on or for it, no event recorded on it, no region of its own on it: a
// stream handed over to be kept, `make_ctx(a, b, stream=s)`). Call once the summaries are final (after ProjectIndex),
// before the rules judge.
void settleHandedStreams(Module& m, const ModuleSummary& s);

// Calls of functions whose summary reads or writes their parameters (FunctionSummary::
// readsParams) read or write the arguments handed there: the call event, and the GPU work the
// frontend lowered at the same call in a side-stream region, list them. Call once the
// summaries are final (after ProjectIndex), before the rules judge.
void applyParameterEffects(Module& m, const ModuleSummary& s);

const char* eventKindName(EventKind k);

}  // namespace sl::model
