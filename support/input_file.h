// Reading a whole input file (spec, config, journal, buffer file) with a size limit. A directory, a device such as
// /dev/zero or a file larger than anything mdh could use ends in a reason to report, never in an exception of the
// standard library or in an allocation that cannot succeed.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace mdh {

/// Upper bounds on what mdh reads. Specs and configurations are hand-written text; a journal holds about 300 bytes
/// per evaluation, so 1 GiB is millions of evaluations.
inline constexpr uint64_t kMaxSpecBytes = uint64_t{1} << 24;
inline constexpr uint64_t kMaxConfigBytes = uint64_t{1} << 24;
inline constexpr uint64_t kMaxJournalBytes = uint64_t{1} << 30;

struct InputFile {
  bool ok = false;
  std::string bytes;
  std::string problem;  // why it could not be read ("No such file or directory", "it is a directory", ...)
};

/// The bytes of `path` if it is readable, not a directory and holds at most `max_bytes`.
inline InputFile read_input_file(const std::string& path, uint64_t max_bytes) {
  InputFile file;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    file.problem = std::strerror(errno);
    return file;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    file.problem = std::strerror(errno);
  } else if (S_ISDIR(info.st_mode)) {
    file.problem = "it is a directory";
  } else if (S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) > max_bytes) {
    file.problem =
        "it holds " + std::to_string(info.st_size) + " bytes, more than the limit of " + std::to_string(max_bytes);
  } else {
    // Devices and pipes have no size to check up front: read one byte past the limit to tell.
    char chunk[1 << 16];
    while (true) {
      const uint64_t room = max_bytes + 1 - file.bytes.size();
      const ssize_t n = ::read(fd, chunk, room < sizeof chunk ? room : sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        file.problem = std::strerror(errno);
        break;
      }
      if (n == 0) {
        file.ok = true;
        break;
      }
      file.bytes.append(chunk, static_cast<size_t>(n));
      if (file.bytes.size() > max_bytes) {
        file.problem = "it holds more than the limit of " + std::to_string(max_bytes) + " bytes";
        break;
      }
    }
  }
  ::close(fd);
  if (!file.ok) file.bytes.clear();
  return file;
}

}  // namespace mdh
