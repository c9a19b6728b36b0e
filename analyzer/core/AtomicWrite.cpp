#include "core/AtomicWrite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace sl {
namespace {

std::string dirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool writeFileAtomically(const std::string& pathIn, std::string_view bytes, std::string& error) {
  // Through a symlink: the link is the user's, the file it names is what they edit.
  std::string path = pathIn;
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved)) {
      error = std::string("cannot resolve the symlink: ") + std::strerror(errno);
      return false;
    }
    path = resolved;
  }
  mode_t mode = 0666;
  const bool existed = ::stat(path.c_str(), &st) == 0;
  if (existed) {
    if (!S_ISREG(st.st_mode)) {
      error = "not a regular file";
      return false;
    }
    mode = st.st_mode & 07777;
  }
  static std::atomic<unsigned> counter{0};
  const std::string dir = dirOf(path);
  const std::string tmp = dir + "/." + baseOf(path) + std::string(kAtomicTempMarker) + std::to_string(::getpid()) +
                          "-" + std::to_string(counter++);
  // O_EXCL|O_NOFOLLOW: never write through something another process put at the name.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, existed ? 0600 : mode);
  if (fd < 0) {
    error = std::string("cannot create a temporary file in ") + dir + ": " + std::strerror(errno);
    return false;
  }
  auto fail = [&](const char* what) {
    error = std::string(what) + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  };
  if (!writeAll(fd, bytes)) return fail("cannot write");
  if (::fsync(fd) != 0) return fail("cannot flush to disk");
  struct stat written{};
  if (::fstat(fd, &written) != 0) return fail("cannot check what was written");
  if (static_cast<size_t>(written.st_size) != bytes.size()) {
    errno = EIO;
    return fail("the written file is short");
  }
  // An existing file keeps its mode (fchmod: open's mode is filtered by the umask).
  if (existed && ::fchmod(fd, mode) != 0) return fail("cannot keep the file's mode");
  if (::close(fd) != 0) {
    error = std::string("cannot close: ") + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    error = std::string("cannot replace the file: ") + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  // The rename itself is durable only once the directory is.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

}  // namespace sl
