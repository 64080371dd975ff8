// Reading a whole input file (spec, config, journal, buffer file) with a size limit. A directory, a device such as
// /dev/zero, a FIFO nobody writes to or a file larger than anything mdh could use ends in a reason to report, never
// in an exception of the standard library, an allocation that cannot succeed or a wait without end.
#pragma once

#include <fcntl.h>
#include <poll.h>
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
/// How long a file that is not a regular file (a FIFO, a terminal) may keep mdh waiting for its next bytes.
inline constexpr int kInputWaitMilliseconds = 10000;

struct InputFile {
  bool ok = false;
  std::string bytes;
  std::string problem;  // why it could not be read ("No such file or directory", "it is a directory", ...)
};

/// The bytes of `path` if it is readable, not a directory and holds at most `max_bytes`.
inline InputFile read_input_file(const std::string& path, uint64_t max_bytes) {
  InputFile file;
  // Non-blocking, so that opening a FIFO without a writer returns at once instead of waiting for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        pollfd readable{fd, POLLIN, 0};
        const int ready = ::poll(&readable, 1, kInputWaitMilliseconds);
        if (ready > 0 || (ready < 0 && errno == EINTR)) continue;
        file.problem = ready == 0 ? "nothing arrived in " + std::to_string(kInputWaitMilliseconds / 1000) +
                                        " s (a FIFO or device that nobody writes to?)"
                                  : std::string(std::strerror(errno));
        break;
      }
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
