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
  SourceFile(std::string path, std::shared_ptr<const void> storage, std::string_view text);
  void indexLines();

  std::string path_;
  // What holds text_'s bytes: a std::string of its own, or a read-only mapping of the file
  // (load: no copy, and the pages come from the page cache in one call instead of one
  // fault each; on a VM a fresh page cost ~15 us, and a check's texts were a third of them).
  std::shared_ptr<const void> storage_;
  std::string_view text_;
  std::vector<uint32_t> lineStarts_;
};

// Returns the byte offset of the first invalid UTF-8 sequence, or npos when valid.
size_t firstInvalidUtf8(std::string_view s);

}  // namespace sl
