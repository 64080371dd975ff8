// Temporary files named after this process, so that runs side by side never share them.
#include "pipeline/tune/tuning_workspace.h"

#include <unistd.h>

#include <filesystem>

namespace mdh {
namespace {

std::string temporary_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

}  // namespace

TuningWorkspace::TuningWorkspace(TuningRequest& request, const TuningSettings& settings,
                                 const CostSettings& cost_settings) {
  if (request.binary_cache.empty()) {
    request.binary_cache = temporary_path("mdh-kernels-");
    temporary_.push_back(request.binary_cache);
  }
  cache_ = std::make_shared<BinaryCache>(request.binary_cache);
  request_path_ = request.binary_cache + ".request.json";
  // This process's own, also where --binary-cache names a shared folder: another run's data may differ.
  request.shared_reference = temporary_path("mdh-reference-");
  temporary_.push_back(request.shared_reference);
  if (cost_settings.reject_spills && !settings.in_process && request.nvidia_compute_cache.empty()) {
    // This process's own, also where --binary-cache names a shared folder: it is removed when the run ends.
    request.nvidia_compute_cache = temporary_path("mdh-nvidia-compute-cache-");
    temporary_.push_back(request.nvidia_compute_cache);
  }
}

TuningWorkspace::~TuningWorkspace() {
  std::error_code ignored;
  for (const std::string& path : temporary_) std::filesystem::remove_all(path, ignored);
}

void TuningWorkspace::write_request(const TuningRequest& request) {
  request.write(request_path_);
  temporary_.push_back(request_path_);
}

}  // namespace mdh
