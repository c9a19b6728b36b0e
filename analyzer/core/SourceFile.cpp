#include "core/SourceFile.h"

#include "core/Encoding.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sl {

namespace {

// Old Mac line endings (a lone CR) end lines for Python and Clang: they are made LF so that
// every consumer (tree-sitter counts LFs) agrees on line numbers. Same length: columns are kept.
// (find is memchr: a byte loop here was ~1.5 % of a check.)
bool hasLoneCr(std::string_view t) {
  for (size_t i = t.find('\r'); i != std::string_view::npos; i = t.find('\r', i + 1))
    if (i + 1 == t.size() || t[i + 1] != '\n') return true;
  return false;
}

void loneCrToLf(std::string& t) {
  for (size_t i = t.find('\r'); i != std::string::npos; i = t.find('\r', i + 1))
    if (i + 1 == t.size() || t[i + 1] != '\n') t[i] = '\n';
}

// A read-only private mapping of a whole file, unmapped with its last owner.
std::shared_ptr<const void> mapFile(int fd, size_t size) {
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return nullptr;
  return std::shared_ptr<const void>(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
}

}  // namespace

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)) {
  loneCrToLf(text);
  auto owned = std::make_shared<std::string>(std::move(text));
  text_ = *owned;
  storage_ = std::move(owned);
  indexLines();
}

SourceFile::SourceFile(std::string path, std::shared_ptr<const void> storage, std::string_view text)
    : path_(std::move(path)), storage_(std::move(storage)), text_(text) {
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
  // The bytes: mapped when the file has any (an empty file cannot be mapped), read otherwise.
  // A file truncated by another process while mapped would fault on access: the run is short
  // and sources are not rewritten under a linter, as Clang assumes for the files it maps.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno ? errno : EACCES);
    return std::nullopt;
  }
  std::shared_ptr<const void> mapping = st.st_size > 0 ? mapFile(fd, size_t(st.st_size)) : nullptr;
  std::string read;
  if (!mapping && st.st_size > 0) {  // a file system that cannot map: read it
    read.resize(size_t(st.st_size));
    size_t got = 0;
    while (got < read.size()) {
      ssize_t n = ::read(fd, read.data() + got, read.size() - got);
      if (n == 0) break;  // shorter than it was a moment ago
      if (n > 0) {
        got += size_t(n);
      } else if (errno != EINTR) {
        error = std::strerror(errno);
        ::close(fd);
        return std::nullopt;
      }
    }
    read.resize(got);
  }
  ::close(fd);
  const std::string_view text = mapping ? std::string_view(static_cast<const char*>(mapping.get()), size_t(st.st_size))
                                        : std::string_view(read);
  if (text.find('\0') != std::string_view::npos) {
    error = "binary file (contains NUL bytes); skipped";
    return std::nullopt;
  }
  if (size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos) {
    // A Python file may declare another encoding (PEP 263): convert it instead of refusing.
    const std::string copy(text);
    std::string enc = declaredEncoding(copy);
    if (!enc.empty()) {
      if (auto utf8 = toUtf8(copy, enc)) return SourceFile(path, std::move(*utf8));
      error = "cannot decode as its declared encoding '" + enc + "'; skipped";
      return std::nullopt;
    }
    error = "not valid UTF-8 (first bad byte at offset " + std::to_string(bad) + "); skipped";
    return std::nullopt;
  }
  if (!mapping || hasLoneCr(text)) return SourceFile(path, std::string(text));  // owned (and CRs fixed)
  return SourceFile(path, std::move(mapping), text);
}

}  // namespace sl
