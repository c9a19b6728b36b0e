#include "python/PythonFrontend.h"

#include <cctype>
#include <memory>
#include <optional>

#include "python/PyFunctionRoles.h"
#include "python/PyGrammarGaps.h"
#include "python/PyLargeLiterals.h"
#include "python/PyHotClosures.h"
#include "python/PyKernelEffects.h"
#include "python/PyLowering.h"
#include "python/PyParseLimits.h"
#include "python/PyStreamPaths.h"
#include "python/PyPrefilter.h"
#include "python/TsAllocator.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace sl::py {
namespace {

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};

TSParser* threadParser() {
  thread_local std::unique_ptr<TSParser, ParserDeleter> parser = [] {
    installTreeSitterAllocator();
    std::unique_ptr<TSParser, ParserDeleter> p(ts_parser_new());
    ts_parser_set_language(p.get(), tree_sitter_python());
    return p;
  }();
  return parser.get();
}

// The first ERROR or MISSING node in document order, for the parse diagnostic. Iterative:
// a child that has an error contains one, so the descent never backtracks (and deep trees
// cannot exhaust the stack).
TSNode firstError(TSNode n) {
  while (!ts_node_is_null(n)) {
    if (ts_node_is_missing(n) || is(n, "ERROR")) return n;
    TSNode next{};
    for (uint32_t i = 0, count = ts_node_child_count(n); i < count; ++i) {
      TSNode c = ts_node_child(n, i);
      if (ts_node_has_error(c)) {
        next = c;
        break;
      }
    }
    if (ts_node_is_null(next)) return n;  // the error is this node itself
    n = next;
  }
  return n;
}

TSNode unwrapDecorated(TSNode n) {
  return is(n, "decorated_definition") ? field(n, "definition") : n;
}

// A kernel compiled for the GPU (`@cuda.jit`, `@numba.cuda.jit(device=True)`, `@triton.jit`):
// its body runs on the device, where indexing a tensor reads device memory directly — nothing
// in it is a host sync, a launch or a stream, so it is not lowered at all.
bool isDeviceKernel(TSNode s, std::string_view src) {
  if (!is(s, "decorated_definition")) return false;
  for (TSNode d : NamedChildren(s)) {
    if (!is(d, "decorator")) continue;
    std::string_view t = text(d, src);
    t = t.substr(0, t.find('('));
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    if (t.ends_with("cuda.jit") || t.ends_with("triton.jit")) return true;
  }
  return false;
}

class ModuleLowering {
 public:
  ModuleLowering(const SourceFile& file, model::Module& m, const ProjectKnowledge& k, bool projectUsesCuda,
                 const CallerInputs* callers)
      : file_(file), m_(m), callers_(callers) {
    mc_.src = file.text();
    mc_.knowledge = &k;
    mc_.namesCudaItself = namesCuda(mc_.src);
    mc_.modelParallel = !mc_.namesCudaItself && namesModelParallel(mc_.src);
    mc_.namesLightning = mc_.src.find("lightning") != std::string_view::npos;
    mc_.touchesCuda = projectUsesCuda || mc_.namesCudaItself || mc_.modelParallel;
    mc_.streamPaths = streamPaths(mc_.src);
  }

  void run(TSNode root) {
    collect(root);
    roles_ = findFunctionRoles(root, mc_.src, mc_.imports);
    m_.failureOnly = roles_.raises;
    m_.loggingOnly = roles_.logging;
    m_.checkOnly = roles_.checks;
    mc_.logging = &m_.loggingOnly;
    m_.handlerOnly = roles_.handlers;
    m_.exportOnly = roles_.exporting;
    model::Function& top = newFunction("<module>", root);
    Lowerer low(mc_, top, "");
    low.lowerBlock(root);
    for (const auto& [k, f] : low.env()) mc_.globals[k] = f;
    lowerDefinitions(root, "", "");
    markHotClosures(m_);
    // The models of every file stay until all are judged: vectors grown by doubling held a
    // third more than their elements (massif, Megatron-LM), memory the VM faults in page by page.
    for (auto& f : m_.functions) f.events.shrink_to_fit(), f.scopes.shrink_to_fit();
    m_.functions.shrink_to_fit();
  }

 private:
  // Function and method names first, so calls to functions defined later resolve.
  void collect(TSNode block) {
    for (TSNode s : NamedChildren(block)) {
      TSNode d = unwrapDecorated(s);
      if (is(d, "function_definition")) {
        mc_.functions.insert(std::string(text(field(d, "name"), mc_.src)));
      } else if (is(d, "class_definition")) {
        std::string cls(text(field(d, "name"), mc_.src));
        collectTensorFields(d, mc_);
        for (TSNode m : NamedChildren(field(d, "body"))) {
          TSNode md = unwrapDecorated(m);
          if (!is(md, "function_definition")) continue;
          std::string_view name = text(field(md, "name"), mc_.src);
          mc_.functions.insert(cls + "." + std::string(name));
          if (name == "__init__") mc_.config.addInit(cls, ts_node_start_byte(md), ts_node_end_byte(md));
        }
      } else if (is(s, "import_statement") || is(s, "import_from_statement")) {
        mc_.imports.add(s, mc_.src);
      }
    }
  }

  model::Function& newFunction(std::string name, TSNode at) {
    m_.functions.emplace_back();
    model::Function& f = m_.functions.back();
    f.name = std::move(name);
    f.loc = locOf(at);
    f.endLine = ts_node_end_point(at).row + 1;
    if (auto it = roles_.hot.find(f.name); it != roles_.hot.end()) f.hot = it->second;
    f.hotViaCaller = roles_.hotViaCaller.count(f.name) > 0;
    f.deliberate = deliberateRole(f.name);
    return f;
  }

  void lowerFunction(TSNode def, const std::string& name, const std::string& cls) {
    model::Function& f = newFunction(name, def);
    Lowerer low(mc_, f, cls);
    low.lowerParameters(field(def, "parameters"));
    low.hostByUse(field(def, "body"));
    if (outer_) low.inherit(*outer_);
    if (outerClosures_) low.inheritClosures(*outerClosures_);
    if (outerNames_) low.inheritNames(*outerNames_);
    // Inputs of a module's forward (FunctionRoles decided it is one) are on the module's device.
    if (f.hot.find("Module.forward") != std::string::npos) low.moduleInputs(def);
    if (f.hot.starts_with("autograd.Function.")) low.autogradInputs(def);
    low.hookInputs(def);
    if (callers_)
      if (auto it = callers_->find(name); it != callers_->end())
        for (const auto& c : it->second) low.callerInput(c.index, c.why, def);
    TSNode body = field(def, "body");
    low.lowerBlock(body);
    if (low.returnsSideStream()) mc_.streamReturners.insert(name);
    if (!cls.empty())
      for (auto& [k, fact] : low.selfFacts()) mc_.classAttrs[cls].emplace(k, fact);
    // Taken now: lowering a nested function adds to m_.functions, which moves this one's
    // model::Function (the Lowerer's fn_).
    auto saved = outer_;
    auto savedClosures = outerClosures_;
    auto savedNames = outerNames_;
    outer_ = &low.env();
    const auto closures = low.closures();
    outerClosures_ = &closures;
    const auto names = low.namesForClosures();
    outerNames_ = &names;
    lowerDefinitions(body, name + ".", "");  // nested functions and classes: closures
    outer_ = saved;
    outerClosures_ = savedClosures;
    outerNames_ = savedNames;
  }

  // A device kernel is no host code to lower: its model is what it does with the memory its
  // parameters point to, which launches (`kernel[grid](a, b, out)`) hand on to their arguments.
  void lowerKernel(TSNode def, const std::string& name) {
    model::Function& f = newFunction(name, def);
    f.scopes.emplace_back();  // the function scope; no events
    KernelEffects k = kernelEffects(def, mc_.src);
    f.params = std::move(k.params);
    f.deviceKernel = true;
    f.kernelLoads = k.loads;
    f.kernelStores = k.stores;
  }

  void lowerDefinitions(TSNode block, const std::string& prefix, const std::string& cls) {
    std::vector<TSNode> later;
    for (TSNode s : NamedChildren(block)) {
      TSNode d = unwrapDecorated(s);
      if (isDeviceKernel(s, mc_.src)) {
        if (cls.empty() && is(d, "function_definition")) lowerKernel(d, prefix + std::string(text(field(d, "name"), mc_.src)));
        continue;
      }
      if (is(d, "function_definition")) {
        std::string n(text(field(d, "name"), mc_.src));
        // __init__ first: the attributes it sets (streams, buffers) inform the other methods.
        if (!cls.empty() && n != "__init__") later.push_back(d);
        else lowerFunction(d, prefix + n, cls);
      } else if (is(d, "class_definition")) {
        std::string c(text(field(d, "name"), mc_.src));
        lowerDefinitions(field(d, "body"), c + ".", c);
      } else if (cls.empty() && (is(d, "if_statement") || is(d, "try_statement"))) {
        // Definitions under `if TYPE_CHECKING:` / `try:` at module level.
        for (TSNode c : NamedChildren(d))
          if (is(c, "block")) lowerDefinitions(c, prefix, cls);
      }
    }
    for (TSNode d : later) lowerFunction(d, prefix + std::string(text(field(d, "name"), mc_.src)), cls);
    if (!cls.empty()) settleStateGuesses(cls, prefix);
  }

  // Object state is one location for all methods of a class, whatever their order in the
  // file: a method lowered before the one that stores a CUDA tensor in `self.gpu[k]` guessed
  // low about what it read there. The class's facts, complete now, settle that guess.
  void settleStateGuesses(const std::string& cls, const std::string& prefix) {
    auto it = mc_.classAttrs.find(cls);
    if (it == mc_.classAttrs.end()) return;
    const auto& attrs = it->second;
    auto sure = [&](const std::string& p) -> const Fact* {
      if (!p.starts_with("self.")) return nullptr;
      auto a = attrs.find(p);
      return a != attrs.end() && a->second.kind == Kind::CudaTensor && a->second.conf != model::Confidence::Low
                 ? &a->second
                 : nullptr;
    };
    for (auto& f : m_.functions) {
      if (!f.name.starts_with(prefix)) continue;
      for (auto& e : f.events) {
        if (e.confidence != model::Confidence::Low) continue;
        const Fact* by = sure(e.value);
        for (size_t k = 0; !by && k < e.reads.size(); ++k) by = sure(e.reads[k]);
        for (size_t k = 0; !by && k < e.writes.size(); ++k) by = sure(e.writes[k]);
        if (by) e.confidence = by->conf, e.evidence = chainOf(by->why);
      }
    }
  }

  const SourceFile& file_;
  model::Module& m_;
  ModuleContext mc_;
  const std::unordered_map<std::string, Fact>* outer_ = nullptr;  // enclosing function's facts
  const std::unordered_set<std::string>* outerNames_ = nullptr;    // the names they bind (Lowerer::inheritNames)
  const std::unordered_map<std::string, std::string>* outerClosures_ = nullptr;  // its closures
  FunctionRoles roles_;  // hot functions (run every step), found before lowering
  const CallerInputs* callers_ = nullptr;  // parameters per-step callers pass CUDA tensors to
};

}  // namespace

bool namesCuda(std::string_view t) {
  return t.find("cuda") != std::string_view::npos || t.find("accelerator") != std::string_view::npos ||
         t.find("non_blocking") != std::string_view::npos;
}

// Megatron-core's tensor/context/pipeline-parallel state (`from megatron.core import
// parallel_state as mpu`, `tensor_parallel`): code that splits a model across GPUs over NCCL
// groups handles the model's tensors, which live on the GPU (verl dc8b5076: packing sequences
// for the model's forward with `mpu.get_context_parallel_world_size()`).
bool namesModelParallel(std::string_view t) {
  if (t.find("megatron") == std::string_view::npos) return false;
  return t.find("parallel_state") != std::string_view::npos || t.find("tensor_parallel") != std::string_view::npos ||
         t.find("import mpu") != std::string_view::npos;
}

model::Module lowerPython(const SourceFile& file, std::vector<Finding>& diagnostics,
                          const ProjectKnowledge& knowledge, bool prefilter, bool projectUsesCuda,
                          const CallerInputs* callers, const std::vector<std::string>* roots) {
  model::Module m;
  m.path = file.path();
  m.lang = model::Lang::Python;
  const std::string_view t = file.text();
  // Evidence needs torch (tensors, streams): a module that never names torch or cuda cannot
  // produce a finding, so it is not lowered (only parsed for its diagnostics). Configured
  // helpers (stream wrappers, sync/backward functions) are evidence too.
  const bool lowered =
      t.find("torch") != std::string::npos || t.find("cuda") != std::string::npos || !knowledge.empty();
  ParsePlan plan = prefilter ? planParse(t, knowledge, lowered, roots) : ParsePlan{};
  if (plan.mode == ParsePlan::Mode::Skip) return m;
  // Shapes the pinned tree-sitter crashes on are refused before it sees them (PyParseLimits.h).
  Loc where;
  if (std::string why = beyondParseLimits(t, where); !why.empty()) {
    diagnostics.push_back({"parse-error", Severity::Error, file.path(), where, "syntax error: " + why, {}, {}});
    return m;
  }
  // Large literals of constants are parsed as a stub of themselves (PyLargeLiterals.h): same
  // offsets, so nodes still index the file's own text.
  std::optional<std::string> blanked = prefilter ? blankLargeLiterals(t) : std::nullopt;
  const std::string_view parsed = blanked ? std::string_view(*blanked) : std::string_view(t);
  TSParser* parser = threadParser();
  auto parse = [&] {
    return std::unique_ptr<TSTree, TreeDeleter>(
        ts_parser_parse_string(parser, nullptr, parsed.data(), uint32_t(parsed.size())));
  };
  std::unique_ptr<TSTree, TreeDeleter> tree;
  if (plan.mode == ParsePlan::Mode::Ranges &&
      ts_parser_set_included_ranges(parser, plan.ranges.data(), uint32_t(plan.ranges.size()))) {
    tree = parse();
    ts_parser_set_included_ranges(parser, nullptr, 0);  // back to whole documents
    // An error in the kept parts: parse it all again, so the diagnostic and the recovery
    // are exactly those of a whole-file parse.
    if (tree && ts_node_has_error(ts_tree_root_node(tree.get()))) tree.reset();
  }
  if (!tree) tree = parse();
  // Valid Python the pinned grammar rejects (PyGrammarGaps.h): parse a repaired copy.
  if (tree && ts_node_has_error(ts_tree_root_node(tree.get())))
    if (TSTree* repaired = reparseGrammarGaps(parser, parsed, tree.get())) tree.reset(repaired);
  if (!tree) {
    diagnostics.push_back({"parse-error", Severity::Error, file.path(), {}, "could not parse file", {}, {}});
    return m;
  }
  TSNode root = ts_tree_root_node(tree.get());
  if (ts_node_has_error(root)) {
    TSNode e = firstError(root);
    Finding d{"parse-error", Severity::Error, file.path(), {}, "", {}, {}};
    if (!ts_node_is_null(e)) {
      d.loc = locOf(e);
      std::string near(text(e, file.text()).substr(0, 40));
      if (auto nl = near.find('\n'); nl != std::string::npos) near.resize(nl);
      d.message = ts_node_is_missing(e)
                      ? "syntax error: missing '" + std::string(ts_node_type(e)) + "'"
                      : "syntax error near '" + near + "'";
    } else {
      d.message = "syntax error";
    }
    d.message += "; analysed the parts that parsed";
    diagnostics.push_back(std::move(d));
  }
  if (lowered) ModuleLowering(file, m, knowledge, projectUsesCuda, callers).run(root);
  return m;
}

}  // namespace sl::py
