#include "runtime/Symbolizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/Pairing.h"
#include "streamlint/LibraryModules.h"

namespace sl::runtime {

namespace {

std::string baseName(const std::string& p) {
  auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string findTool() {
  if (const char* t = getenv("SL_ADDR2LINE"); t && *t) return t;
  const char* path = getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string d;
  while (std::getline(dirs, d, ':'))
    if (!d.empty() && access((d + "/addr2line").c_str(), X_OK) == 0) return d + "/addr2line";
  return "";
}

}  // namespace

bool isRuntimeModule(const std::string& path) { return slog::isLibraryModule(path.c_str()); }

// nvcc's host-side wrapper of a kernel carries the `__global__` declaration's line; inlined into
// the launching function, it would hide the line of the launch.
bool isKernelWrapper(const std::string& file, uint32_t line) {
  static std::map<std::pair<std::string, uint32_t>, bool> seen;
  auto [it, fresh] = seen.emplace(std::make_pair(file, line), false);
  if (!fresh) return it->second;
  // The log names the recording machine's path; the source may sit elsewhere here.
  std::ifstream in(localSourcePath(file, sourceRoots()));
  std::string text;
  for (uint32_t n = 1; n <= line && std::getline(in, text); ++n) {}
  return it->second = in && text.find("__global__") != std::string::npos;
}

bool isLibrarySource(const std::string& file) {
  // Not all of /opt/: containers keep the user's own code there too (/opt/app); these are the
  // trees that hold libraries' sources (NGC's PyTorch and apex builds, conda, NVIDIA's, ROCm's).
  static const char* kDirs[] = {"/usr/include/", "/usr/lib/", "/usr/local/cuda", "/targets/x86_64-linux/include/",
                                "/site-packages/", "/dist-packages/", "/opt/pytorch/", "/opt/conda/",
                                "/opt/nvidia/", "/opt/rocm", "/opt/hpcx/",
                                ".cudafe1.stub.c", "/tmp/tmpxft_"};  // nvcc's generated launch stubs
  return std::any_of(std::begin(kDirs), std::end(kDirs),
                     [&](const char* d) { return file.find(d) != std::string::npos; });
}

bool isLibraryCode(const std::string& path) {
  static const char* kParts[] = {"/torchinductor_", "/torch/", "/lib/python3"};
  return isLibrarySource(path) || (!path.empty() && path[0] == '<') ||
         std::any_of(std::begin(kParts), std::end(kParts), [&](const char* p) { return path.find(p) != std::string::npos; });
}

void Symbolizer::add(const std::string& module, uint64_t offset) {
  if (done_.count({module, offset})) return;
  auto& offsets = pending_[module];
  offsets.push_back(offset);
  // Deduplicated as they pile up: a long log queues the same few return addresses millions of
  // times (8 bytes each, held until run()); distinct ones are few.
  if (offsets.size() >= 4096 && (offsets.size() & (offsets.size() - 1)) == 0) {
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  }
}

void Symbolizer::run() {
  std::string tool = findTool();
  for (auto& [module, offsets] : pending_) {
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    for (uint64_t off : offsets) done_[{module, off}] = NativeSite{module, off, "", "", 0};
    std::string file = module;
    for (const auto& d : searchDirs_)
      if (access(file.c_str(), R_OK) != 0) file = d + "/" + baseName(module);
    if (tool.empty() || access(file.c_str(), R_OK) != 0) continue;
    // -a prints each address before its (function, file:line) pairs; -i adds inlined callers
    // after the innermost one. We keep the innermost frame in the user's code: a `<<<>>>` launch
    // or cudaMalloc<T> is inlined from CUDA's headers into the line that the user wrote.
    std::string cmd = shellQuote(tool) + " -a -C -f -i -e " + shellQuote(file);
    for (uint64_t off : offsets) {
      char hex[32];
      snprintf(hex, sizeof hex, " 0x%llx", static_cast<unsigned long long>(off));
      cmd += hex;
    }
    cmd += " 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) continue;
    char line[4096];
    NativeSite* cur = nullptr;
    int pairLine = 0;
    std::string function;
    while (fgets(line, sizeof line, p)) {
      std::string s(line);
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
      if (s.rfind("0x", 0) == 0) {
        uint64_t off = strtoull(s.c_str(), nullptr, 16);
        auto it = done_.find({module, off});
        cur = it == done_.end() ? nullptr : &it->second;
        pairLine = 0;
        continue;
      }
      if (!cur) continue;
      if (++pairLine % 2 == 1) { function = s != "??" ? s : ""; continue; }
      auto colon = s.rfind(':');
      if (colon == std::string::npos || s.compare(0, 2, "??") == 0) continue;
      bool first = pairLine == 2;
      std::string file = s.substr(0, colon);
      uint32_t line = uint32_t(strtoul(s.c_str() + colon + 1, nullptr, 10));
      if (!first && !(cur->file.empty() || isLibrarySource(cur->file) || isKernelWrapper(cur->file, cur->line)))
        continue;
      if (!first && (isLibrarySource(file) || isKernelWrapper(file, line))) continue;
      cur->function = function;
      cur->file = file;
      cur->line = line;  // from "N (discriminator k)"
    }
    pclose(p);
  }
  pending_.clear();
}

NativeSite Symbolizer::lookup(const std::string& module, uint64_t offset) const {
  auto it = done_.find({module, offset});
  return it == done_.end() ? NativeSite{module, offset, "", "", 0} : it->second;
}

}  // namespace sl::runtime
