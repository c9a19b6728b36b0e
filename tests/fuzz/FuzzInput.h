// Shared by the fuzz targets: the input as a file (the parsers under test read files, as the
// CLI does), in one private directory per process, and quiet standard streams.
#pragma once
#include <stdlib.h>

#include <cstdint>
#include <fstream>
#include <iostream>
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

// The targets call whole commands that print findings and notes through std::cout/std::cerr:
// those go nowhere, once. The file descriptors stay: libFuzzer reports (and crashes are
// described) on stderr.
inline void quiet() {
  static std::ofstream null("/dev/null");
  static const bool done = [] {
    std::cout.rdbuf(null.rdbuf());
    std::cerr.rdbuf(null.rdbuf());
    return true;
  }();
  (void)done;
}

}  // namespace sl::fuzz
