#include "runtime/CallSite.h"

#include <cstdio>

namespace sl::runtime {

namespace {

// isRuntimeModule, asked once per module (it compares the path with dozens of names; a long log
// asks it for every frame of every call).
bool runtimeModule(const Module& m) {
  if (m.runtime < 0) m.runtime = isRuntimeModule(m.path) ? 1 : 0;
  return m.runtime == 1;
}

bool hasPython(const ProcessLog& log, const ApiCall& c) {
  return (c.rec.flags & slog::kHasPython) && log.codes.count(c.rec.pyCode);
}

// The frame the user wrote: the first return address outside CUDA/torch/system modules.
bool userFrame(const ProcessLog& log, const ApiCall& c, std::string& module, uint64_t& offset) {
  const Module* fallback = nullptr;
  uint64_t fallbackOff = 0;
  for (int i = 0; i < c.nframes; ++i) {
    const Module* m = log.moduleFor(c.frame(log, i));
    if (!m) continue;
    uint64_t off = c.frame(log, i) - 1 - m->base;  // the call instruction, not the one after it
    if (!fallback) { fallback = m; fallbackOff = off; }
    if (!runtimeModule(*m)) { module = m->path; offset = off; return true; }
  }
  if (!fallback) return false;
  module = fallback->path;
  offset = fallbackOff;
  return true;
}

// A line in the user's sources: not a library header, not nvcc's kernel wrapper.
bool hasUserLine(const NativeSite& n) {
  return !n.file.empty() && n.line && !isLibrarySource(n.file) && !isKernelWrapper(n.file, n.line);
}

}  // namespace

void queueCallSite(const ProcessLog& log, const ApiCall& c, Symbolizer& sym) {
  if (hasPython(log, c)) return;
  // Every frame in the user's modules: the innermost may be nvcc's launch stub, whose caller is
  // the line the user wrote.
  for (int i = 0; i < c.nframes; ++i)
    if (const Module* m = log.moduleFor(c.frame(log, i)); m && !runtimeModule(*m))
      sym.add(m->path, c.frame(log, i) - 1 - m->base);
  std::string module;
  uint64_t off;
  if (userFrame(log, c, module, off)) sym.add(module, off);
}

CallSite resolveCallSite(const ProcessLog& log, const ApiCall& c, const Symbolizer& sym) {
  CallSite s;
  if (hasPython(log, c)) {
    const CodeDef& code = log.codes.at(c.rec.pyCode);
    s.path = code.file;
    s.line = pythonLine(code, c.rec.pyOffset);
    s.function = code.name;
    s.python = true;
    return s;
  }
  std::string module;
  uint64_t off = 0;
  if (!userFrame(log, c, module, off)) { s.path = "<unknown>"; return s; }
  NativeSite n = sym.lookup(module, off);
  if (n.file.empty() || isLibrarySource(n.file) || isKernelWrapper(n.file, n.line))
    for (int i = 0; i < c.nframes; ++i) {
      const Module* m = log.moduleFor(c.frame(log, i));
      if (!m || runtimeModule(*m)) continue;
      NativeSite outer = sym.lookup(m->path, c.frame(log, i) - 1 - m->base);
      if (hasUserLine(outer)) {
        n = outer;
        module = m->path;
        off = c.frame(log, i) - 1 - m->base;
        break;
      }
    }
  if (!hasUserLine(n) && (c.rec.flags & slog::kScannedFrames) && c.nframes > 0) {
    // None of the user-code addresses found on the stack has a line: stale ones (statically
    // linked library code in the program), or a thread that runs none of the user's code. The
    // library's call site says more than an address without a line.
    if (const Module* m = log.moduleFor(c.frame(log, 0))) {
      module = m->path;
      off = c.frame(log, 0) - 1 - m->base;
      n = sym.lookup(module, off);
    }
  }
  s.function = n.function;
  char buf[64];
  snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(off));
  s.native = module + buf;
  if (!n.file.empty() && n.line) { s.path = n.file; s.line = n.line; }
  else s.path = module;
  return s;
}

}  // namespace sl::runtime
