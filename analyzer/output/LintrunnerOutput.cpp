// PyTorch lintrunner's LintMessage: one JSON object per line on stdout
// (https://github.com/suo/lintrunner). lintrunner treats a failing linter command as broken,
// so input errors are messages here too and `check` exits 0 in this format.
#include <filesystem>

#include "core/TextEdits.h"
#include "output/Output.h"

namespace sl {
namespace {

// lintrunner resolves relative paths against its own directory, not the linter's: absolute
// paths are unambiguous.
std::string absolute(const std::string& path) {
  std::error_code ec;
  return std::filesystem::absolute(path, ec).lexically_normal().string();
}

// lintrunner's severities are error, warning, advice, disabled.
const char* severity(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "advice";
}

nlohmann::json message(const Finding& f) {
  std::string description = f.message;
  for (const auto& n : f.notes)
    description += "\n" + n.path + ":" + std::to_string(n.loc.line) + ": note: " + n.message;
  nlohmann::json j = {{"path", absolute(f.path)},
                      {"line", nullptr},
                      {"char", nullptr},
                      {"code", "STREAMLINT"},
                      {"severity", severity(f.severity)},
                      {"name", f.ruleId},
                      {"description", description},
                      {"original", nullptr},
                      {"replacement", nullptr}};
  if (f.loc.line) j["line"] = f.loc.line;
  if (f.loc.col) j["char"] = f.loc.col;
  // lintrunner applies a patch as the whole file before and after (`lintrunner -a`).
  if (!f.fixes.empty()) {
    std::string err;
    if (auto file = SourceFile::load(f.path, err)) {
      const std::string original(file->text());
      j["original"] = original;
      j["replacement"] = applyEdits(original, f.fixes.front().edits);
    }
  }
  return j;
}

}  // namespace

void writeLintrunner(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o) {
  for (const auto& d : o.diagnostics) os << message(d).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  for (const auto& f : findings) os << message(f).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace sl
