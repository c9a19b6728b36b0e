#include <cctype>
#include <algorithm>
#include <sstream>

#include "rules/EventIndex.h"
#include "rules/GeneratedRules.h"
#include "rules/Rule.h"

namespace sl {
namespace {

// The header line of rule.md: "severity: note · kind: performance · languages: python, cpp".
std::string headerField(const std::string& doc, const std::string& key) {
  size_t line = doc.find("\nseverity:");
  if (line == std::string::npos) return "";
  std::string header = doc.substr(line + 1, doc.find('\n', line + 1) - line - 1);
  size_t p = header.find(key + ":");
  if (p == std::string::npos) return "";
  p += key.size() + 1;
  size_t e = header.find("\xc2\xb7", p);  // the '·' separating fields
  std::string v = header.substr(p, e == std::string::npos ? std::string::npos : e - p);
  v.erase(0, v.find_first_not_of(' '));
  v.erase(v.find_last_not_of(' ') + 1);
  return v;
}

Severity severityFromDoc(const std::string& doc) {
  std::string s = headerField(doc, "severity");
  return s == "error" ? Severity::Error : s == "note" ? Severity::Note : Severity::Warning;
}

// The one-line `summary:` under the header line (what list-rules prints).
std::string summaryLine(const std::string& doc) {
  size_t p = doc.find("\nsummary:");
  if (p == std::string::npos) return "";
  p += 9;
  std::string v = doc.substr(p, doc.find('\n', p) - p);
  v.erase(0, v.find_first_not_of(' '));
  return v;
}

// First paragraph under "## What it does", joined into one line.
std::string summaryFromDoc(const std::string& doc) {
  size_t p = doc.find("## What it does");
  if (p == std::string::npos) return "";
  std::istringstream in(doc.substr(doc.find('\n', p) + 1));
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.empty()) { if (!out.empty()) break; continue; }
    if (line.rfind("#", 0) == 0) break;
    out += (out.empty() ? "" : " ") + line;
  }
  return out;
}

}  // namespace

const std::vector<RuleInfo>& ruleCatalogue() {
  static const std::vector<RuleInfo> all = [] {
    std::vector<RuleInfo> v;
    for (const auto& g : rules::generatedRules()) {
      RuleInfo r;
      r.id = g.id;
      r.name = g.name;
      r.doc = g.doc;
      r.helpUri = g.docPath;
      r.severity = severityFromDoc(r.doc);
      r.kind = headerField(r.doc, "kind");
      r.summary = summaryFromDoc(r.doc);
      r.brief = summaryLine(r.doc);
      if (r.brief.empty()) r.brief = r.summary;
      for (const auto& [n, t] : g.examples) r.examples.emplace_back(n, t);
      r.runtime = g.make == nullptr;
      v.push_back(std::move(r));
    }
    return v;
  }();
  return all;
}

std::string ruleCode(std::string code) {
  for (char& c : code) c = char(std::toupper(static_cast<unsigned char>(c)));
  return code;
}

const RuleInfo* findRule(const std::string& id) {
  const std::string want = ruleCode(id);
  for (const auto& r : ruleCatalogue())
    if (r.id == want) return &r;
  return nullptr;
}

bool namesAnyRule(const std::string& code) {
  const std::string want = ruleCode(code);
  // "SL" then digits: "S" or "" would name every rule by accident (`ignore = ["S"]`).
  if (want.size() < 2 || want.compare(0, 2, "SL") != 0 ||
      want.find_first_not_of("0123456789", 2) != std::string::npos)
    return false;
  for (const auto& r : ruleCatalogue())
    if (r.id.rfind(want, 0) == 0) return true;
  return false;
}

std::unique_ptr<Rule> makeRule(const std::string& id) {
  for (const auto& g : rules::generatedRules())
    if (id == g.id) return g.make ? g.make() : nullptr;
  return nullptr;
}

Finding& RuleContext::report(Loc loc, std::string message) {
  Finding f;
  f.ruleId = info_.id;
  f.severity = info_.severity;
  f.path = module_.path;
  f.loc = loc;
  f.message = std::move(message);
  out_.push_back(std::move(f));
  return out_.back();
}

// A finding is as sure as the least sure event at its location, and carries the chain that
// made those values CUDA tensors: properties for SARIF/JSON, notes (after the rule's own) for the
// links that are not on the finding's own line, so a reviewer sees *why* in seconds.
void attachEvidence(Finding& f, const model::Module& m) {
  // A rule that guesses (a producer it cannot see) says so itself; the events can only lower it.
  model::Confidence conf = model::Confidence::High;
  if (auto it = f.properties.find("confidence"); it != f.properties.end() && it->is_string())
    conf = model::Confidence(std::max(0, model::parseConfidence(it->get<std::string>())));
  const model::Event* best = nullptr;
  auto weigh = [&](const model::Event& e) {
    if (e.confidence < conf || (!best && !e.evidence.empty())) best = &e;
    conf = std::min(conf, e.confidence);
  };
  if (const auto* here = rules::eventsAt(m, f.loc)) {  // the same events, in the same order
    for (const model::Event* e : *here) weigh(*e);
  } else {
    for (const auto& fn : m.functions)
      for (const auto& e : fn.events)
        if (e.loc == f.loc) weigh(e);
  }
  f.properties["confidence"] = model::confidenceName(conf);
  if (!best || best->evidence.empty()) return;
  nlohmann::json chain = nlohmann::json::array();
  for (const auto& ev : best->evidence) chain.push_back({{"line", ev.loc.line}, {"message", ev.text}});
  f.properties["evidence"] = std::move(chain);
  const auto& links = best->evidence;
  if (conf == model::Confidence::High) {  // facts the code states: show where, if elsewhere
    for (const auto& ev : links)
      if (ev.loc.line != f.loc.line && ev.loc.line > 0) f.notes.push_back({m.path, ev.loc, ev.text});
    return;
  }
  // An inference: the whole chain in one note at its origin, so the reasoning reads in order.
  std::string why = std::string(model::confidenceName(conf)) + " confidence: " + links.front().text;
  for (size_t i = 1; i < links.size(); ++i)
    why += "; " + links[i].text + (links[i].loc.line == links.front().loc.line
                                       ? std::string()
                                       : " (line " + std::to_string(links[i].loc.line) + ")");
  f.notes.push_back({m.path, links.front().loc, why});
}

void RuleContext::note(Finding& f, const std::string* path, Loc loc, std::string message) {
  f.notes.push_back({path ? *path : module_.path, loc, std::move(message)});
}

void RuleContext::note(Finding& f, Loc loc, std::string message) {
  f.notes.push_back({module_.path, loc, std::move(message)});
}

}  // namespace sl
