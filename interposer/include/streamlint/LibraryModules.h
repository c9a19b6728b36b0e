// Which loaded modules hold library code (CUDA, torch, the C and C++ runtimes, the Python
// interpreter, the recorder) rather than the user's: a call site is the first return address
// outside them. One list for the recorder, which scans the stack for the user's frame when it is
// deeper than its backtraces reach, and for the report, which picks that frame when it names the
// line. libc only (the recorder links nothing else).
#pragma once
#include <string.h>

namespace sl::slog {

// `path` may be a full path or a base name.
inline bool isLibraryModule(const char* path) {
  static const char* const kPrefixes[] = {
      "libcudart", "libcuda.", "libcupti", "libtorch", "libc10", "libstreamlint_interposer",
      "libc.so", "libc-", "libpthread", "libcublas", "libcudnn", "libnccl", "libcufft",
      "libcusparse", "libcurand", "libnvrtc", "libpython", "libffi", "_ctypes", "_C.cpython",
      "ld-linux", "libstdc++", "libgcc_s", "libdl", "libm.so", "libgomp", "libnvJitLink",
      "libnvToolsExt", "libcusolver", "libshm", "linux-vdso",
      "python",  // the interpreter executable
  };
  const char* slash = strrchr(path, '/');
  const char* base = slash ? slash + 1 : path;
  for (const char* p : kPrefixes)
    if (strncmp(base, p, strlen(p)) == 0) return true;
  return false;
}

}  // namespace sl::slog
