// Writing a whole output file so that it is the old file or the new one, never a torn mix of both: the bytes go to a
// temporary file in the same folder, reach the disk, and then take the name by rename(2), which is atomic. A full
// disk or a killed process leaves the previous result as it was.
#pragma once

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "support/error.h"

namespace mdh {

namespace atomic_file_detail {

inline bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

inline std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace atomic_file_detail

/// Replaces `path` with `bytes` atomically (UserError naming `path` when it cannot). A symbolic link is written
/// through to its target. Something that is not a regular file (a FIFO, /dev/null, /dev/stdout) cannot be replaced
/// by a rename and is written in place.
inline void write_file_atomically(const std::string& path, std::string_view bytes) {
  namespace d = atomic_file_detail;
  auto failure = [&](const std::string& what) {
    return UserError("cannot write '" + path + "': " + what + ": " + std::strerror(errno));
  };
  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw failure("cannot open it");
    const bool written = d::write_all(fd, bytes);
    const int error = errno;
    ::close(fd);
    errno = error;
    if (!written) throw failure("the write failed");
    return;
  }
  std::string target = path;
  if (char resolved[PATH_MAX]; exists && ::realpath(path.c_str(), resolved)) target = resolved;
  const std::string name = target.substr(target.rfind('/') + 1);
  const std::string temporary = d::folder_of(target) + "/." + name + ".mdh-" + std::to_string(::getpid()) + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw failure("cannot create a temporary file beside it");
  if (exists) (void)::fchmod(fd, existing.st_mode & 07777);
  const bool written = d::write_all(fd, bytes) && ::fsync(fd) == 0;
  int error = errno;
  if (::close(fd) != 0 && written) error = errno;
  if (!written || ::rename(temporary.c_str(), target.c_str()) != 0) {
    if (written) error = errno;
    ::unlink(temporary.c_str());
    errno = error;
    throw failure(written ? "cannot rename the temporary file to it" : "the write failed");
  }
  // The rename itself reaches the disk with the folder's metadata.
  if (const int folder = ::open(d::folder_of(target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); folder >= 0) {
    (void)::fsync(folder);
    ::close(folder);
  }
}

}  // namespace mdh
