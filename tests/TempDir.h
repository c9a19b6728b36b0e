// A scratch directory for one test, removed afterwards; `write` creates parent directories.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

struct TempDir {
  std::filesystem::path dir;
  explicit TempDir(const std::string& tag)
      : dir(std::filesystem::temp_directory_path() / ("sl_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
  }
  ~TempDir() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& rel, const std::string& text) {
    std::filesystem::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
    return (dir / rel).string();
  }
};

// A whole file's bytes ("" when it cannot be read).
inline std::string readWhole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
