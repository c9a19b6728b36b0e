// The Python checker on arbitrary bytes: the tree-sitter parse, the pre-parse guards, the
// lowering, the project index and every static rule, as `streamlint check FILE` runs them; then
// a differential check: on a file that parses cleanly, the prefilter (which parses only what can
// matter to a rule) must give the same findings as parsing everything.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "FuzzInput.h"
#include "driver/Check.h"
#include "driver/DeepStack.h"

namespace {

sl::CheckResult check(const std::string& file, bool prefilter, int minConfidence, bool deliberate) {
  sl::CheckOptions opts;
  opts.paths = {file};
  opts.jobs = 1;
  opts.prefilter = prefilter;
  opts.minConfidence = minConfidence;
  opts.checkDeliberateCode = deliberate;
  return sl::runCheck(opts);
}

std::string describe(const std::vector<sl::Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += f.ruleId + "@" + std::to_string(f.loc.line) + ":" + std::to_string(f.loc.col) + " ";
  return out;
}

void checkAll(const std::string& file) {
  // Everything: no prefilter, low-confidence findings, deliberate code included.
  sl::CheckResult everything = check(file, false, 0, true);
  // As users run it, against the same without the prefilter (its claim: same findings at the
  // default confidence; a syntax error may hide in code it skipped, so only clean files count).
  sl::CheckResult filtered = check(file, true, -1, false);
  // A syntax error found by the full parse rules the comparison out, and the third check would
  // parse the same text the same way again: most mutated inputs are broken, and this saves a
  // third of their time (the parse's error recovery is most of it).
  if (!everything.diagnostics.empty() || !filtered.diagnostics.empty()) return;
  sl::CheckResult full = check(file, false, -1, false);
  if (full.diagnostics.empty() && describe(filtered.findings) != describe(full.findings)) {
    std::fprintf(stderr, "prefilter and full parse differ:\n  prefilter: %s\n  full:      %s\n",
                 describe(filtered.findings).c_str(), describe(full.findings).c_str());
    std::abort();
  }
}

// One deep-stack thread for the whole run, handed one input at a time, in which every stage of
// the three checks runs inline. A thread per input (512 MiB of stack, and ASan's fake stacks
// mapped, faulted in and unmapped each time) cost a third of the time; a thread per stage
// (about 30 per input) most of it.
class DeepWorker {
 public:
  DeepWorker() {
    std::thread([this] { sl::runOnDeepStacks(1, [this] { serve(); }); }).detach();
  }
  void run(const std::string& file) {
    std::unique_lock lock(mu_);
    job_ = &file;
    cv_.notify_all();
    cv_.wait(lock, [&] { return job_ == nullptr; });
  }

 private:
  void serve() {
    for (;;) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return job_ != nullptr; });
      checkAll(*job_);
      job_ = nullptr;
      cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  const std::string* job_ = nullptr;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sl::fuzz::quiet();
  static DeepWorker* worker = new DeepWorker;  // never destroyed: its thread waits to the end
  worker->run(sl::fuzz::inputFile(data, size, "input.py"));
  return 0;
}
