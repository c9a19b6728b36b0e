// Finds glibc's dlsym/dlvsym by walking loaded objects (dl_iterate_phdr) and looking the names
// up in their GNU hash tables. We cannot ask dlsym for dlsym: the symbol we export would answer.
#include "RealDlsym.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>

extern "C" {
void* sl_real_dlsym = nullptr;
void* sl_real_dlvsym = nullptr;
}

namespace sl::ip {
namespace {

uint32_t gnuHash(const char* s) {
  uint32_t h = 5381;
  for (; *s; ++s) h = h * 33 + uint8_t(*s);
  return h;
}

struct Wanted {
  const char* name;
  void* found = nullptr;
};

// Looks `name` up in one object; returns the default (non-hidden) version's address.
void* lookupIn(const dl_phdr_info* info, const char* name) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn) return nullptr;
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* gnuhash = nullptr;
  const ElfW(Half)* versym = nullptr;
  // glibc relocates these d_ptr values in place on x86-64; other loaders may not: normalise.
  auto addr = [&](ElfW(Addr) p) { return p < info->dlpi_addr ? p + info->dlpi_addr : p; };
  for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_GNU_HASH) gnuhash = reinterpret_cast<const uint32_t*>(addr(d->d_un.d_ptr));
    if (d->d_tag == DT_VERSYM) versym = reinterpret_cast<const ElfW(Half)*>(addr(d->d_un.d_ptr));
  }
  if (!symtab || !strtab || !gnuhash) return nullptr;
  uint32_t nbuckets = gnuhash[0], symoffset = gnuhash[1], bloomSize = gnuhash[2];
  const uint32_t* buckets = gnuhash + 4 + bloomSize * (sizeof(ElfW(Addr)) / 4);
  const uint32_t* chain = buckets + nbuckets;
  uint32_t h = gnuHash(name);
  uint32_t idx = buckets[h % nbuckets];
  if (idx < symoffset) return nullptr;
  for (;; ++idx) {
    uint32_t h2 = chain[idx - symoffset];
    const ElfW(Sym)& s = symtab[idx];
    if ((h | 1) == (h2 | 1) && s.st_shndx != SHN_UNDEF && strcmp(strtab + s.st_name, name) == 0 &&
        (!versym || (versym[idx] & 0x8000) == 0))
      return reinterpret_cast<void*>(info->dlpi_addr + s.st_value);
    if (h2 & 1) break;
  }
  return nullptr;
}

int findCallback(dl_phdr_info* info, size_t, void* p) {
  auto* w = static_cast<Wanted*>(p);
  const char* base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : nullptr;
  base = base ? base + 1 : info->dlpi_name;
  if (!base || (strncmp(base, "libc.so", 7) != 0 && strncmp(base, "libdl.so", 8) != 0)) return 0;
  w->found = lookupIn(info, w->name);
  return w->found ? 1 : 0;
}

void* findInLibc(const char* name) {
  Wanted w{name};
  dl_iterate_phdr(findCallback, &w);
  return w.found;
}

}  // namespace

void initRealDlsym() {
  if (!sl_real_dlsym) sl_real_dlsym = findInLibc("dlsym");
  if (!sl_real_dlvsym) sl_real_dlvsym = findInLibc("dlvsym");
}

void* realDlsym(void* handle, const char* name) {
  if (!sl_real_dlsym) initRealDlsym();
  using Fn = void* (*)(void*, const char*);
  return sl_real_dlsym ? reinterpret_cast<Fn>(sl_real_dlsym)(handle, name) : nullptr;
}

void* realDlvsym(void* handle, const char* name, const char* version) {
  if (!sl_real_dlvsym) initRealDlsym();
  using Fn = void* (*)(void*, const char*, const char*);
  return sl_real_dlvsym ? reinterpret_cast<Fn>(sl_real_dlvsym)(handle, name, version) : nullptr;
}

const char* Py_VersionPtr() { return static_cast<const char*>(realDlsym(RTLD_DEFAULT, "Py_Version")); }

}  // namespace sl::ip
