// Writers for findings: clang-style text, JSON, SARIF 2.1.0, GitHub workflow annotations and
// PyTorch lintrunner messages. Shared by `check` and `report`.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "core/Finding.h"

namespace sl {

enum class Format { Text, Concise, Json, Sarif, Github, Lintrunner };
// Parses "text" | "concise" | "json" | "sarif" | "github" | "lintrunner"; false on anything else.
bool parseFormat(const std::string& s, Format& out);

struct RuleInfo;  // rules/Registry.h

struct OutputOptions {
  Format format = Format::Text;
  bool color = false;            // ANSI colours in text
  bool showSource = true;        // text: echo the source line with a caret
  bool summary = true;           // text: the "N findings (...)" line (off with -q)
  std::string toolCommand;       // SARIF invocation commandLine (commandLine() below)
  std::vector<std::string> inputErrors;  // reported as SARIF toolExecutionNotifications
  const std::vector<RuleInfo>* rules = nullptr;  // SARIF rule metadata (help from rule.md)
  std::string docsUrl;  // the config's `docs-url` for SARIF helpUri ("" = the default site)
  std::vector<Finding> diagnostics;      // lintrunner: input errors, reported as messages
  // `check`: performance notes left out as deliberate code (tests, `__repr__`...;
  // properties["deliberate"] says why). Text: counted on the summary line; JSON: "hidden";
  // --statistics: per rule and reason.
  std::vector<Finding> hidden;
  // What a whole run measured (`report`: streams' busy and overlapped time): JSON "run", SARIF
  // run.properties. Null: left out.
  nlohmann::json runProperties;
};

// The command as a shell would re-run it: `streamlint check --select SL3 'my dir'`. SARIF's
// invocation.commandLine, so a code-scanning alert says how it was produced.
std::string commandLine(const std::string& tool, const std::vector<std::string>& args);
// "N performance notes in deliberate code hidden (...; --check-deliberate-code shows them)".
std::string hiddenSummary(size_t n);
// "5 findings (SL303: 2, SL401: 1); 2 fixable with --fix": the text summary line, also
// concise's in `check` (ruff's "Found N errors." after either format).
std::string findingsSummary(const std::vector<Finding>& findings, size_t hidden);
// "1 file" / "2 files": counts in summaries are spelled as English reads them.
std::string plural(size_t n, const char* one, const char* many);
// Text: `path:line:col: severity: message [ID]`, the source line, a caret, then notes.
void writeText(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);
// Concise: the first line of text output only, one line per finding (grep, editors, CI logs).
void writeConcise(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);
void writeJson(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);
void writeSarif(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);
// GitHub Actions workflow commands: `::error file=...,line=...,col=...,title=...::message`.
void writeGithub(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);
// lintrunner LintMessage JSON, one object per line; `diagnostics` (input errors) are messages
// too, because lintrunner treats a non-zero exit as a broken linter.
void writeLintrunner(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);
void writeFindings(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);
// `--statistics`: one line per rule (count, ID, name), most frequent first; JSON in json format.
void writeStatistics(std::ostream& os, const std::vector<Finding>& findings, const OutputOptions& o);

}  // namespace sl
