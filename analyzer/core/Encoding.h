// PEP 263 source encodings: a Python file may declare `# -*- coding: latin-1 -*-` in its first
// two lines; such files are valid Python although not UTF-8.
#pragma once
#include <optional>
#include <string>

namespace sl {

// The declared encoding of a Python source, or "" when none is declared.
std::string declaredEncoding(const std::string& text);
// `text` converted from `encoding` to UTF-8 (glibc iconv), or nullopt when it cannot be.
std::optional<std::string> toUtf8(const std::string& text, const std::string& encoding);
// UTF-8 `text` converted back to `encoding`, or nullopt when some character has no encoding
// there (`--fix` then refuses to rewrite the file rather than change its encoding).
std::optional<std::string> fromUtf8(const std::string& text, const std::string& encoding);

}  // namespace sl
