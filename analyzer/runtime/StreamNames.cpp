#include "runtime/StreamNames.h"

#include <map>
#include <regex>

#include "core/SourceFile.h"
#include "runtime/Symbolizer.h"

namespace sl::runtime {

namespace {

size_t indentOf(const std::string& l) {
  size_t i = 0;
  while (i < l.size() && (l[i] == ' ' || l[i] == '\t')) ++i;
  return i;
}

bool blankOrComment(const std::string& l) {
  size_t i = indentOf(l);
  return i == l.size() || l[i] == '#';
}

// `with torch.cuda.stream(NAME):` (also `with torch.cuda.stream(NAME), other:`), NAME a plain or
// dotted identifier: an inline `torch.cuda.Stream()` names no variable.
const std::regex& withStream() {
  static const std::regex re(R"(^\s*(?:async\s+)?with\s+.*\bstream\(\s*([A-Za-z_][\w.]*)\s*\))");
  return re;
}
// A keyword argument on the line itself: `x.record_stream(s)` is no launch, `stream=NAME` is.
const std::regex& streamKeyword() {
  static const std::regex re(R"(\bstream\s*=\s*([A-Za-z_][\w.]*)\s*[,)])");
  return re;
}
const std::regex& launchStream() {  // kernel<<<grid, block, shared, NAME>>>
  static const std::regex re(R"(<<<[^,>]+,[^,>]+,[^,>]+,\s*([A-Za-z_][\w.]*)\s*>>>)");
  return re;
}
const std::regex& asyncCallStream() {  // cudaMemcpyAsync(dst, src, n, kind, NAME);
  static const std::regex re(R"(\b(?:cuda|cu)\w*Async\s*\(.*,\s*([A-Za-z_][\w.]*)\s*\)\s*;?\s*$)");
  return re;
}

// `c10::cuda::CUDAStreamGuard guard(side);` (also OptionalCUDAStreamGuard, brace init).
const std::regex& streamGuard() {
  static const std::regex re(R"(StreamGuard\s+\w+\s*[({]\s*([A-Za-z_][\w.]*)\s*[)}])");
  return re;
}

// C++: a stream guard earlier in an enclosing block of the line (braces counted upwards; a
// guard inside a block that closed before the line does not count), up to the function's start.
std::string enclosingGuard(const std::vector<std::string>& lines, size_t at) {
  int depth = 0;  // > 0: inside a block that closed before `at`
  for (size_t i = at; i-- > 0 && at - i <= 200;) {
    const std::string& l = lines[i];
    for (size_t k = l.size(); k-- > 0;) depth += l[k] == '}' ? 1 : l[k] == '{' ? -1 : 0;
    std::smatch m;
    if (depth <= 0 && std::regex_search(l, m, streamGuard())) return m[1];
    if (depth < 0 && !l.empty() && l[0] != ' ' && l[0] != '\t' && l[0] != '{' && l[0] != '#') break;  // the function
  }
  return "";
}

}  // namespace

std::string streamVariableAt(const std::vector<std::string>& lines, size_t at, bool python) {
  if (at >= lines.size()) return "";
  std::smatch m;
  const std::string& here = lines[at];
  if (!python) {
    if (std::regex_search(here, m, launchStream()) || std::regex_search(here, m, asyncCallStream()))
      return m[1] == "0" || m[1] == "nullptr" || m[1] == "NULL" ? "" : std::string(m[1]);
    return enclosingGuard(lines, at);
  }
  if (std::regex_search(here, m, streamKeyword())) return m[1];
  // Up through the enclosing blocks (each less indented than the last) to the function's start.
  size_t indent = indentOf(here);
  for (size_t i = at; i-- > 0 && indent > 0;) {
    const std::string& l = lines[i];
    if (blankOrComment(l) || indentOf(l) >= indent) continue;
    indent = indentOf(l);
    if (std::regex_search(l, m, withStream())) return m[1];
    size_t s = indentOf(l);
    if (l.compare(s, 4, "def ") == 0 || l.compare(s, 10, "async def ") == 0 || l.compare(s, 6, "class ") == 0) break;
  }
  return "";
}

void nameStreams(ProcessTimeline& t) {
  // Ops per (stream, launching location): only the calls' own user lines, not attributed ones
  // (autograd's threads launch on the forward's stream, wherever the backward() line is).
  std::map<std::pair<uint32_t, uint32_t>, std::map<int, size_t>> opsAt;
  for (const auto& op : t.ops) {
    if (op.call < 0 || size_t(op.call) >= t.calls.size()) continue;
    const HostCall c = t.calls[size_t(op.call)];
    if (c.loc < 0 || size_t(c.loc) >= t.locations.size()) continue;
    const SourceLoc& l = t.locations[size_t(c.loc)];
    if (!l.line || isLibraryCode(l.path)) continue;
    opsAt[{op.device, op.stream}][c.loc]++;
  }
  std::map<std::string, std::vector<std::string>> files;  // path -> lines ("" unreadable)
  auto linesOf = [&](const std::string& path) -> const std::vector<std::string>& {
    auto [it, fresh] = files.emplace(path, std::vector<std::string>());
    if (fresh) {
      std::string error;
      if (auto src = SourceFile::load(path, error))
        for (uint32_t i = 1; i <= src->lineCount(); ++i) it->second.emplace_back(src->line(i));
    }
    return it->second;
  };
  for (auto& s : t.streams) {
    if (s.legacyDefault) continue;
    auto at = opsAt.find({s.device, s.id});
    if (at == opsAt.end()) continue;
    std::map<std::string, size_t> votes;
    for (const auto& [loc, n] : at->second) {
      const SourceLoc& l = t.locations[size_t(loc)];
      const auto& lines = linesOf(l.path);
      if (std::string name = streamVariableAt(lines, l.line - 1, l.python); !name.empty()) votes[name] += n;
    }
    size_t best = 0;
    for (const auto& [name, n] : votes)
      if (n > best) best = n, s.name = name;
  }
}

}  // namespace sl::runtime
