// The worker side of a tuning run: `mdh tune-worker`, the process the tuner starts (and kills, if a kernel hangs)
// to evaluate configurations, or with --compile-only to build them ahead into the binary cache.
#pragma once

#include <cstddef>
#include <string>

namespace mdh {

/// Reads the request, prepares the data and the reference once, then evaluates the configurations the tuner sends
/// (tuner::serve_worker_requests). With `compile_only`, builds each configuration's program into the request's
/// binary cache instead (no data, no runs). Returns the process exit status.
int serve_tuning_worker(const std::string& request_path, size_t device_index, bool compile_only = false);

}  // namespace mdh
