// A compact text form of a lowered Module for assertions: one line per event,
//   "<line> <kind> [<api>] on <stream>[!] v=<value> r=<reads> w=<writes> in <scope chain>"
// where `!` marks an explicit stream and the scope chain lists enclosing scope kinds.
#pragma once
#include <sstream>
#include <string>

#include "model/StreamModel.h"

namespace sl::test {

inline std::string streamText(const model::StreamRef& s) {
  switch (s.kind) {
    case model::StreamKind::Current: return "current";
    case model::StreamKind::Default: return "default";
    case model::StreamKind::Legacy: return "legacy";
    case model::StreamKind::PerThread: return "per-thread";
    case model::StreamKind::Side: return "side:" + s.name;
    case model::StreamKind::Unknown: return "unknown:" + s.name;
  }
  return "?";
}

inline std::string scopeChain(const model::Function& f, int s) {
  std::string out;
  for (; s > 0; s = f.scopes[size_t(s)].parent) {
    const model::Scope& sc = f.scopes[size_t(s)];
    const char* k = sc.kind == model::ScopeKind::StreamRegion ? "region"
                    : sc.kind == model::ScopeKind::Loop      ? "loop"
                    : sc.kind == model::ScopeKind::Branch    ? "branch"
                    : sc.kind == model::ScopeKind::Guarded   ? "guarded" : "fn";
    std::string item = k;
    if (sc.kind == model::ScopeKind::StreamRegion) item += "(" + streamText(sc.stream) + ")";
    out = out.empty() ? item : item + ">" + out;
  }
  return out.empty() ? "fn" : out;
}

inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

inline std::string dumpFunction(const model::Function& f) {
  std::ostringstream o;
  for (const auto& e : f.events) {
    o << e.loc.line << " " << model::eventKindName(e.kind);
    if (!e.api.empty()) o << " [" << e.api << "]";
    o << " on " << streamText(e.stream) << (e.streamExplicit ? "!" : "");
    if (!e.value.empty()) o << " v=" << e.value;
    if (!e.reads.empty()) o << " r=" << join(e.reads);
    if (!e.writes.empty()) o << " w=" << join(e.writes);
    if (e.kind == model::EventKind::RecordStream || (e.kind == model::EventKind::Wait && e.value.empty()))
      o << " other=" << streamText(e.other);
    if (e.sync != model::SyncKind::None) o << " sync=" << int(e.sync);
    if (e.kind == model::EventKind::Copy)
      o << " dir=" << int(e.dir) << (e.nonBlocking ? " async" : "") << " pinned=" << int(e.srcPinned);
    if (!e.callee.empty() && e.kind == model::EventKind::Call) o << " callee=" << e.callee;
    o << " in " << scopeChain(f, e.scope) << "\n";
  }
  if (!f.eventUses.empty()) o << "event-uses " << join(f.eventUses) << "\n";
  return o.str();
}

inline std::string dumpModule(const model::Module& m) {
  std::ostringstream o;
  for (const auto& f : m.functions) {
    if (f.name == "<module>" && f.events.empty()) continue;
    o << "function " << f.name << "\n" << dumpFunction(f);
  }
  return o.str();
}

}  // namespace sl::test
