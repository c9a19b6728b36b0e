// Native call sites from recorded return addresses, symbolized offline: the recorder stores raw
// addresses plus the module map; here each module's addresses go to one `addr2line` run (binutils;
// SL_ADDR2LINE overrides the tool). Without addr2line, or for a module that is not on this machine
// (a log recorded elsewhere), a site is named `module+0xOFFSET` instead.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sl::runtime {

struct NativeSite {
  std::string module;    // path of the ELF module
  uint64_t offset = 0;   // address of the call instruction relative to the module's base
  std::string function;  // demangled, may be empty
  std::string file;      // empty when unknown
  uint32_t line = 0;
};

class Symbolizer {
 public:
  // Queues (module, offset) for symbolization; offsets should point into the call instruction.
  void add(const std::string& module, uint64_t offset);
  void run();  // one addr2line process per module
  // Where to look for a module that is not at its recorded path (a log from another machine):
  // DIR/<file name of the module>.
  void searchIn(std::vector<std::string> dirs) { searchDirs_ = std::move(dirs); }
  NativeSite lookup(const std::string& module, uint64_t offset) const;

 private:
  std::map<std::string, std::vector<uint64_t>> pending_;
  std::vector<std::string> searchDirs_;
  std::map<std::pair<std::string, uint64_t>, NativeSite> done_;
};

// True for modules that are CUDA, torch, Python or system runtime rather than the user's code:
// the report walks past them to find the frame the user wrote.
bool isRuntimeModule(const std::string& path);
// True for source files of system, CUDA or Python-package headers (inlined into the user's code).
bool isLibrarySource(const std::string& file);
// True for code the user did not write, as the report groups it: library sources, torch wherever
// it is installed, the Python standard library, and generated code (inductor's cache, `exec`'d
// `<string>` code such as triton's launchers, torch.fx's `<eval_with_key>`, `<frozen ...>`).
bool isLibraryCode(const std::string& path);
// True when `file:line` declares a `__global__` kernel (the site of nvcc's launch wrapper).
bool isKernelWrapper(const std::string& file, uint32_t line);

}  // namespace sl::runtime
