#include "PythonFrames.h"

#include <dlfcn.h>
#include <string.h>

#include <atomic>

#include "RealDlsym.h"

namespace sl::ip {
namespace {

constexpr uint32_t kNoCFrame = ~0u;
struct Layout {
  uint32_t tstateFrame;    // PyThreadState -> _PyCFrame* (3.11, 3.12), or the frame itself (3.13+)
  uint32_t cframeCurrent;  // _PyCFrame -> _PyInterpreterFrame*; kNoCFrame from 3.13 (no _PyCFrame)
  uint32_t frameCode, framePrevious, framePrevInstr, frameOwner;
  uint32_t codeFirstLine, codeFilename, codeQualname, codeLineTable, codeAdaptive;
  uint32_t asciiData, compactUtf8;  // PyASCIIObject data, PyCompactUnicodeObject::utf8
  int firstSkippedOwner;            // frame owners from this value on are the interpreter's own
                                    // (C-stack entry frames); 256: none
  uintptr_t codeTagBits;            // tag bits of the frame's code reference (_PyStackRef, 3.14)
};
// Each checked with offsetof against the release's Include/internal headers: 3.11.7 here,
// 3.12.3 (the H200 box), 3.13 (Debian 13), 3.14 and 3.15 (Debian unstable), GIL builds.
constexpr Layout k311{56, 8, 32, 48, 56, 69, 72, 112, 128, 136, 184, 48, 56, 256, 0};
// 3.12: _PyCFrame lost use_tracing, the frame starts with f_code, code objects grew a monitoring
// block and PyASCIIObject lost wstr. FRAME_OWNED_BY_CSTACK (3) marks C-stack shim frames.
constexpr Layout k312{56, 0, 0, 8, 56, 70, 68, 112, 128, 136, 192, 40, 48, 3, 0};
// 3.13: no _PyCFrame (PyThreadState::current_frame), f_executable and instr_ptr (the instruction
// executing: the CALL, as 3.12's prev_instr is during a call).
constexpr Layout k313{72, kNoCFrame, 0, 8, 56, 70, 68, 112, 128, 136, 200, 40, 48, 3, 0};
// 3.14: f_executable is a tagged _PyStackRef (bit 0: deferred reference), the frame has a
// stackpointer before the owner, FRAME_OWNED_BY_INTERPRETER (3) and _CSTACK (4).
constexpr Layout k314{72, kNoCFrame, 0, 8, 56, 74, 68, 112, 128, 136, 208, 40, 48, 3, 1};
// 3.15: 3.14's layout, two tag bits in _PyStackRef, no FRAME_OWNED_BY_CSTACK (INTERPRETER is 3).
constexpr Layout k315{72, kNoCFrame, 0, 8, 56, 74, 68, 112, 128, 136, 208, 40, 48, 3, 3};

enum Status : int { Unknown, Ready, Unsupported };
std::atomic<int> g_status{Unknown};
Layout g_l;
void* (*g_getTstate)() = nullptr;
const void* g_codeType = nullptr;
const void* g_unicodeType = nullptr;
const void* g_bytesType = nullptr;

template <class T>
T at(const void* p, uint32_t off) {
  T v;
  memcpy(&v, static_cast<const char*>(p) + off, sizeof v);
  return v;
}
const void* typeOf(const void* obj) { return at<const void*>(obj, 8); }

bool init() {
  int s = g_status.load(std::memory_order_acquire);
  if (s != Unknown) return s == Ready;
  uint32_t v = pythonVersion();
  if (v == 0) { g_status.store(Unsupported); return false; }
  uint32_t minor = (v >> 16) & 0xff;
  if ((v >> 24) != 3 || minor < 11 || minor > 15) {
    notice("python-version", "Python 3.%u: no Python line attribution (supported: 3.11 to 3.15); "
           "native call sites are still recorded", minor);
    g_status.store(Unsupported);
    return false;
  }
  static constexpr const Layout* kByMinor[] = {&k311, &k312, &k313, &k314, &k315};
  g_l = *kByMinor[minor - 11];
  g_getTstate = reinterpret_cast<void* (*)()>(realDlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState"));
  g_codeType = realDlsym(RTLD_DEFAULT, "PyCode_Type");
  g_unicodeType = realDlsym(RTLD_DEFAULT, "PyUnicode_Type");
  g_bytesType = realDlsym(RTLD_DEFAULT, "PyBytes_Type");
  bool ok = g_getTstate && g_codeType && g_unicodeType && g_bytesType;
  g_status.store(ok ? Ready : Unsupported, std::memory_order_release);
  return ok;
}

// UTF-8 text of a str object, or nullptr when it has none cached (non-ASCII, never encoded).
const char* strData(const void* s, uint32_t& len) {
  if (!s || typeOf(s) != g_unicodeType) return nullptr;
  uint64_t length = at<uint64_t>(s, 16);
  uint32_t state = at<uint32_t>(s, 32);
  bool compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
  if (!compact) return nullptr;
  if (ascii) {
    len = uint32_t(length);
    return static_cast<const char*>(s) + g_l.asciiData;
  }
  const char* utf8 = at<const char*>(s, g_l.compactUtf8);
  if (!utf8) return nullptr;
  len = uint32_t(at<uint64_t>(s, g_l.compactUtf8 - 8));
  return utf8;
}

// Code the line walks out of, to the user's frame that called into it: installed packages
// (site-packages/ or dist-packages/: torch, wherever installed, and the libraries around it), the
// Python standard library (threading.py, under which a DataLoader's pin-memory thread runs;
// contextlib, runpy), and code generated at run time — torch.compile's inductor output (in the
// torchinductor_<user> cache), torch.fx's `<eval_with_key>` modules, `exec`'d `<string>` code
// (triton's launchers) — and the import machinery (`<frozen importlib...>`).
bool insideTorch(const char* f, uint32_t n) {
  static constexpr const char* kNeedles[] = {"-packages/", "/lib/python3.", "/torchinductor_", "<eval_with_key>",
                                             "<frozen ", "<string>"};
  for (const char* needle : kNeedles)
    if (memmem(f, n, needle, strlen(needle))) return true;
  return false;
}

// Emits the CodeDef record for `code` into this thread's ring; returns the cache entry.
CodeCacheEntry* define(ThreadState* ts, CodeCacheEntry* e, const void* code, int32_t first) {
  uint32_t flen = 0, nlen = 0;
  const char* file = strData(at<const void*>(code, g_l.codeFilename), flen);
  const char* name = strData(at<const void*>(code, g_l.codeQualname), nlen);
  if (!file) { file = "<non-ascii path>"; flen = uint32_t(strlen(file)); }
  if (!name) { name = "?"; nlen = 1; }
  flen = flen > 4000 ? 4000 : flen;
  nlen = nlen > 1000 ? 1000 : nlen;
  const void* table = at<const void*>(code, g_l.codeLineTable);
  uint32_t tlen = 0;
  const char* tdata = nullptr;
  if (table && typeOf(table) == g_bytesType) {
    tlen = uint32_t(at<uint64_t>(table, 16));
    tdata = static_cast<const char*>(table) + 32;  // PyBytesObject::ob_sval (3.11-3.15)
    if (tlen > 60000 - flen - nlen) tlen = 0;      // records are < 64 KiB; line = firstLine then
  }
  e->key = code;
  e->firstLine = first;
  e->id = nextStringId();
  e->skip = insideTorch(file, flen);
  size_t bytes = slog::align8(sizeof(slog::CodeDefRecord) + flen + nlen + tlen);
  char* p = reserve(ts, bytes);
  if (!p) { e->key = nullptr; return nullptr; }  // dropped: next call retries
  auto* r = reinterpret_cast<slog::CodeDefRecord*>(p);
  r->h = {slog::RecType::CodeDef, uint16_t(bytes)};
  r->codeId = e->id;
  r->firstLine = uint32_t(first);
  r->fileLen = uint16_t(flen);
  r->nameLen = uint16_t(nlen);
  r->lineTableLen = tlen;
  r->flags = e->skip ? 1 : 0;
  char* out = p + sizeof *r;
  memcpy(out, file, flen);
  memcpy(out + flen, name, nlen);
  if (tlen) memcpy(out + flen + nlen, tdata, tlen);
  commit(ts, bytes);
  return e;
}

}  // namespace

bool pythonProcess() { return g_getTstate != nullptr; }

bool capturePython(ThreadState* ts, uint32_t& codeId, uint32_t& offset) {
  if (!init()) return false;
  const void* tstate = g_getTstate();  // thread-specific storage read; no GIL needed
  if (!tstate) return false;           // a thread that never ran Python (autograd workers)
  const void* frame = at<const void*>(tstate, g_l.tstateFrame);
  if (frame && g_l.cframeCurrent != kNoCFrame) frame = at<const void*>(frame, g_l.cframeCurrent);
  bool haveFallback = false;
  for (int depth = 0; frame && depth < 256; ++depth, frame = at<const void*>(frame, g_l.framePrevious)) {
    if (at<uint8_t>(frame, g_l.frameOwner) >= g_l.firstSkippedOwner) continue;
    const void* code = reinterpret_cast<const void*>(at<uintptr_t>(frame, g_l.frameCode) & ~g_l.codeTagBits);
    if (!code || typeOf(code) != g_codeType) {
      notice("python-layout", "unexpected CPython frame layout: Python line attribution is off");
      g_status.store(Unsupported);
      return false;
    }
    int32_t first = at<int32_t>(code, g_l.codeFirstLine);
    CodeCacheEntry* e = ts->codeCache.find(code);
    if (!e || e->firstLine != first) e = define(ts, e ? e : ts->codeCache.claim(code), code, first);
    if (!e) return false;
    const char* instr = at<const char*>(frame, g_l.framePrevInstr);
    intptr_t off = instr - (static_cast<const char*>(code) + g_l.codeAdaptive);
    uint32_t o = off >= 0 && off < (1 << 26) ? uint32_t(off) : 0xffffffffu;
    if (!haveFallback) { codeId = e->id; offset = o; haveFallback = true; }
    if (!e->skip) { codeId = e->id; offset = o; return true; }
  }
  return haveFallback;
}

}  // namespace sl::ip
