#include "runtime/StreamedLog.h"

#include "runtime/CallSite.h"

namespace sl::runtime {

namespace {

// One more pass over the log, handing each kept call (with its return addresses in
// meta.frames) to onCall and each GPU record to onActivity.
bool pass(ProcessLog& meta, bool (*keep)(const slog::ApiRecord&),
          const std::function<void(const ApiCall&)>& onCall,
          const std::function<void(const slog::ActivityRecord&)>& onActivity, std::string& error) {
  ReadOptions ro;
  ro.keep = keep;
  ro.keepActivities = false;
  ro.callsAndActivitiesOnly = true;
  ro.onCall = [&](const ApiCall& c, const uint64_t* frames) {
    meta.frames.assign(frames, frames + c.nframes);
    ApiCall at = c;
    at.framesAt = 0;
    onCall(at);
  };
  if (onActivity) ro.onActivity = onActivity;
  ProcessLog again;
  if (!readLog(meta.path, again, error, ro)) return false;
  std::vector<uint64_t>().swap(meta.frames);
  // A log still being written would give a timeline that matches none of the passes.
  if (again.keptCalls != meta.keptCalls || again.activityRecords != meta.activityRecords) {
    error = meta.path + ": the log changed while it was being read (still being written?): read it once the run has ended";
    return false;
  }
  return true;
}

}  // namespace

bool streamTimeline(ProcessLog& meta, bool (*keep)(const slog::ApiRecord&), Symbolizer& sym,
                    HostBlockingSites* sl901, ProcessTimeline& out, std::string& error) {
  if (!pass(meta, keep, [&](const ApiCall& c) { queueCallSite(meta, c, sym); }, nullptr, error)) return false;
  sym.run();
  TimelineBuilder builder(meta);
  auto onCall = [&](const ApiCall& c) {
    CallSite site = resolveCallSite(meta, c, sym);
    builder.addCall(c, site);
    if (sl901) sl901->add(meta, c, site);
  };
  auto onActivity = [&](const slog::ActivityRecord& a) { builder.addActivity(a); };
  if (!pass(meta, keep, onCall, onActivity, error)) return false;
  out = builder.finish();
  return true;
}

}  // namespace sl::runtime
