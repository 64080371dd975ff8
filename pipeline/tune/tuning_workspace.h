// The files a tuning run keeps in the temporary folder, removed however the run ends: its binary cache (where the
// request names none), the request the workers read, the workers' shared reference output, and NVIDIA's compute
// cache where spills are checked. Each is named after the process in the temporary folder ($TMPDIR, else /tmp); a
// new run removes those that runs killed with SIGKILL left (this user's, whose process no longer exists).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/cost_function.h"
#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tuning_request.h"
#include "runtime/binary_cache.h"

namespace mdh {

class TuningWorkspace {
 public:
  /// Points `request` at the workspace's files. UserError where the temporary folder is missing or not a folder.
  TuningWorkspace(TuningRequest& request, const TuningSettings& settings, const CostSettings& cost_settings);
  ~TuningWorkspace();
  TuningWorkspace(const TuningWorkspace&) = delete;
  TuningWorkspace& operator=(const TuningWorkspace&) = delete;

  const std::shared_ptr<BinaryCache>& binary_cache() const { return cache_; }
  /// Where the workers read the request (`mdh tune-worker --request FILE`).
  const std::string& request_path() const { return request_path_; }
  /// Writes the request for the worker processes; it is removed with the workspace.
  void write_request(const TuningRequest& request);

 private:
  std::vector<std::string> temporary_;
  std::shared_ptr<BinaryCache> cache_;
  std::string request_path_;
};

}  // namespace mdh
