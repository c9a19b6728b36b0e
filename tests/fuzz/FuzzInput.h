// Shared by the fuzz targets: the input as a file (the parsers under test read files, as the
// CLI does), in one private directory per process, and quiet standard streams.
#pragma once
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace sl::fuzz {

// Writes the input to DIR/name (DIR made once per process) and returns the path.
inline std::string inputFile(const uint8_t* data, size_t size, const char* name) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/sl-fuzz-XXXXXX";
    const char* d = mkdtemp(tmpl);
    return std::string(d ? d : "/tmp");
  }();
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return path;
}

// The targets call whole commands that print findings: stdout and stderr to /dev/null, once.
inline void quiet() {
  static const bool done = [] {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) { dup2(null, 1); dup2(null, 2); close(null); }
    return true;
  }();
  (void)done;
}

}  // namespace sl::fuzz
