// Turning streamlint's inputs into Clang command lines: compile_commands.json entries (nvcc's
// translated), default flags for files without one, and discovery of the CUDA toolkit and the
// LibTorch headers. No Clang headers here: all of it is unit-tested as plain string work.
#pragma once
#include <string>
#include <vector>

#include "core/Finding.h"
#include "cxx/CxxPlugin.h"

namespace sl::cxx {

// One translation unit to parse: `args` is a full driver command line (argv[0] first, the
// source last), ready for clang::tooling::ToolInvocation.
struct CompileJob {
  std::string file;       // what Clang parses (absolute for compile_commands.json entries)
  std::string display;    // the name findings use: the path the user gave, else `file`
  std::string directory;  // working directory of the compile command
  std::vector<std::string> args;
  bool cuda = false;      // parsed as CUDA (host side)
};

// Where things are on this machine; filled by discoverToolchain, overridable in tests.
struct Toolchain {
  std::string resourceDir;  // clang's resource dir (cuda_wrappers/, builtin headers)
  std::string cudaPath;     // toolkit root, "" when none was found
  std::vector<std::string> libtorchIncludes;  // -isystem dirs, empty when none was found
  bool libtorchNeedsNoCmakeConfig = false;    // Debian headers lack cuda_cmake_macros.h
  std::string shimDir;      // in-memory dir holding the headers CUDA 13 dropped (Plugin.cpp)
};

struct CompileDbEntry {
  std::string directory, file;
  std::vector<std::string> argv;  // from "arguments", or "command" split like a shell would
};

// Reads DIR/compile_commands.json (or DIR itself when it names a .json file).
bool loadCompileDb(const std::string& dirOrFile, std::vector<CompileDbEntry>& out,
                   std::string& error);

// Splits a compile command the way a POSIX shell would (quotes, backslashes; no expansion).
std::vector<std::string> splitCommand(const std::string& command);

// The flags of an nvcc command line that matter to parsing the host side, as Clang flags:
// includes, macros, language standard, `-x cu`; nvcc-only flags are dropped (architectures,
// -Xcompiler's non-parsing flags, -Xcudafe/-Xptxas, -ccbin, -rdc, ...). `--default-stream
// per-thread` becomes the macro nvcc defines for it. Excludes argv[0], -c, -o, the source.
std::vector<std::string> translateNvccArgs(const std::vector<std::string>& argv,
                                           const std::string& source);
// The same for a GCC/Clang command line: drops argv[0], -c, -o, dependency-file flags, the source.
std::vector<std::string> translateCompilerArgs(const std::vector<std::string>& argv,
                                               const std::string& source);

bool isCudaFile(const std::string& path);    // .cu .cuh
bool isHeaderFile(const std::string& path);  // .h .hh .hpp .hxx .cuh
bool isCxxInput(const std::string& path);    // anything the frontend accepts

// CUDA toolkit: `requested`, else $CUDA_PATH / $CUDA_HOME, else /usr/local/cuda, else nvcc's.
std::string findCudaPath(const std::string& requested);
// LibTorch include dirs from `requested`, $LIBTORCH, the python3 `torch` package, or
// `fallback` (the extracted Debian headers set-up provides). Accepts a libtorch root, a
// site-packages/torch dir, an include dir, or a Debian extraction root.
std::vector<std::string> findLibtorchIncludes(const std::string& requested,
                                              const std::string& fallback, bool& needsNoCmake);
Toolchain discoverToolchain(const Request& req);

// The jobs for a request: db entries (all of them when no files were given, else those files),
// default flags for files without an entry. Inputs that cannot be used become diagnostics.
std::vector<CompileJob> planJobs(const Request& req, const Toolchain& tc,
                                 std::vector<Finding>& diagnostics);

// Default command line for `file` with no compile command: C++17 (CUDA host side for .cu/.cuh),
// toolkit and LibTorch includes when found, then the user's flags after `--`.
CompileJob defaultJob(const std::string& file, const Toolchain& tc,
                      const std::vector<std::string>& extraArgs);

}  // namespace sl::cxx
