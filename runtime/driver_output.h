// What an OpenCL driver prints to the process's stderr by itself while it compiles: PoCL's built-in clang writes
// "2 errors generated." there before clBuildProgram returns, so that a build failure would read as that line followed
// by mdh's message saying what failed. Capturing stderr around the build puts the message first; the driver's text
// is kept (shown after a successful build, added to the message of a failed one where it says more than the log).
#pragma once

#include <mutex>
#include <string>

namespace mdh {

/// Redirects file descriptor 2 into a temporary file until finish() (or destruction, which shows what was captured).
/// File descriptors are process-wide: every capture holds one lock, so captures never interleave and compilations
/// that capture run one at a time. Threads compiling in parallel (the tuner's compile-ahead) do not capture.
class DriverOutputCapture {
 public:
  DriverOutputCapture();
  ~DriverOutputCapture();
  DriverOutputCapture(const DriverOutputCapture&) = delete;
  DriverOutputCapture& operator=(const DriverOutputCapture&) = delete;

  /// Restores stderr and returns what was written to it meanwhile (empty when the redirection could not be set up).
  std::string finish();

 private:
  std::unique_lock<std::mutex> lock_;
  int saved_stderr_ = -1;
  int capture_fd_ = -1;
  bool finished_ = false;
};

}  // namespace mdh
