#include "ThreadStarts.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>

#include <new>

#include "Hooks.h"
#include "PythonFrames.h"
#include "RealDlsym.h"

namespace sl::ip {
namespace {

// Handed from the starting thread to the new one.
struct Start {
  void* (*fn)(void*);
  void* arg;
  uint32_t parentTid, pyCode, pyOffset;
};

// The new thread's start, until its first ring is claimed (recordThreadStart).
__thread uint32_t t_parentTid __attribute__((tls_model("initial-exec"))) = 0;
__thread uint32_t t_pyCode __attribute__((tls_model("initial-exec"))) = 0;
__thread uint32_t t_pyOffset __attribute__((tls_model("initial-exec"))) = 0;

void* startThread(void* p) {
  Start s = *static_cast<Start*>(p);
  delete static_cast<Start*>(p);
  t_parentTid = s.parentTid;
  t_pyCode = s.pyCode;
  t_pyOffset = s.pyOffset;
  return s.fn(s.arg);
}

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

}  // namespace

void recordThreadStart(ThreadState* ts) {
  char name[16] = {};
  prctl(PR_GET_NAME, name, 0, 0, 0);
  uint32_t len = uint32_t(strnlen(name, 15));
  size_t bytes = slog::align8(sizeof(slog::ThreadRecord) + len);
  char* p = reserve(ts, bytes);
  if (!p) return;
  auto* r = new (p) slog::ThreadRecord{};
  r->h = {slog::RecType::Thread, uint16_t(bytes)};
  r->parentTid = t_parentTid;
  r->pyCode = t_pyCode;
  r->pyOffset = t_pyOffset;
  r->nameLen = len;
  memcpy(p + sizeof *r, name, len);
  commit(ts, bytes);
}

}  // namespace sl::ip

using namespace sl::ip;

// Only threads started while the process records (a thread made a CUDA call) and outside our hooks
// (CUPTI's and the writer's threads are not the user's) are wrapped; the rest go straight through.
// The starting thread gets a ring if it has none yet (the Python main thread iterating a
// DataLoader before its first CUDA call): its Python line's code record goes there.
SL_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  static CreateFn real = reinterpret_cast<CreateFn>(realDlsym(RTLD_NEXT, "pthread_create"));
  if (!real) return EAGAIN;
  if (t_depth > 0 || !recordingOn()) return real(thread, attr, fn, arg);
  ThreadState* ts = threadState();
  if (!ts || !ts->ring) return real(thread, attr, fn, arg);
  auto* s = new (std::nothrow) Start{fn, arg, ts->tid, 0, 0};
  if (!s) return real(thread, attr, fn, arg);
  ++t_depth;
  if (g_knobs.python && !capturePython(ts, s->pyCode, s->pyOffset)) s->pyCode = s->pyOffset = 0;
  --t_depth;
  int rc = real(thread, attr, startThread, s);
  if (rc != 0) delete s;
  return rc;
}
