// glibc's own dlsym/dlvsym, found without calling dlsym (which we export ourselves): the ELF
// dynamic symbol table of libc.so.6 (glibc >= 2.34) or libdl.so.2 is searched directly.
#pragma once

extern "C" {
// Hidden so that the exported assembly stubs can reach them %rip-relative (see DlsymHooks.cpp).
extern __attribute__((visibility("hidden"))) void* sl_real_dlsym;
extern __attribute__((visibility("hidden"))) void* sl_real_dlvsym;
}

namespace sl::ip {
void initRealDlsym();  // idempotent; called from the first constructor and lazily
void* realDlsym(void* handle, const char* name);
void* realDlvsym(void* handle, const char* name, const char* version);
const char* Py_VersionPtr();  // &Py_Version in this process, or nullptr
}  // namespace sl::ip
