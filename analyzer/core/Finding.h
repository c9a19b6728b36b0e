// What every producer of results (static rules, runtime analyses, parse errors) hands to the
// output writers. Kept free of LLVM and tree-sitter: the runtime side links it on GPU machines.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/SourceFile.h"

namespace sl {

enum class Severity { Note, Warning, Error };
const char* severityName(Severity s);  // "note", "warning", "error"

struct RelatedLocation {
  std::string path;
  Loc loc;
  std::string message;  // "produced on the current stream here"
};

// A text edit: replace [start, end) by `text`. Lines 1-based, columns 1-based byte offsets; an
// empty range inserts.
struct Edit {
  Loc start, end;
  std::string text;
};

// A mechanical fix of one finding (driver/Fixes.h): `--fix` applies it, SARIF `fixes` and
// lintrunner's `replacement` carry it.
struct Fix {
  std::string description;  // "replace default_stream() with current_stream()"
  std::vector<Edit> edits;
};

struct Finding {
  std::string ruleId;  // "SL401"; "parse-error" / "input-error" for diagnostics about inputs
  Severity severity = Severity::Warning;
  std::string path;
  Loc loc;
  std::string message;  // problem, consequence, remedy; writers append " [SLnnn]"
  std::vector<RelatedLocation> notes;
  nlohmann::json properties = nlohmann::json::object();  // runtime evidence etc.
  std::vector<Fix> fixes = {};  // at most one today; none when the rule has no safe mechanical fix
};

// Orders findings by path, line, column, rule: stable output whatever the thread schedule.
// Identical findings (same rule, place and message: two uses in one expression, `x * 2 + x`)
// are reported once.
void sortFindings(std::vector<Finding>& findings);

}  // namespace sl
