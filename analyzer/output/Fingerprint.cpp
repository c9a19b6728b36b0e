#include "output/Fingerprint.h"

#include <cstdio>
#include <filesystem>

namespace sl {
namespace fs = std::filesystem;
namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

std::string currentDir() {
  std::error_code ec;
  std::string cwd = fs::current_path(ec).string();
  return ec ? std::string("/") : cwd;
}

Fingerprinter::Fingerprinter(std::string root, bool portable) : portable_(portable) {
  std::error_code ec;
  root_ = fs::weakly_canonical(fs::absolute(root, ec), ec).string();
}

std::string Fingerprinter::relative(const std::string& path) const {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path rel = abs.lexically_relative(root_);
  if (!rel.empty() && (portable_ || *rel.begin() != "..")) return rel.generic_string();
  return abs.generic_string();
}

std::string Fingerprinter::next(const Finding& f) { return nextAs(f, relative(f.path)); }

std::string Fingerprinter::nextAs(const Finding& f, const std::string& path) {
  std::string identity = f.ruleId + "|" + path + "|" + trim(src_.line(f.path, f.loc.line));
  int occurrence = ++seen_[identity];
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx:%d", static_cast<unsigned long long>(fnv1a(identity)), occurrence);
  return buf;
}

}  // namespace sl
