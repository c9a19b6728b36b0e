// What the binaries need from a glibc newer than the floor (SL_GLIBC_FLOOR, compat/CMakeLists.txt),
// answered with what the floor has. Linked only where the binaries link against the floor's
// stand-in libraries (compat/glibc_stubs.py): there these names are otherwise undefined.
// All hidden: the recorder is preloaded into other programs and must not replace their libc's.
#define SL_HIDDEN __attribute__((visibility("hidden")))

// glibc 2.32 exports it, and libstdc++ (GCC >= 11) reads it to skip atomic reference counts
// while a program has one thread. Always 0 here: the counts are always atomic, which is what
// GCC < 11 did; nothing writes it.
SL_HIDDEN char __libc_single_threaded = 0;

// glibc 2.33 made stat and friends real functions; before, the headers turned them into calls of
// __xstat & co with the structure's version (1 on x86-64), which every glibc still exports.
// The buffers are struct stat (= struct stat64 on x86-64); the header is not included so that
// its declarations do not clash with these definitions.
#define SL_STAT_VER 1
extern int __xstat(int, const char*, void*);
extern int __lxstat(int, const char*, void*);
extern int __fxstat(int, int, void*);
extern int __fxstatat(int, int, const char*, void*, int);
SL_HIDDEN int stat(const char* path, void* buf) { return __xstat(SL_STAT_VER, path, buf); }
SL_HIDDEN int lstat(const char* path, void* buf) { return __lxstat(SL_STAT_VER, path, buf); }
SL_HIDDEN int fstat(int fd, void* buf) { return __fxstat(SL_STAT_VER, fd, buf); }
SL_HIDDEN int fstatat(int dirfd, const char* path, void* buf, int flags) {
  return __fxstatat(SL_STAT_VER, dirfd, path, buf, flags);
}
SL_HIDDEN int stat64(const char* path, void* buf) { return stat(path, buf); }
SL_HIDDEN int lstat64(const char* path, void* buf) { return lstat(path, buf); }
SL_HIDDEN int fstat64(int fd, void* buf) { return fstat(fd, buf); }
SL_HIDDEN int fstatat64(int dirfd, const char* path, void* buf, int flags) {
  return fstatat(dirfd, path, buf, flags);
}
