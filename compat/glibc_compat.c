// Two glibc functions the statically linked C++ runtime asks for, defined here so that the
// binaries (streamlint and the recorder, shipped in the wheel) run on glibc 2.34 instead of the
// 2.36 of the machine that builds them (issue 16: Ubuntu 22.04 has 2.35, RHEL 9 has 2.34).
// - arc4random (glibc 2.36): GCC 12's libstdc++.a reaches it from std::random_device, which
//   its string instantiations pull in; streamlint never asks for a random number.
// - _dl_find_object (glibc 2.35): GCC 12's libgcc_eh finds a frame's unwind tables with it
//   when an exception is thrown.
// Both are hidden: the link resolves the runtime's references here, and neither is exported
// (the recorder is preloaded into other programs and must not replace their libc's).
// Where glibc has _dl_find_object, it is used; else the object is found as glibc < 2.35's own
// unwinder did, with dl_iterate_phdr.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define SL_HIDDEN __attribute__((visibility("hidden")))

SL_HIDDEN uint32_t arc4random(void) {
  uint32_t v = 0;
  ssize_t n;
  do n = getrandom(&v, sizeof v, 0);
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof v) return v;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);  // a kernel without getrandom(2)
  if (fd >= 0) {
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
    close(fd);
  }
  return v;
}

struct sl_find {
  uintptr_t pc;
  struct dl_find_object* out;
  int found;
};

static int sl_find_in(struct dl_phdr_info* info, size_t size, void* arg) {
  (void)size;
  struct sl_find* f = (struct sl_find*)arg;
  const ElfW(Phdr)* eh = NULL;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  int inside = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* p = &info->dlpi_phdr[i];
    if (p->p_type == PT_LOAD) {
      uintptr_t start = info->dlpi_addr + p->p_vaddr, end = start + p->p_memsz;
      if (start < lo) lo = start;
      if (end > hi) hi = end;
      if (f->pc >= start && f->pc < end) inside = 1;
    } else if (p->p_type == PT_GNU_EH_FRAME) {
      eh = p;
    }
  }
  if (!inside) return 0;
  memset(f->out, 0, sizeof *f->out);
  f->out->dlfo_map_start = (void*)lo;
  f->out->dlfo_map_end = (void*)hi;
  f->out->dlfo_eh_frame = eh ? (void*)(info->dlpi_addr + eh->p_vaddr) : NULL;
  f->found = 1;
  return 1;
}

typedef int (*sl_find_fn)(void*, struct dl_find_object*);

static sl_find_fn libc_find;  // glibc's, when it has one

// Tests only: forget glibc's, so that the fallback does the unwinding.
SL_HIDDEN void sl_compat_use_fallback(void) { __atomic_store_n(&libc_find, (sl_find_fn)0, __ATOMIC_RELEASE); }

// Looked up once at load time, not while unwinding (dlsym takes the loader's lock).
__attribute__((constructor)) static void sl_find_libc(void) {
  sl_find_fn f = (sl_find_fn)dlsym(RTLD_DEFAULT, "_dl_find_object");
  __atomic_store_n(&libc_find, f, __ATOMIC_RELEASE);
}

SL_HIDDEN int _dl_find_object(void* address, struct dl_find_object* result) {
  sl_find_fn f = __atomic_load_n(&libc_find, __ATOMIC_ACQUIRE);
  if (f && f != _dl_find_object) return f(address, result);
  struct sl_find q = {(uintptr_t)address, result, 0};
  dl_iterate_phdr(sl_find_in, &q);
  return q.found ? 0 : -1;
}
