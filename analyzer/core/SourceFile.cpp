#include "core/SourceFile.h"

#include "core/Encoding.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace sl {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  // Old Mac line endings (a lone CR) end lines for Python and Clang: make them LF so that every
  // consumer (tree-sitter counts LFs) agrees on line numbers. Same length: columns are kept.
  // (find is memchr: a byte loop here was ~1.5 % of a check.)
  for (size_t i = text_.find('\r'); i != std::string::npos; i = text_.find('\r', i + 1))
    if (i + 1 == text_.size() || text_[i + 1] != '\n') text_[i] = '\n';
  lineStarts_.push_back(0);
  for (size_t i = text_.find('\n'); i != std::string::npos && i + 1 < text_.size(); i = text_.find('\n', i + 1))
    lineStarts_.push_back(uint32_t(i + 1));
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  size_t b = lineStarts_[line - 1];
  size_t e = text_.find('\n', b);
  if (e == std::string::npos) e = text_.size();
  if (e > b && text_[e - 1] == '\r') --e;
  return std::string_view(text_).substr(b, e - b);
}

size_t firstInvalidUtf8(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    // Source is nearly all ASCII: eight bytes at a time while none has its top bit set.
    uint64_t word;
    if (i + 8 <= n && (std::memcpy(&word, s.data() + i, 8), (word & 0x8080808080808080ull) == 0)) {
      i += 8;
      continue;
    }
    unsigned char c = s[i];
    if (c < 0x80) { ++i; continue; }
    int len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > n) return i;
    for (int k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::optional<SourceFile> SourceFile::load(const std::string& path, std::string& error,
                                           size_t maxBytes) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return std::nullopt;
  }
  if (size_t(st.st_size) > maxBytes) {
    error = "file is " + std::to_string(st.st_size >> 20) + " MiB, over the " +
            std::to_string(maxBytes >> 20) + " MiB limit; skipped";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = std::strerror(errno ? errno : EACCES);
    return std::nullopt;
  }
  std::string text(size_t(st.st_size), '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (text.find('\0') != std::string::npos) {
    error = "binary file (contains NUL bytes); skipped";
    return std::nullopt;
  }
  if (size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos) {
    // A Python file may declare another encoding (PEP 263): convert it instead of refusing.
    std::string enc = declaredEncoding(text);
    if (!enc.empty()) {
      if (auto utf8 = toUtf8(text, enc)) return SourceFile(path, std::move(*utf8));
      error = "cannot decode as its declared encoding '" + enc + "'; skipped";
      return std::nullopt;
    }
    error = "not valid UTF-8 (first bad byte at offset " + std::to_string(bad) + "); skipped";
    return std::nullopt;
  }
  return SourceFile(path, std::move(text));
}

}  // namespace sl
