// The boundary between `streamlint check` and the Clang 19 frontend.
//
// The frontend is a shared library (build/lib/libstreamlint_cxx.so) that `check` loads with
// dlopen only when it has C/C++/CUDA inputs, so the streamlint binary itself needs neither LLVM
// nor Clang at run time (the runtime side must work on GPU machines without them).
// Both sides are built by the same compiler from this tree, so C++ types cross the boundary.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/Finding.h"
#include "model/StreamModel.h"

namespace sl::cxx {

struct Request {
  std::vector<std::string> files;       // sources found by walking PATHs (.c .cc .cpp .cxx .cu ...)
  std::string compileDbDir;             // -p DIR: use DIR/compile_commands.json ("" = none)
  std::vector<std::string> extraArgs;   // compiler flags after `--`
  std::string cudaPath;                 // --cuda-path ("" = autodetect)
  std::string libtorchDir;              // --libtorch ("" = $LIBTORCH or an installed torch)
  unsigned jobs = 0;                    // -j N (0 = all cores)
  bool verbose = false;
  // Progress on stderr as translation units finish (each takes seconds): 0 none, 1 one line
  // rewritten in place (a terminal), 2 a line per file (logs: CI, pre-commit).
  int progress = 0;
  // --diff: analyse only these translation units (paths as given or absolute); the others
  // cannot have changed findings. Unset = every input.
  std::optional<std::vector<std::string>> only;
};

// A file analysed in a configuration its build did not state (GpuGuards.h): findings there say so.
struct Configured {
  std::string path;     // as the module's path
  unsigned line = 0;    // the first guard
  std::string note;
};

struct Result {
  std::vector<model::Module> modules;   // one per analysed main file (headers' code included)
  std::vector<Configured> configurations;
  std::vector<Finding> diagnostics;     // "parse-error"/"input-error" findings naming file+reason
  size_t translationUnits = 0;          // TUs attempted
  size_t analyzed = 0;                  // TUs that yielded a model
};

using AnalyzeFn = void (*)(const Request&, Result&);
inline constexpr const char* kAnalyzeSymbol = "streamlint_cxx_analyze";
inline constexpr const char* kPluginFile = "libstreamlint_cxx.so";

// The layout of the types that cross the boundary, as this side was compiled. A frontend from
// another build (an older wheel, a stale copy beside the binary) lays them out differently and
// would crash on the first module it hands back: `check` compares the plugin's stamp (exported
// as kAbiSymbol) with its own and refuses a different one.
inline std::string abiStamp() {
  std::string s = "1";  // bump on a change of meaning that keeps every size
  for (size_t n : {sizeof(Request), sizeof(Result), sizeof(model::Module), sizeof(model::Function),
                   sizeof(model::Event), sizeof(model::Scope), sizeof(model::Flow), sizeof(Finding)})
    s += "." + std::to_string(n);
  return s;
}
using AbiFn = const char* (*)();
inline constexpr const char* kAbiSymbol = "streamlint_cxx_abi";

}  // namespace sl::cxx
