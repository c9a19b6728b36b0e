#include "driver/Fixes.h"

#include "core/TextEdits.h"
#include "driver/FileWalk.h"

#include <algorithm>
#include <cctype>

namespace sl {
namespace {

// Findings are in Python files or in C/C++ (sources and the headers their code came from).
bool isCpp(const std::string& path) { return classifyPath(path) != InputLang::Python; }

std::string_view indentOf(std::string_view line) {
  return line.substr(0, line.find_first_not_of(" \t") == std::string_view::npos ? line.size()
                                                                               : line.find_first_not_of(" \t"));
}

// The previous non-blank line, without a trailing `#` / `//` comment (naively: good enough for
// deciding whether it ends a statement).
std::string_view previousCode(const SourceFile& file, uint32_t line, bool cpp) {
  for (uint32_t l = line; l-- > 1;) {
    std::string_view t = file.line(l);
    if (size_t c = t.find(cpp ? "//" : "#"); c != std::string_view::npos) t = t.substr(0, c);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    if (!t.empty()) return t;
  }
  return {};
}

// SL103: the default stream named where the current one is meant.
void fixDefaultStream(Finding& f, const SourceFile& file) {
  const bool cpp = isCpp(f.path);
  const std::string from = cpp ? "getDefaultCUDAStream" : ".default_stream(";
  const std::string to = cpp ? "getCurrentCUDAStream" : ".current_stream(";
  std::string_view text = file.line(f.loc.line);
  // The occurrence at or after the finding's column, else the only one on the line. A bare
  // `default_stream()` (imported by name) is left alone: the fix would need an import.
  size_t at = text.find(from, f.loc.col > 0 ? f.loc.col - 1 : 0);
  if (at == std::string_view::npos && text.find(from) == text.rfind(from)) at = text.find(from);
  if (at == std::string_view::npos) return;
  Edit e{{f.loc.line, uint32_t(at + 1)}, {f.loc.line, uint32_t(at + 1 + from.size())}, to};
  f.fixes.push_back({cpp ? "use getCurrentCUDAStream()" : "use current_stream()", {e}});
}

// SL501: a sync before the statement that reads the closing clock, when that statement starts
// on the flagged line and is an assignment or a return (nothing whose meaning an inserted line
// before it could change, such as `elif` or a one-line loop).
void fixTimerSync(Finding& f, const SourceFile& file) {
  const bool cpp = isCpp(f.path);
  std::string_view text = file.line(f.loc.line);
  std::string_view indent = indentOf(text);
  std::string_view code = text.substr(indent.size());
  std::string_view prev = previousCode(file, f.loc.line, cpp);
  std::string sync;
  if (cpp) {
    if (!prev.empty() && !prev.ends_with(";") && !prev.ends_with("{") && !prev.ends_with("}")) return;
    const std::string_view all = file.text();
    if (f.path.ends_with(".cu") || all.find("cuda_runtime") != std::string::npos) sync = "cudaDeviceSynchronize();";
    else if (all.find("torch::") != std::string::npos) sync = "torch::cuda::synchronize();";
    else return;
  } else {
    if (!prev.empty() && (prev.ends_with("\\") || prev.ends_with("(") || prev.ends_with("[") ||
                          prev.ends_with("{") || prev.ends_with(","))) return;
    bool isReturn = code.rfind("return ", 0) == 0;
    size_t eq = code.find('=');
    bool isAssign = eq != std::string_view::npos && eq > 0 && code.substr(0, eq).find('(') == std::string_view::npos &&
                    (eq + 1 >= code.size() || code[eq + 1] != '=');
    if (!isReturn && !isAssign) return;
    if (file.text().find("import torch") == std::string::npos) return;
    sync = "torch.cuda.synchronize()";
  }
  Edit e{{f.loc.line, 1}, {f.loc.line, 1}, std::string(indent) + sync + "\n"};
  f.fixes.push_back({"synchronize the device before reading the clock", {e}});
}

}  // namespace

void attachFix(Finding& f, const SourceFile& file) {
  if (!f.loc.line || f.loc.line > file.lineCount() || f.path != file.path()) return;
  if (f.ruleId == "SL103") fixDefaultStream(f, file);
  else if (f.ruleId == "SL501") fixTimerSync(f, file);
}

}  // namespace sl
