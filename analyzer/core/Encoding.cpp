#include "core/Encoding.h"

#include <iconv.h>

#include <cctype>
#include <regex>

namespace sl {

std::string declaredEncoding(const std::string& text) {
  // Only the first two lines may carry the declaration.
  size_t end = text.find('\n');
  if (end != std::string::npos) end = text.find('\n', end + 1);
  std::string head = text.substr(0, end);
  static const std::regex cookie(R"(^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+))", std::regex::multiline);
  std::smatch m;
  if (!std::regex_search(head, m, cookie)) return "";
  return m[1];
}

// Python codec names ("latin-1", "iso_8859_5") as glibc's iconv spells them.
static std::string iconvName(std::string name) {
  for (char& c : name) c = c == '_' ? '-' : char(std::toupper(static_cast<unsigned char>(c)));
  if (name == "LATIN-1" || name == "L1") return "ISO-8859-1";
  return name;
}

// `text` from encoding `from` to `to`, all or nothing.
static std::optional<std::string> convert(const std::string& text, const std::string& from, const std::string& to) {
  iconv_t cd = iconv_open(to.c_str(), from.c_str());
  if (cd == iconv_t(-1)) return std::nullopt;
  std::string out(text.size() * 4 + 16, '\0');
  char* in = const_cast<char*>(text.data());
  size_t inLeft = text.size(), outLeft = out.size();
  char* dst = out.data();
  size_t r = iconv(cd, &in, &inLeft, &dst, &outLeft);
  iconv_close(cd);
  if (r == size_t(-1)) return std::nullopt;
  out.resize(out.size() - outLeft);
  return out;
}

std::optional<std::string> toUtf8(const std::string& text, const std::string& encoding) {
  return convert(text, iconvName(encoding), "UTF-8");
}

std::optional<std::string> fromUtf8(const std::string& text, const std::string& encoding) {
  return convert(text, "UTF-8", iconvName(encoding));
}

}  // namespace sl
