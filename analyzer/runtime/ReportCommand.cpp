// `streamlint report DIR [--format text|json|sarif] [--min-blocking-us N]`: reads every .slog in
// DIR (or one .slog file) and prints measured findings. Exit: 0 none, 1 findings, 2 usage/input.
// Room is left for issue 5 (pairing with sources: `[PATH...] [--static FILE.sarif]`).
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "cli/Commands.h"
#include "output/Output.h"
#include "runtime/HostBlocking.h"
#include "runtime/LogReader.h"

namespace sl::runtime {

namespace {

constexpr const char* kUsage =
    "usage: streamlint report DIR|FILE.slog [--format text|json|sarif] [--min-blocking-us N]\n"
    "  Measured findings from the logs `streamlint run` wrote. SL901 lists every call site where\n"
    "  the host blocked in CUDA for at least N microseconds in total (default 100).\n";

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The .slog files of DIR, sorted; or the one file given.
bool listLogs(const std::string& input, std::vector<std::string>& files, std::string& error) {
  struct stat st;
  if (stat(input.c_str(), &st) != 0) { error = input + ": no such file or directory"; return false; }
  if (!S_ISDIR(st.st_mode)) { files.push_back(input); return true; }
  DIR* d = opendir(input.c_str());
  if (!d) { error = input + ": cannot read the directory"; return false; }
  while (dirent* e = readdir(d))
    if (endsWith(e->d_name, ".slog")) files.push_back(input + "/" + e->d_name);
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty()) { error = input + ": no .slog logs here (record some with `streamlint run --out " + input + " -- CMD`)"; return false; }
  return true;
}

}  // namespace

int reportMain(const std::vector<std::string>& args) {
  OutputOptions opts;
  HostBlockingOptions hb;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    auto takeValue = [&](const std::string& name) {
      if (a.rfind(name + "=", 0) == 0) { value = a.substr(name.size() + 1); return true; }
      if (a == name && i + 1 < args.size()) { value = args[++i]; return true; }
      return false;
    };
    if (a == "-h" || a == "--help") { std::cout << kUsage; return 0; }
    if (takeValue("--format")) {
      if (!parseFormat(value, opts.format)) { std::cerr << "streamlint report: unknown format '" << value << "'\n" << kUsage; return 2; }
    } else if (takeValue("--min-blocking-us")) {
      char* end = nullptr;
      double v = strtod(value.c_str(), &end);
      if (value.empty() || *end || v < 0) { std::cerr << "streamlint report: --min-blocking-us wants a number >= 0, got '" << value << "'\n"; return 2; }
      hb.minBlockingMicros = v;
    } else if (a.rfind("-", 0) == 0) {
      std::cerr << "streamlint report: unknown or incomplete option " << a << "\n" << kUsage;
      return 2;
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.size() != 1) {
    std::cerr << (inputs.empty() ? "streamlint report: no log directory given\n"
                                 : "streamlint report: one log directory or .slog file, please "
                                   "(pairing with sources comes later)\n") << kUsage;
    return 2;
  }
  std::vector<std::string> files;
  std::string error;
  if (!listLogs(inputs[0], files, error)) { std::cerr << "streamlint report: " << error << "\n"; return 2; }

  std::vector<ProcessLog> logs;
  bool inputError = false;
  uint64_t calls = 0, dropped = 0, droppedThreads = 0, activities = 0, yielded = 0;
  std::set<std::string> notices;
  for (const auto& f : files) {
    ProcessLog log;
    ReadOptions ro;
    ro.keep = isHostBlockingCandidate;  // launches and GPU records are counted, not held
    ro.keepActivities = false;
    if (!readLog(f, log, error, ro)) {
      std::cerr << "streamlint report: " << error << "\n";
      opts.inputErrors.push_back(error);
      inputError = true;
      continue;
    }
    for (const auto& p : log.problems) {
      std::cerr << "streamlint report: " << f << ": " << p << "\n";
      opts.inputErrors.push_back(f + ": " + p);
    }
    for (const auto& m : log.messages) notices.insert(m);
    calls += log.apiRecords;
    activities += log.activityRecords;
    if (log.trailer) {
      dropped += log.trailer->dropped;
      droppedThreads += log.trailer->droppedThreads;
      yielded += log.trailer->cuptiState == uint32_t(slog::CuptiState::Yielded);
    }
    logs.push_back(std::move(log));
  }
  if (inputError) return 2;
  for (const auto& n : notices) std::cerr << "streamlint report: the recorder said: " << n << "\n";
  std::cerr << "streamlint report: " << logs.size() << (logs.size() == 1 ? " process, " : " processes, ")
            << calls << " CUDA calls, " << activities << " GPU activity records";
  if (dropped || droppedThreads)
    std::cerr << "; " << dropped << " records dropped (ring full or memory cap), " << droppedThreads
              << " threads unrecorded (memory cap)";
  if (yielded)
    std::cerr << "; GPU timing yielded to a profiler (torch.profiler took CUPTI) in " << yielded
              << (yielded == 1 ? " process" : " processes");
  std::cerr << "\n";
  if (dropped)
    opts.inputErrors.push_back(std::to_string(dropped) + " records were dropped while recording");

  std::vector<Finding> findings = measuredHostBlocking(logs, hb);
  opts.toolCommand = "streamlint report";
  writeFindings(std::cout, findings, opts);
  return findings.empty() ? 0 : 1;
}

}  // namespace sl::runtime
