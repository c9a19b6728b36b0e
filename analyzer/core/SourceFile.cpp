#include "core/SourceFile.h"

#include "core/Encoding.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sl {

namespace {

// Old Mac line endings (a lone CR) end lines for Python and Clang: they are made LF so that
// every consumer (tree-sitter counts LFs) agrees on line numbers. Same length: columns are kept.
// (find is memchr: a byte loop here was ~1.5 % of a check.)
void loneCrToLf(std::string& t) {
  for (size_t i = t.find('\r'); i != std::string::npos; i = t.find('\r', i + 1))
    if (i + 1 == t.size() || t[i + 1] != '\n') t[i] = '\n';
}

}  // namespace

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)) {
  loneCrToLf(text);
  auto owned = std::make_shared<const std::string>(std::move(text));
  text_ = *owned;
  storage_ = std::move(owned);
  indexLines();
}

void SourceFile::indexLines() {
  lineStarts_.reserve(size_t(std::count(text_.begin(), text_.end(), '\n')) + 1);  // kept for the whole run
  lineStarts_.push_back(0);
  for (size_t i = text_.find('\n'); i != std::string_view::npos && i + 1 < text_.size(); i = text_.find('\n', i + 1))
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

std::optional<std::string> readSourceBytes(const std::string& path, std::string& error, size_t maxBytes) {
  // O_NONBLOCK: a FIFO named as an input must not hang the run (it is refused below).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = std::strerror(errno ? errno : EACCES);
    return std::nullopt;
  }
  struct stat st{};
  const bool statted = ::fstat(fd, &st) == 0;
  if (!statted || !S_ISREG(st.st_mode)) {
    error = statted ? "not a regular file" : std::strerror(errno);
    ::close(fd);
    return std::nullopt;
  }
  auto tooBig = [&](size_t size) {
    error = "file is " + std::to_string(size >> 20) + " MiB, over the " + std::to_string(maxBytes >> 20) +
            " MiB limit; skipped";
    ::close(fd);
    return std::nullopt;
  };
  if (size_t(st.st_size) > maxBytes) return tooBig(size_t(st.st_size));
  // Read to the end whatever the size said: the file may shrink or grow meanwhile.
  std::string bytes;
  bytes.resize(size_t(st.st_size) + 1);
  size_t got = 0;
  for (;;) {
    if (got == bytes.size()) {
      if (bytes.size() > maxBytes) return tooBig(bytes.size());
      bytes.resize(bytes.size() * 2);
    }
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n == 0) break;
    if (n > 0) {
      got += size_t(n);
    } else if (errno != EINTR) {
      error = std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
  }
  ::close(fd);
  if (got > maxBytes) return tooBig(got);
  bytes.resize(got);
  return bytes;
}

std::optional<DecodedSource> decodeSource(std::string bytes, std::string& error) {
  if (bytes.find('\0') != std::string::npos) {
    error = "binary file (contains NUL bytes); skipped";
    return std::nullopt;
  }
  size_t bad = firstInvalidUtf8(bytes);
  if (bad == std::string::npos) return DecodedSource{std::move(bytes), ""};
  // A Python file may declare another encoding (PEP 263): convert it instead of refusing.
  std::string enc = declaredEncoding(bytes);
  if (enc.empty()) {
    error = "not valid UTF-8 (first bad byte at offset " + std::to_string(bad) + "); skipped";
    return std::nullopt;
  }
  if (auto utf8 = toUtf8(bytes, enc)) return DecodedSource{std::move(*utf8), enc};
  error = "cannot decode as its declared encoding '" + enc + "'; skipped";
  return std::nullopt;
}

std::optional<SourceFile> SourceFile::load(const std::string& path, std::string& error, size_t maxBytes) {
  auto bytes = readSourceBytes(path, error, maxBytes);
  if (!bytes) return std::nullopt;
  auto decoded = decodeSource(std::move(*bytes), error);
  if (!decoded) return std::nullopt;
  return SourceFile(path, std::move(decoded->utf8));
}

}  // namespace sl
