// Lines of files named by findings, read once per file, for echoing source and fingerprints.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/SourceFile.h"

namespace sl {

class SourceCache {
 public:
  // The 1-based line of `path`, or "" when the file cannot be read.
  std::string_view line(const std::string& path, uint32_t line);

 private:
  std::map<std::string, std::unique_ptr<SourceFile>> files_;
};

}  // namespace sl
