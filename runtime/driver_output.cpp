// Capturing what a driver prints to stderr during a build (see driver_output.h).
#include "runtime/driver_output.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace mdh {

namespace {
std::mutex& capture_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

DriverOutputCapture::DriverOutputCapture() : lock_(capture_mutex()) {
  char path[] = "/tmp/mdh-driver-output-XXXXXX";
  capture_fd_ = ::mkstemp(path);
  if (capture_fd_ < 0) return;  // no capture: the driver's text goes to stderr as it would anyway
  ::unlink(path);
  std::cerr.flush();
  std::fflush(stderr);
  saved_stderr_ = ::dup(STDERR_FILENO);
  if (saved_stderr_ < 0 || ::dup2(capture_fd_, STDERR_FILENO) < 0) {
    if (saved_stderr_ >= 0) ::close(saved_stderr_);
    ::close(capture_fd_);
    saved_stderr_ = capture_fd_ = -1;
  }
}

std::string DriverOutputCapture::finish() {
  if (finished_) return "";
  finished_ = true;
  if (capture_fd_ < 0) return "";
  std::fflush(stderr);
  ::dup2(saved_stderr_, STDERR_FILENO);
  ::close(saved_stderr_);
  std::string text;
  char buf[4096];
  ::lseek(capture_fd_, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(capture_fd_, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(capture_fd_);
  return text;
}

DriverOutputCapture::~DriverOutputCapture() {
  const std::string text = finish();
  if (!text.empty()) std::cerr << text << std::flush;
}

}  // namespace mdh
