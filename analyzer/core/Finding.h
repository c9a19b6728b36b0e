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

struct Finding {
  std::string ruleId;  // "SL401"; "parse-error" / "input-error" for diagnostics about inputs
  Severity severity = Severity::Warning;
  std::string path;
  Loc loc;
  std::string message;  // problem, consequence, remedy; writers append " [SLnnn]"
  std::vector<RelatedLocation> notes;
  nlohmann::json properties = nlohmann::json::object();  // runtime evidence etc.
};

// Orders findings by path, line, column, rule: stable output whatever the thread schedule.
void sortFindings(std::vector<Finding>& findings);

}  // namespace sl
