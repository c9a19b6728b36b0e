#include "runtime/RankSummary.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace sl::runtime {

namespace {

// Column order of "collectives" rows; strings (collective, paths) are indices into "strings".
const std::vector<std::string> kFields = {"kind", "count", "bytes", "dtype", "peer", "nranks", "comm", "seq",
                                          "arriveNs", "gpuNs", "exposedNs", "path", "line", "delayPath",
                                          "delayLine", "delayGapNs"};

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> filesWithSuffix(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (endsWith(e->d_name, suffix)) out.push_back(dir + "/" + e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool isRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

RankView viewFrom(const nlohmann::json& r) {
  RankView v;
  v.rank = r.at("rank").get<int>();
  v.localRank = r.value("localRank", -1);
  v.worldSize = r.value("worldSize", -1);
  v.host = r.at("host").get<std::string>();
  v.launcher = r.value("launcher", std::string("unknown"));
  v.jobId = r.value("job", std::string());
  v.logPath = r.value("log", std::string());
  v.pid = r.at("pid").get<uint64_t>();
  v.realtimeOffsetNs = r.at("realtimeOffsetNs").get<int64_t>();
  v.gpuTiming = r.at("gpuTiming").get<bool>();
  v.runNs = r.at("runNs").get<uint64_t>();
  v.computeNs = r.at("computeNs").get<uint64_t>();
  v.commNs = r.at("commNs").get<uint64_t>();
  v.exposedNs = r.at("exposedNs").get<uint64_t>();
  v.ncclCalls = r.at("ncclCalls").get<size_t>();
  v.omittedCollectives = r.value("omittedCollectives", size_t(0));
  v.notes = r.value("notes", std::vector<std::string>{});
  const auto& strings = r.at("strings");
  auto str = [&](const nlohmann::json& i) -> std::string {
    int64_t k = i.get<int64_t>();
    if (k < 0) return "";
    if (size_t(k) >= strings.size()) throw std::out_of_range("string index " + std::to_string(k) + " out of range");
    return strings[size_t(k)].get<std::string>();
  };
  if (r.at("collectiveFields").get<std::vector<std::string>>() != kFields)
    throw std::invalid_argument("collectiveFields differ from this streamlint's");
  for (const auto& row : r.at("collectives")) {
    if (!row.is_array() || row.size() != kFields.size()) throw std::invalid_argument("a collective row of the wrong length");
    RankCollective c;
    c.kind = str(row[0]);
    c.count = row[1].get<uint64_t>();
    c.bytes = row[2].get<uint64_t>();
    c.datatype = row[3].get<uint32_t>();
    c.peer = row[4].get<int>();
    c.nranks = row[5].get<int>();
    c.commIndex = row[6].get<int>();
    c.seq = row[7].get<uint64_t>();
    c.arriveNs = row[8].get<uint64_t>();
    c.gpuNs = row[9].get<uint64_t>();
    c.exposedNs = row[10].get<uint64_t>();
    c.path = str(row[11]);
    c.line = row[12].get<uint32_t>();
    c.delayPath = str(row[13]);
    c.delayLine = row[14].get<uint32_t>();
    c.delayGapNs = row[15].get<uint64_t>();
    v.collectives.push_back(std::move(c));
  }
  return v;
}

bool readOne(const std::string& path, std::vector<RankView>& out, std::string& error) {
  // Only a regular file is read: a FIFO would block the merge, a link to /dev/zero never end.
  if (!isRegularFile(path)) {
    error = path + ": not a regular file (a rank summary is a file written by `streamlint report --summary`)";
    return false;
  }
  std::ifstream in(path);
  if (!in) { error = path + ": cannot open"; return false; }
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(ss.str(), nullptr, false);
  if (doc.is_discarded()) { error = path + ": not valid JSON (a rank summary is written by `streamlint report --summary`)"; return false; }
  if (!doc.is_object() || !doc.contains("streamlintRankSummary")) { error = path + ": not a streamlint rank summary"; return false; }
  if (doc["streamlintRankSummary"] != kRankSummaryVersion) {
    error = path + ": rank summary version " + doc["streamlintRankSummary"].dump() + ", this streamlint reads version " +
            std::to_string(kRankSummaryVersion);
    return false;
  }
  try {
    for (const auto& r : doc.at("ranks")) out.push_back(viewFrom(r));
  } catch (const std::exception& e) {
    error = path + ": bad rank summary: " + e.what();
    return false;
  }
  return true;
}

}  // namespace

nlohmann::json rankSummaryJson(const std::vector<RankView>& views) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& v : views) {
    std::map<std::string, int> index;
    nlohmann::json strings = nlohmann::json::array();
    auto id = [&](const std::string& s) -> int {
      if (s.empty()) return -1;
      auto [it, fresh] = index.emplace(s, int(strings.size()));
      if (fresh) strings.push_back(s);
      return it->second;
    };
    nlohmann::json rows = nlohmann::json::array();
    size_t n = std::min(v.collectives.size(), kMaxSummaryCollectives);
    for (size_t i = 0; i < n; ++i) {
      const RankCollective& c = v.collectives[i];
      rows.push_back({id(c.kind), c.count, c.bytes, c.datatype, c.peer, c.nranks, c.commIndex, c.seq, c.arriveNs,
                      c.gpuNs, c.exposedNs, id(c.path), c.line, id(c.delayPath), c.delayLine, c.delayGapNs});
    }
    ranks.push_back({{"rank", v.rank}, {"localRank", v.localRank}, {"worldSize", v.worldSize}, {"host", v.host},
                     {"launcher", v.launcher}, {"job", v.jobId}, {"log", v.logPath}, {"pid", v.pid},
                     {"realtimeOffsetNs", v.realtimeOffsetNs}, {"gpuTiming", v.gpuTiming}, {"runNs", v.runNs},
                     {"computeNs", v.computeNs}, {"commNs", v.commNs}, {"exposedNs", v.exposedNs},
                     {"ncclCalls", v.ncclCalls}, {"omittedCollectives", v.omittedCollectives + v.collectives.size() - n},
                     {"notes", v.notes}, {"strings", strings}, {"collectiveFields", kFields}, {"collectives", rows}});
  }
  return {{"streamlintRankSummary", kRankSummaryVersion}, {"ranks", ranks}};
}

bool isSummaryInput(const std::string& input) {
  struct stat st;
  if (stat(input.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) return endsWith(input, ".json");
  return filesWithSuffix(input, ".slog").empty() && !filesWithSuffix(input, ".json").empty();
}

namespace {

// The *.json of a directory that are files; the rest (FIFOs, devices, links to them) are named
// and skipped.
std::vector<std::string> summaryFilesIn(const std::string& dir) {
  std::vector<std::string> files;
  for (auto& f : filesWithSuffix(dir, ".json")) {
    if (isRegularFile(f)) files.push_back(std::move(f));
    else std::cerr << "streamlint report: " << f << ": skipped: not a regular file\n";
  }
  return files;
}

// The ranks must be one job's: a summary left in the directory by an earlier job merged as
// extra ranks, and SL906 then aligned two jobs' collectives ("waited 1900800 s"). Ranks that
// made NCCL calls appear once each (a DataLoader worker shares its rank's number but makes
// none), all agree on the world size and stay below it, and name at most one job id.
bool checkOneJob(const std::vector<RankView>& views, const std::vector<std::string>& from, std::string& error) {
  std::map<int, size_t> byRank;
  size_t world = 0, job = 0;
  for (size_t i = 0; i < views.size(); ++i) {
    const RankView& v = views[i];
    if (v.worldSize > 0 && views[world].worldSize <= 0) world = i;
    if (!v.jobId.empty() && views[job].jobId.empty()) job = i;
    if (v.worldSize > 0 && views[world].worldSize != v.worldSize) {
      error = "world size " + std::to_string(views[world].worldSize) + " in " + from[world] + " but " +
              std::to_string(v.worldSize) + " in " + from[i] + ": these summaries are of different jobs";
      return false;
    }
    if (!v.jobId.empty() && v.jobId != views[job].jobId) {
      error = "job " + views[job].jobId + " in " + from[job] + " but job " + v.jobId + " in " + from[i] +
              ": merge one job's summaries at a time";
      return false;
    }
    if (v.rank < 0 || v.ncclCalls == 0) continue;
    if (v.worldSize > 0 && v.rank >= v.worldSize) {
      error = from[i] + ": rank " + std::to_string(v.rank) + " in a world of size " + std::to_string(v.worldSize);
      return false;
    }
    auto [it, fresh] = byRank.emplace(v.rank, i);
    if (!fresh) {
      error = "rank " + std::to_string(v.rank) + " twice: in " + from[it->second] + " and in " + from[i] +
              " (a summary of an earlier job left in the directory?)";
      return false;
    }
  }
  return true;
}

}  // namespace

bool readRankSummaries(const std::vector<std::string>& inputs, std::vector<RankView>& out, std::string& error) {
  std::vector<std::string> from;  // the file of each view, for the errors
  for (const auto& input : inputs) {
    struct stat st;
    if (stat(input.c_str(), &st) != 0) { error = input + ": no such file or directory"; return false; }
    std::vector<std::string> files = S_ISDIR(st.st_mode) ? summaryFilesIn(input) : std::vector<std::string>{input};
    if (files.empty()) { error = input + ": no rank summaries (*.json files) here"; return false; }
    for (const auto& f : files) {
      if (!readOne(f, out, error)) return false;
      from.resize(out.size(), f);
    }
  }
  return checkOneJob(out, from, error);
}

}  // namespace sl::runtime
