#include "model/ModelDump.h"

#include <sstream>

namespace sl::model {
namespace {

const char* scopeName(ScopeKind k) {
  switch (k) {
    case ScopeKind::Function: return "function";
    case ScopeKind::StreamRegion: return "region";
    case ScopeKind::Loop: return "loop";
    case ScopeKind::Branch: return "branch";
    case ScopeKind::Guarded: return "guarded";
  }
  return "?";
}

const char* syncName(SyncKind k) {
  switch (k) {
    case SyncKind::None: return "";
    case SyncKind::Device: return "device";
    case SyncKind::Stream: return "stream";
    case SyncKind::Event: return "event";
    case SyncKind::ValueRead: return "value-read";
    case SyncKind::BlockingCopy: return "blocking-copy";
    case SyncKind::Allocation: return "allocation";
  }
  return "?";
}

void list(std::ostream& os, const char* label, const std::vector<std::string>& v) {
  if (v.empty()) return;
  os << " " << label << "=";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
}

}  // namespace

std::string dump(const Module& m) {
  std::ostringstream os;
  for (const auto& f : m.functions) {
    os << "function " << f.name << " @" << f.loc.line;
    if (!f.hot.empty()) os << " hot=" << f.hot;
    if (!f.perIteration.empty()) os << " per-iteration=" << f.perIteration;
    if (!f.deliberate.empty()) os << " deliberate=" << f.deliberate;
    os << "\n";
    for (size_t i = 1; i < f.scopes.size(); ++i) {
      const Scope& s = f.scopes[i];
      os << "  scope " << i << " " << scopeName(s.kind) << " parent=" << s.parent << " @" << s.loc.line;
      if (s.onlyIfTensor) os << " if-tensor";
      if (s.onArguments) os << " on-arguments";
      if (s.kind == ScopeKind::StreamRegion) os << " stream=" << s.stream.describe();
      if (s.handedStream) os << " handed";
      os << "\n";
    }
    if (!f.eventUses.empty()) {
      os << "  event-uses";
      for (const auto& v : f.eventUses) os << " " << v;
      os << "\n";
    }
    for (const auto& e : f.events) {
      os << "  " << e.loc.line << ":" << e.loc.col << " " << eventKindName(e.kind) << " scope=" << e.scope
         << " on=" << e.stream.describe();
      if (!e.api.empty()) os << " api=" << e.api;
      if (!e.value.empty()) os << " value=" << e.value;
      if (e.kind == EventKind::Wait || e.kind == EventKind::RecordStream) os << " other=" << e.other.describe();
      if (e.sync != SyncKind::None) os << " sync=" << syncName(e.sync);
      if (e.kind == EventKind::Copy)
        os << " dir=" << int(e.dir) << " nb=" << e.nonBlocking << " pinned=" << int(e.srcPinned)
           << " tmp=" << e.srcTemporary;
      if (!e.callee.empty()) os << " callee=" << e.callee;
      if (e.cudaArgs) {
        os << " cuda-args=";
        const char* sep = "";
        for (unsigned i = 0; i < 32; ++i)
          if (e.cudaArgs & (uint32_t(1) << i)) os << sep << i, sep = ",";
      }
      list(os, "reads", e.reads);
      list(os, "writes", e.writes);
      if (e.confidence != Confidence::High) os << " confidence=" << confidenceName(e.confidence);
      if (e.assumed) os << " assumed";
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace sl::model
