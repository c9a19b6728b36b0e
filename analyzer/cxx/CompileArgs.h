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
  // Set when the job defines the GPU guards of a file no compile command describes
  // (GpuGuards.h): the note its findings carry, and the first guard's line.
  std::string configuration;
  unsigned configurationLine = 0;
};

// Where things are on this machine; filled by discoverToolchain, overridable in tests.
struct Toolchain {
  std::string resourceDir;  // clang's resource dir (cuda_wrappers/, builtin headers)
  std::string cudaPath;     // toolkit root, "" when none was found
  std::vector<std::string> libtorchIncludes;  // -isystem dirs, empty when none was found
  bool libtorchNeedsNoCmakeConfig = false;    // Debian headers lack cuda_cmake_macros.h
  std::string shimDir;      // in-memory dir holding the headers CUDA 13 dropped (Plugin.cpp)
  std::string pythonInclude;  // Python.h's directory, added to LibTorch jobs (torch/extension.h)
  // cuda.h paths (as given and resolved) and the text the parser sees there instead (relaxTensorMapAlignment).
  std::vector<std::string> cudaHeaderPaths;
  std::string cudaHeaderText;
};

// In-memory header every CUDA job includes after Clang's CUDA wrapper (Plugin.cpp writes it):
// gives __CUDACC__ nvcc's value, and declares the sm_32 cache-hint loads and stores that Clang
// 19 does not (its wrapper skips sm_32_intrinsics.h; CUDA 13's nccl_device headers call
// __stwt on uint4). Declarations only: the host side is parsed, never compiled.
inline constexpr const char* kCudaMacrosShim = "streamlint_cuda_macros.h";
inline constexpr const char* kCudaMacrosShimText =
    "#ifdef __CUDACC__\n#undef __CUDACC__\n#define __CUDACC__ 1\n#endif\n"
    "template <typename T> __device__ T __ldcg(const T*);\n"
    "template <typename T> __device__ T __ldca(const T*);\n"
    "template <typename T> __device__ T __ldcs(const T*);\n"
    "template <typename T> __device__ T __ldlu(const T*);\n"
    "template <typename T> __device__ T __ldcv(const T*);\n"
    "template <typename T> __device__ void __stwb(T*, T);\n"
    "template <typename T> __device__ void __stcg(T*, T);\n"
    "template <typename T> __device__ void __stcs(T*, T);\n"
    "template <typename T> __device__ void __stwt(T*, T);\n";

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
// LibTorch include dirs from `requested`, $LIBTORCH, an installed torch package (`installed`,
// see installedTorchDirs), or `fallback` (the extracted Debian headers set-up provides; too old
// for today's extensions, so any installed torch wins). Accepts a libtorch root, a
// site-packages/torch dir, an include dir, or a Debian extraction root.
std::vector<std::string> findLibtorchIncludes(const std::string& requested,
                                              const std::string& fallback, bool& needsNoCmake,
                                              const std::vector<std::string>& installed);
std::vector<std::string> findLibtorchIncludes(const std::string& requested,
                                              const std::string& fallback, bool& needsNoCmake);
// Installed torch packages: python3's own (found without importing it), then
// PREFIX/lib/python3*/{site,dist}-packages/torch and PREFIX/lib/python3/dist-packages/torch for
// each of `prefixes` ($VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local, /usr, ... by default).
std::vector<std::string> installedTorchDirs(const std::vector<std::string>& prefixes, bool askPython);
std::vector<std::string> defaultPythonPrefixes();
// The directory holding Python.h (torch/extension.h includes it): python3's sysconfig, else
// the newest /usr/include/python3.*; "" when none.
std::string findPythonInclude();
// CUDA 13's cuda.h declares CUtensorMap with alignas(128); Clang rejects the alignas(64)
// extensions written for CUDA 12 put on such variables ("requested alignment is less than
// minimum alignment"), which nvcc and GCC accept. Returns cuda.h's text with the CUDA 12
// alignment (64) for the parser, or "" when `cudaH` has no such declaration.
std::string relaxTensorMapAlignment(const std::string& cudaH);
Toolchain discoverToolchain(const Request& req);

// The jobs for a request: db entries (all of them when no files were given, else those files),
// default flags for files without an entry. Inputs that cannot be used become diagnostics.
std::vector<CompileJob> planJobs(const Request& req, const Toolchain& tc,
                                 std::vector<Finding>& diagnostics);

// Where a file's project headers may be, for a file without compile command: its directory and
// each ancestor up to the repository root (one holding .git; at most 8 levels), each followed by
// its include/ when there is one. Searched last (-idirafter).
std::vector<std::string> projectIncludeDirs(const std::string& file);

// Default command line for `file` with no compile command: C++17 (CUDA host side for .cu/.cuh),
// toolkit and LibTorch includes when found, then the user's flags after `--`.
CompileJob defaultJob(const std::string& file, const Toolchain& tc,
                      const std::vector<std::string>& extraArgs);

}  // namespace sl::cxx
