// See GpuGuards.h.
#include "cxx/GpuGuards.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace sl::cxx {

namespace {

// What makes a guarded branch GPU stream code: fragments of CUDA's and LibTorch's stream API and
// headers. A branch with only a debug sync (`#ifdef DEBUG_SYNC cudaDeviceSynchronize();`) has
// none of them, so debug switches stay off.
constexpr std::string_view kStreamCode[] = {
    "cudaStream", "cudaEvent", "CUDAStream", "CUDAEvent", "CUDAGuard", "StreamGuard",  // types, guards
    "<<<",                                                                              // launches
    "getCurrentCUDAStream", "getStreamFromPool", "cudaMemcpyAsync", "cudaMemsetAsync",
    "cudaLaunchKernel", "cuLaunchKernel", "CUstream", "CUevent",
    "cuda_runtime", "ATen/cuda/", "c10/cuda/", "<cuda.h>", "\"cuda.h\"",                  // headers
};

bool streamCode(std::string_view line) {
  for (auto frag : kStreamCode)
    if (line.find(frag) != std::string_view::npos) return true;
  return false;
}

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string stripComment(std::string s) {
  if (auto p = s.find("//"); p != std::string::npos) s.resize(p);
  for (size_t p; (p = s.find("/*")) != std::string::npos;) {
    size_t e = s.find("*/", p + 2);
    s.erase(p, e == std::string::npos ? std::string::npos : e + 2 - p);
  }
  return s;
}

// Macros an `#if` expression tests: `defined(X)`/`defined X` and bare switches, each positive or
// under a `!`. Bare names count only in an expression of switches (no comparison or arithmetic)
// and not when called (`TORCH_VERSION_GE(2, 1)`).
void testedMacros(std::string_view e, std::set<std::string>& pos, std::set<std::string>& neg) {
  bool values = false;
  for (size_t i = 0; i < e.size(); ++i) {
    char c = e[i];
    bool logical = (c == '&' || c == '|') && i + 1 < e.size() && e[i + 1] == c;
    if (logical) { ++i; continue; }
    if (std::string_view("<>=+-*/%^~?:").find(c) != std::string_view::npos ||
        (c == '!' && i + 1 < e.size() && e[i + 1] == '='))
      values = true;
  }
  bool bang = false;
  for (size_t i = 0; i < e.size();) {
    char c = e[i];
    if (c == '!') { bang = true; ++i; continue; }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < e.size() && identChar(e[i])) ++i;
      bang = false;
      continue;
    }
    if (!identStart(c)) {
      if (c != '(' && c != ' ' && c != '\t') bang = false;
      ++i;
      continue;
    }
    size_t b = i;
    while (i < e.size() && identChar(e[i])) ++i;
    std::string name(e.substr(b, i - b));
    size_t j = i;
    while (j < e.size() && (e[j] == ' ' || e[j] == '\t')) ++j;
    if (name == "defined") {
      bool paren = j < e.size() && e[j] == '(';
      if (paren) ++j;
      while (j < e.size() && (e[j] == ' ' || e[j] == '\t')) ++j;
      size_t nb = j;
      while (j < e.size() && identChar(e[j])) ++j;
      if (j > nb) (bang ? neg : pos).insert(std::string(e.substr(nb, j - nb)));
      if (paren) j = std::min(e.size(), e.find(')', j) == std::string_view::npos ? e.size() : e.find(')', j) + 1);
      i = j;
    } else if (!(j < e.size() && e[j] == '(') && !values) {
      (bang ? neg : pos).insert(name);
    }
    bang = false;
  }
}

struct Branch {
  std::set<std::string> pos, neg;
  bool gpu = false;
  unsigned line = 0;
};

}  // namespace

GpuGuards gpuGuardMacros(std::string_view text) {
  std::vector<std::vector<Branch>> stack;  // open conditionals, each its branches so far
  std::set<std::string> wanted, definedHere;
  std::vector<std::pair<unsigned, std::string>> asked;  // line, macro
  unsigned lineNo = 0;
  size_t at = 0;
  bool unguarded = false;  // stream code outside every conditional
  while (at < text.size()) {
    // One logical line: physical lines joined where they end in a backslash.
    std::string line;
    unsigned first = lineNo + 1;
    for (;;) {
      size_t nl = text.find('\n', at);
      std::string_view phys = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
      at = nl == std::string_view::npos ? text.size() : nl + 1;
      ++lineNo;
      if (!phys.empty() && phys.back() == '\r') phys.remove_suffix(1);
      if (!phys.empty() && phys.back() == '\\') { line.append(phys.substr(0, phys.size() - 1)); continue; }
      line.append(phys);
      break;
    }
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos) continue;
    if (line[p] != '#') {
      if (streamCode(line)) {
        for (auto& frame : stack) frame.back().gpu = true;
        unguarded |= stack.empty();
      }
      continue;
    }
    std::string d = stripComment(line.substr(p + 1));
    size_t k = d.find_first_not_of(" \t");
    if (k == std::string::npos) continue;
    size_t ke = k;
    while (ke < d.size() && identChar(d[ke])) ++ke;
    std::string word = d.substr(k, ke - k);
    std::string rest = d.substr(ke);
    if (word == "include" && streamCode(line)) {
      for (auto& frame : stack) frame.back().gpu = true;
    } else if (word == "define") {
      size_t b = rest.find_first_not_of(" \t");
      size_t e = b;
      while (e < rest.size() && identChar(rest[e])) ++e;
      if (b != std::string::npos && e > b) definedHere.insert(rest.substr(b, e - b));
    } else if (word == "if" || word == "ifdef" || word == "ifndef" || word == "elif" || word == "else") {
      Branch br;
      br.line = first;
      if (word == "ifdef" || word == "ifndef") {
        size_t b = rest.find_first_not_of(" \t");
        size_t e = b;
        while (b != std::string::npos && e < rest.size() && identChar(rest[e])) ++e;
        if (b != std::string::npos && e > b) (word == "ifdef" ? br.pos : br.neg).insert(rest.substr(b, e - b));
      } else if (word != "else") {
        testedMacros(rest, br.pos, br.neg);
      } else if (!stack.empty() && stack.back().size() == 1) {
        br.pos = stack.back()[0].neg;  // `#ifndef X ... #else`: the else runs with X
      }
      if (word == "if" || word == "ifdef" || word == "ifndef") stack.emplace_back();
      if (!stack.empty()) stack.back().push_back(std::move(br));
    } else if (word == "endif" && !stack.empty()) {
      for (const auto& br : stack.back())
        if (br.gpu)
          for (const auto& m : br.pos) asked.emplace_back(br.line, m);
      stack.pop_back();
    }
  }
  GpuGuards g;
  // A file whose stream code also runs unguarded is GPU code in every configuration: its
  // switches are features (`#ifdef FIXED`, `#ifdef USE_NCCL`), not the GPU configuration.
  if (unguarded) return g;
  for (const auto& [line, m] : asked) {
    if (m.empty() || m[0] == '_' || definedHere.count(m)) continue;  // the implementation's, or the file's own
    if (wanted.insert(m).second && (!g.line || line < g.line)) g.line = line;
  }
  g.macros.assign(wanted.begin(), wanted.end());
  return g;
}

std::string gpuGuardsNote(const GpuGuards& g) {
  std::string names, undef;
  for (const auto& m : g.macros) {
    names += (names.empty() ? "" : ", ") + m;
    undef += " -U" + m;
  }
  return "analysed as built for the GPU, with " + names + " defined: no compile command gives this file's flags, and " +
         (g.macros.size() == 1 ? "that guard keeps" : "those guards keep") +
         " its stream code (pass --" + undef + " to analyse the other configuration, or -p BUILD_DIR)";
}

}  // namespace sl::cxx
