// Runs a shell command from the source directory and captures its status and output: the CLI tests' way to call
// `mdh` and the example programs as a user would. Needs MDH_SOURCE_DIR (a compile definition of the test targets).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace mdh::testing {

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

/// No store of tuned configurations unless a test names one (--tuned-results, or MDH_TUNED_RESULTS=DIR before the
/// program): what mdh run, export and inspect do without --config must not depend on the machine's stored results.
inline CommandResult run_command(const std::string& command_line) {
  const std::string command = "cd '" MDH_SOURCE_DIR "' && export MDH_TUNED_RESULTS=none && " + command_line + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace mdh::testing
