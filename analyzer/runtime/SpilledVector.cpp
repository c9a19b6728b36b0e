#include "runtime/SpilledVector.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

namespace sl::runtime {

size_t spillThresholdBytes() {
  static const size_t bytes = [] {
    size_t mb = 4;
    if (const char* e = getenv("SL_SPILL_AFTER_MB"); e && *e) {
      char* end = nullptr;
      unsigned long long v = strtoull(e, &end, 10);
      if (end && !*end) mb = size_t(v);
    }
    return mb << 20;
  }();
  return bytes;
}

SpillFile::SpillFile() {
  const char* t = getenv("TMPDIR");
  dir_ = t && *t ? t : "/tmp";
  std::string path = dir_ + "/streamlint-timeline-XXXXXX";
  fd_ = mkstemp(path.data());
  if (fd_ < 0)
    throw SpillError("cannot make a temporary file in " + dir_ + " for a long log's timeline (" + strerror(errno) +
                     "): set TMPDIR to a writable directory");
  unlink(path.c_str());  // gone when closed, even after a crash
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) close(fd_);
}

void SpillFile::read(uint64_t offset, void* to, size_t bytes) const {
  char* p = static_cast<char*>(to);
  while (bytes) {
    ssize_t n = pread(fd_, p, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw SpillError("cannot read back a long log's timeline from " + dir_ + ": " +
                                 (n < 0 ? strerror(errno) : "the temporary file is shorter than written"));
    p += n;
    offset += uint64_t(n);
    bytes -= size_t(n);
  }
}

void SpillFile::write(uint64_t offset, const void* from, size_t bytes) {
  const char* p = static_cast<const char*>(from);
  while (bytes) {
    ssize_t n = pwrite(fd_, p, bytes, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw SpillError("cannot write a long log's timeline to a temporary file in " + dir_ + ": " +
                       (n < 0 ? strerror(errno) : "nothing written") + " (set TMPDIR to a directory with room)");
    p += n;
    offset += uint64_t(n);
    bytes -= size_t(n);
  }
}

}  // namespace sl::runtime
