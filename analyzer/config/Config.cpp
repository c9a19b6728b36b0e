#include "config/Config.h"

#include "model/StreamModel.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <toml++/toml.h>

#include "config/TomlCodePoints.h"
#include "python/PyApiTable.h"
#include "rules/Rule.h"

namespace sl {
namespace fs = std::filesystem;
namespace {

const char* kKeys[] = {"select", "ignore", "per-file-ignores", "severity", "exclude", "extend-exclude", "languages",
                       "check-deliberate-code", "sync-functions", "backward-functions", "stream-wrappers",
                       "min-confidence", "keep-going", "docs-url"};

// Reading one table; the first problem found is kept, with the key it concerns.
struct Reader {
  std::string where;  // "pyproject.toml [tool.streamlint]"
  std::string error;

  bool fail(const std::string& key, const std::string& why) {
    if (error.empty()) error = where + ": '" + key + "' " + why;
    return false;
  }

  bool strings(const toml::node& n, const std::string& key, std::vector<std::string>& out) {
    const toml::array* a = n.as_array();
    if (!a) return fail(key, "must be an array of strings");
    for (const auto& e : *a) {
      const auto* s = e.as_string();
      if (!s) return fail(key, "must be an array of strings");
      out.push_back(s->get());
    }
    return true;
  }

  // Rule IDs or prefixes that name at least one rule: a typo must not silently select nothing.
  bool codes(const toml::node& n, const std::string& key, std::vector<std::string>& out) {
    if (!strings(n, key, out)) return false;
    for (auto& c : out) {
      if (!namesAnyRule(c)) return fail(key, "names unknown rule '" + c + "'");
      c = ruleCode(c);
    }
    return true;
  }

  bool globs(const std::vector<std::string>& patterns, const std::string& key, std::vector<Glob>& out) {
    for (const auto& p : patterns) {
      // std::regex recurses per pattern character: a pathological glob would overflow the stack.
      if (p.size() > 512) return fail(key, "has a glob longer than 512 characters");
      try {
        out.emplace_back(p);
      } catch (const std::regex_error&) {
        return fail(key, "has a malformed glob '" + p + "'");
      }
    }
    return true;
  }

  bool read(const toml::table& t, Config& c) {
    for (auto&& [k, v] : t) {
      std::string key(k.str());
      if (key == "select") {
        c.select.emplace();
        if (!codes(v, key, *c.select)) return false;
        if (c.select->empty()) return fail(key, "is empty: no rule would run (leave it out to run every rule)");
      } else if (key == "ignore") {
        if (!codes(v, key, c.ignore)) return false;
      } else if (key == "exclude" || key == "extend-exclude") {
        // There are no default excludes to replace (the walk's skipped directories are fixed),
        // so ruff's two keys mean the same here: a config written for ruff's habits works.
        std::vector<std::string> p;
        if (!strings(v, key, p) || !globs(p, key, c.exclude)) return false;
      } else if (key == "languages") {
        std::vector<std::string> names;
        if (!strings(v, key, names)) return false;
        c.languages.emplace();
        for (const auto& n : names) {
          std::string lang = languageName(n);
          if (lang.empty()) return fail(key, "names unknown language '" + n + "' (known: \"python\", \"cpp\")");
          c.languages->push_back(lang);
        }
      } else if (key == "per-file-ignores") {
        const toml::table* pt = v.as_table();
        if (!pt) return fail(key, "must be a table of glob = [rules]");
        for (auto&& [glob, rules] : *pt) {
          std::vector<std::string> ids;
          std::vector<Glob> g;
          std::string sub = key + "." + std::string(glob.str());
          if (!codes(rules, sub, ids) || !globs({std::string(glob.str())}, sub, g)) return false;
          c.perFileIgnores.emplace_back(std::move(g[0]), std::move(ids));
        }
      } else if (key == "severity") {
        const toml::table* st = v.as_table();
        if (!st) return fail(key, "must be a table of rule = \"error\"|\"warning\"|\"note\"");
        for (auto&& [rule, sev] : *st) {
          std::string sub = key + "." + std::string(rule.str());
          std::vector<std::string> one;
          toml::array probe{std::string(rule.str())};
          if (!codes(probe, sub, one)) return false;
          const auto* s = sev.as_string();
          std::string name = s ? s->get() : "";
          if (name == "error") c.severity[one[0]] = Severity::Error;
          else if (name == "warning") c.severity[one[0]] = Severity::Warning;
          else if (name == "note") c.severity[one[0]] = Severity::Note;
          else return fail(sub, "must be \"error\", \"warning\" or \"note\"");
        }
      } else if (key == "check-deliberate-code") {
        const auto* b = v.as_boolean();
        if (!b) return fail(key, "must be true or false");
        c.checkDeliberateCode = b->get();
      } else if (key == "min-confidence") {
        const auto* s = v.as_string();
        int level = s ? model::parseConfidence(s->get()) : -1;
        if (level < 0) return fail(key, "must be \"low\", \"medium\" or \"high\"");
        c.minConfidence = level;
      } else if (key == "keep-going") {
        const auto* b = v.as_boolean();
        if (!b) return fail(key, "must be true or false");
        c.keepGoing = b->get();
      } else if (key == "docs-url") {
        const auto* s = v.as_string();
        std::string url = s ? s->get() : "";
        if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0 && url.rfind("file://", 0) != 0)
          return fail(key, "must be a URL (https://, http:// or file://), e.g. \"https://docs.example.com/streamlint/{id}\"");
        c.docsUrl = url;
      } else if (key == "sync-functions") {
        if (!strings(v, key, c.knowledge.syncFunctions)) return false;
      } else if (key == "backward-functions") {
        if (!strings(v, key, c.knowledge.backwardFunctions)) return false;
      } else if (key == "stream-wrappers") {
        const toml::table* wt = v.as_table();
        if (!wt) return fail(key, "must be a table of \"wrapper\" = \"torch.cuda.API\"");
        for (auto&& [from, to] : *wt) {
          std::string sub = key + ".\"" + std::string(from.str()) + "\"";
          const auto* s = to.as_string();
          if (!s || s->get().rfind("torch.", 0) != 0 || py::lookupFunction(s->get()) == py::Api::None)
            return fail(sub, "must name a torch stream API such as \"torch.cuda.current_stream\"");
          c.knowledge.streamWrappers.emplace_back(std::string(from.str()), s->get());
        }
      } else {
        std::string known;
        for (const char* n : kKeys) known += std::string(known.empty() ? "" : ", ") + n;
        return fail(key, "is not a streamlint setting (known: " + known + ")");
      }
    }
    return true;
  }
};

std::string absoluteDir(const std::string& file) {
  std::error_code ec;
  return fs::weakly_canonical(fs::absolute(file, ec), ec).parent_path().string();
}

}  // namespace

std::string languageName(const std::string& name) {
  std::string n;
  for (char ch : name) n += char(std::tolower(static_cast<unsigned char>(ch)));
  if (n == "python" || n == "py") return "python";
  if (n == "cpp" || n == "c++" || n == "c" || n == "cuda" || n == "cxx") return "cpp";
  return "";
}

bool matchesAny(const std::string& id, const std::vector<std::string>& codes) {
  for (const auto& c : codes)
    if (id.rfind(c, 0) == 0) return true;
  return false;
}

std::string Config::relative(const std::string& path) const {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return abs.lexically_relative(dir.empty() ? fs::current_path(ec) : fs::path(dir)).generic_string();
}

bool Config::excluded(const std::string& path) const {
  if (exclude.empty()) return false;
  std::string rel = relative(path);
  for (const auto& g : exclude)
    if (g.matches(rel)) return true;
  return false;
}

bool Config::ignoredFor(const std::string& rule, const std::string& path) const {
  if (perFileIgnores.empty()) return false;
  std::string rel = relative(path);
  for (const auto& [g, rules] : perFileIgnores)
    if (matchesAny(rule, rules) && g.matches(rel)) return true;
  return false;
}

Severity Config::severityOf(const std::string& rule, Severity fallback) const {
  size_t best = 0;
  for (const auto& [code, sev] : severity)
    if (rule.rfind(code, 0) == 0 && code.size() > best) best = code.size(), fallback = sev;
  return fallback;
}

namespace {
// toml++ 3.3 (Debian 12's) reaches __builtin_unreachable (UBSan in make fuzz) in its whitespace
// test on some non-ASCII code points (config/TomlCodePoints.h: they are swapped out before it
// parses). Its decoder also goes wrong on malformed UTF-8 and on an unterminated string, which
// it reads again to report. TOML allows non-ASCII text only in strings and comments, must be
// UTF-8 and ends its strings: text that breaks those rules is refused before the parser sees
// it. The reason and the 1-based line of the first problem; "" when there is none.
std::string unparsableText(const std::string& text, size_t& line) {
  enum { Plain, Comment, Basic, Literal, MultiBasic, MultiLiteral } state = Plain;
  auto at = [&](size_t k) { return k < text.size() ? text[k] : '\0'; };
  auto cont = [&](size_t k) { return k < text.size() && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80; };
  line = 1;
  for (size_t i = 0; i < text.size();) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    if (b >= 0x80) {
      size_t n = b >= 0xC2 && b < 0xE0 ? 2 : b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
      for (size_t k = 1; k < n; ++k)
        if (!cont(i + k)) n = 0;
      unsigned cp = n == 2 ? (b & 0x1Fu) << 6 | (text[i + 1] & 0x3Fu)
                  : n == 3 ? (b & 0x0Fu) << 12 | (text[i + 1] & 0x3Fu) << 6 | (text[i + 2] & 0x3Fu)
                  : n == 4 ? (b & 0x07u) << 18 | (text[i + 1] & 0x3Fu) << 12 | (text[i + 2] & 0x3Fu) << 6 | (text[i + 3] & 0x3Fu)
                           : 0;
      if (!n || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return "not valid UTF-8";
      if (state == Plain) return "a non-ASCII character outside a string or a comment (TOML allows them only there)";
      i += n;
      continue;
    }
    char c = char(b);
    if (c == '\n' && (state == Basic || state == Literal)) return "a string that does not end on its line";
    if (c == '\n') {
      ++line;
      if (state == Comment) state = Plain;
    }
    bool triple = at(i + 1) == c && at(i + 2) == c;
    switch (state) {
      case Plain:
        if (c == '#') state = Comment;
        else if (c == '"') state = triple ? MultiBasic : Basic;
        else if (c == '\'') state = triple ? MultiLiteral : Literal;
        i += (c == '"' || c == '\'') && triple ? 3 : 1;
        continue;
      case Comment: break;
      case Basic:
      case MultiBasic:
        if (c == '\\') { i += 2; continue; }
        if (c == '"' && (state == Basic || triple)) { i += state == Basic ? 1 : 3; state = Plain; continue; }
        break;
      case Literal:
      case MultiLiteral:
        if (c == '\'' && (state == Literal || triple)) { i += state == Literal ? 1 : 3; state = Plain; continue; }
        break;
    }
    ++i;
  }
  // toml++ reports an unterminated string by reading its text again: it must not get one.
  if (state == Basic || state == Literal) return "a string that does not end on its line";
  if (state == MultiBasic || state == MultiLiteral) return "a multi-line string that never ends";
  return "";
}
}  // namespace

std::optional<Config> loadConfig(const std::string& file, std::string& error) {
  // A file that cannot be read is not "invalid TOML": say why it could not be opened.
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    error = file + ": cannot read the config file: " +
            (fs::exists(file, ec) ? std::string("not a regular file") : std::string("no such file"));
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t line = 0;
  if (std::string why = unparsableText(text, line); !why.empty()) {
    error = file + ":" + std::to_string(line) + ": invalid TOML: " + why;
    return std::nullopt;
  }
  toml::table doc;
  try {
    doc = toml::parse(toml_safe::swapUnsafeCodePoints(text), file);
  } catch (const toml::parse_error& e) {
    error = file + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
            ": invalid TOML: " + toml_safe::swapUnsafeCodePoints(e.description());
    return std::nullopt;
  }
  toml_safe::restoreStrings(doc);
  Config c;
  c.file = file;
  // pyproject.toml holds other tools' settings: only its [tool.streamlint] is ours. Other files
  // hold ours at the top level, or (a pyproject.toml copy given to --config) in that table.
  bool pyproject = fs::path(file).filename() == "pyproject.toml";
  const toml::table* t = &doc;
  Reader r{file, {}};
  if (pyproject || (doc.size() == 1 && doc["tool"]["streamlint"])) {
    t = doc["tool"]["streamlint"].as_table();
    r.where = file + " [tool.streamlint]";
    if (!t) {
      if (doc["tool"]["streamlint"]) {
        error = r.where + ": must be a table";
        return std::nullopt;
      }
      return c;  // no section: dir stays empty, the search goes on upwards
    }
  }
  c.dir = absoluteDir(file);
  if (!r.read(*t, c)) {
    error = r.error;
    return std::nullopt;
  }
  return c;
}

ConfigResolver::ConfigResolver(std::string forced)
    : forced_(std::move(forced)), defaults_(std::make_shared<Config>()) {}

std::shared_ptr<const Config> ConfigResolver::load(const std::string& file) {
  auto it = byFile_.find(file);
  if (it != byFile_.end()) return it->second;
  std::string err;
  auto c = loadConfig(file, err);
  if (!c) errors_.push_back(err);
  return byFile_[file] = c ? std::make_shared<const Config>(std::move(*c)) : nullptr;
}

std::shared_ptr<const Config> ConfigResolver::forDir(const std::string& dir) {
  if (auto it = byDir_.find(dir); it != byDir_.end()) return it->second;
  std::shared_ptr<const Config> found;
  bool resolved = false;  // this directory decides (with a config, or with an invalid one)
  std::error_code ec;
  // .streamlint.toml before pyproject.toml; a pyproject.toml without [tool.streamlint] is
  // someone else's and the search goes on upwards.
  const std::string own = dir + "/.streamlint.toml", pyproject = dir + "/pyproject.toml";
  if (fs::exists(own, ec)) {
    found = load(own);
    resolved = true;
  } else if (fs::exists(pyproject, ec)) {
    found = load(pyproject);
    resolved = !found || !found->dir.empty();
    if (!resolved) found = nullptr;
  }
  if (!resolved) {
    fs::path parent = fs::path(dir).parent_path();
    found = parent.empty() || parent == fs::path(dir) ? defaults_ : forDir(parent.string());
  }
  return byDir_[dir] = found;
}

std::shared_ptr<const Config> ConfigResolver::forFile(const std::string& path, std::string* canonical) {
  if (forced_.empty() || canonical) {
    std::string abs = canonical_.file(path);
    if (canonical) *canonical = abs;
    if (forced_.empty()) return forDir(parentDir(abs));
  }
  return load(forced_);
}

}  // namespace sl
