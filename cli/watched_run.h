// Commands that run kernels (run, bench) run them in a child process that this one watches. Under PoCL a kernel
// runs in mdh's own address space: a scalar function that reads outside its tables or declares a private array
// larger than the stack would kill mdh with SIGSEGV, and one that never returns would hang it. Watched, a crash
// becomes a clear error and a kernel past the time limit is stopped.
#pragma once

#include <functional>
#include <string>

#include "cli/subcommands.h"

namespace mdh::cli {

/// Seconds a watched command may run when --time-limit is not given.
inline constexpr double kDefaultTimeLimitSeconds = 600;

/// The value of `--time-limit S` (or `--time-limit=S`) among `args`; kDefaultTimeLimitSeconds where absent; 0 means
/// no limit. A malformed value is left for the command's own option parsing to report.
double time_limit_of(const Args& args);

/// Runs `body` in a forked child and returns its exit status; a child killed by a signal or stopped at the time limit
/// is reported on stderr ("error: mdh NAME: ...") and gives 2 (130 for an interrupt). SIGINT, SIGTERM and SIGHUP
/// that reach this process are passed on to the child. Where fork fails, `body` runs here.
int run_watched(const std::string& command, double time_limit_seconds, const std::function<int()>& body);

}  // namespace mdh::cli
