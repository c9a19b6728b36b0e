// The shape of the table rules/CMakeLists.txt generates from the rule folders.
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "rules/Rule.h"

namespace sl::rules {

struct GeneratedRule {
  const char* id;
  const char* name;
  const char* docPath;
  const char* doc;
  std::vector<std::pair<const char*, const char*>> examples;
  std::unique_ptr<Rule> (*make)();
};

const std::vector<GeneratedRule>& generatedRules();

}  // namespace sl::rules
