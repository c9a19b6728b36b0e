// A source file held in memory with a line index, plus the checks every input goes through
// (readable, not binary, valid UTF-8, not absurdly large) so frontends never see bad bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

struct Loc {
  uint32_t line = 0;  // 1-based; 0 = unknown
  uint32_t col = 0;   // 1-based, in bytes
  bool known() const { return line != 0; }
  friend bool operator==(const Loc&, const Loc&) = default;
  friend auto operator<=>(const Loc&, const Loc&) = default;
};

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);
  // Reads `path`; on failure returns nullopt and sets `error` to a message naming the reason.
  static std::optional<SourceFile> load(const std::string& path, std::string& error,
                                        size_t maxBytes = kDefaultMaxBytes);

  const std::string& path() const { return path_; }
  std::string_view text() const { return text_; }
  size_t lineCount() const { return lineStarts_.size(); }
  // The text of 1-based line `line`, without its newline.
  std::string_view line(uint32_t line) const;

  static constexpr size_t kDefaultMaxBytes = 16u << 20;

 private:
  void indexLines();

  std::string path_;
  // What holds text_'s bytes, shared by copies (views of the text outlive moves). Always a copy
  // read into memory, never a mapping of the file: a mapped file truncated by another process
  // (an editor saving, a `git checkout`) while a check runs kills it with SIGBUS.
  std::shared_ptr<const std::string> storage_;
  std::string_view text_;
  std::vector<uint32_t> lineStarts_;
};

// Returns the byte offset of the first invalid UTF-8 sequence, or npos when valid.
size_t firstInvalidUtf8(std::string_view s);

// The whole of a regular file, read (not mapped) up to `maxBytes`; nullopt with `error` set to
// the reason otherwise. SourceFile::load and `--fix` (which re-reads what it rewrites) share it.
std::optional<std::string> readSourceBytes(const std::string& path, std::string& error,
                                           size_t maxBytes = SourceFile::kDefaultMaxBytes);

// A source file's bytes as the UTF-8 text the frontends see, before lone CRs become LFs: the
// bytes themselves when valid UTF-8, else decoded from a declared encoding (PEP 263), which
// `encoding` names so that a rewrite can encode its result back.
struct DecodedSource {
  std::string utf8;
  std::string encoding;  // "" = the bytes were UTF-8 already
};
std::optional<DecodedSource> decodeSource(std::string bytes, std::string& error);

}  // namespace sl
