// The interface every static rule implements, and the catalogue the CLI and outputs read.
//
// A rule is one folder rules/SLnnn-name/ holding rule.md, rule.cpp and bad.*/good.* examples.
// rules/CMakeLists.txt generates the registry from the folder list (no hand-edited list):
// rule.cpp must define `std::unique_ptr<sl::Rule> sl::rules::make_SLnnn()`.
// A folder without rule.cpp documents a runtime rule (SL9xx) produced by `streamlint report`.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/Finding.h"
#include "model/StreamModel.h"

namespace sl {

struct RuleInfo {
  std::string id;        // "SL401"
  std::string name;      // "backward-in-side-stream"
  Severity severity = Severity::Warning;  // from the `severity:` line of rule.md
  // `kind:` on the same line: "correctness" (wrong results: on everywhere) or "performance"
  // (a cost: off in deliberate code such as tests unless the project asks, driver/DeliberateCode.h).
  std::string kind;
  bool performance() const { return kind == "performance"; }
  std::string summary;   // first paragraph of "What it does"
  std::string brief;     // the `summary:` header line of rule.md: one line for list-rules
  std::string doc;       // rule.md verbatim
  std::string helpUri;   // repository-relative path of rule.md (SARIF helpUri: ruleDocsUrl)
  std::vector<std::pair<std::string, std::string>> examples;  // (file name, text): bad/good
  bool runtime = false;  // produced from runtime logs, not by a static check
};

// What a rule is given: one module, its call summary, and where to put findings.
class RuleContext {
 public:
  RuleContext(const RuleInfo& info, const model::Module& m, const model::ModuleSummary& s,
              std::vector<Finding>& out)
      : info_(info), module_(m), summary_(s), out_(out) {}
  const model::Module& module() const { return module_; }
  const model::ModuleSummary& summary() const { return summary_; }
  // Adds a finding of this rule at `loc` in the module's file; returns it to attach notes.
  Finding& report(Loc loc, std::string message);
  // Adds a note (related location in the same file) to `f`.
  void note(Finding& f, Loc loc, std::string message);
  // A note in another file (a callee's sync found through the project index).
  void note(Finding& f, const std::string* path, Loc loc, std::string message);

 private:
  const RuleInfo& info_;
  const model::Module& module_;
  const model::ModuleSummary& summary_;
  std::vector<Finding>& out_;
};

class Rule {
 public:
  virtual ~Rule() = default;
  // Languages the rule's examples cover are listed in rule.md; check() sees every module.
  virtual void check(RuleContext& ctx) const = 0;
};

// Sets `f.properties.confidence` from the events at the finding's location and appends their
// chain of evidence (why the values are CUDA tensors) as properties and notes.
void attachEvidence(Finding& f, const model::Module& m);

// The catalogue, in ID order (generated registry + embedded rule.md and examples).
const std::vector<RuleInfo>& ruleCatalogue();

// The rule's documentation page (SARIF helpUri, `explain`): `docsUrl` with `{id}` and `{name}`
// replaced (the config's `docs-url`); empty = kDefaultDocsUrl, the project's documentation site,
// one page per rule (its rule.md). A template without placeholders gets the id appended.
inline constexpr const char* kDefaultDocsUrl = "https://streamlint.dev/rules/{id}";
std::string ruleDocsUrl(const RuleInfo& rule, const std::string& docsUrl);
// A rule ID or prefix as the catalogue spells it: "sl3" -> "SL3" (IDs are accepted in any case).
std::string ruleCode(std::string code);
// Case-insensitive ("sl302" finds SL302).
const RuleInfo* findRule(const std::string& id);
// True when `code` is a rule ID or an ID prefix ("SL3", "SL": SL then digits) naming at least
// one rule, so a typo in
// --select/--ignore or the config never silently selects nothing. Case-insensitive.
bool namesAnyRule(const std::string& code);
// A fresh instance of a static rule, or nullptr for runtime-only rules.
std::unique_ptr<Rule> makeRule(const std::string& id);

}  // namespace sl
