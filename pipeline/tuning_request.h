// What one tuning run measures: the spec, sizes, devices, data and measurement settings. Written once by `mdh tune`
// to a file that every worker process reads, so the tuner and its workers build the same space on the same data.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "pipeline/cost_function.h"
#include "pipeline/run_inputs.h"

namespace mdh {

struct TuningRequest {
  std::string spec_path, sizes;
  ComputePrecision precision = ComputePrecision::fp32;  // `--precision`, as RunRequest's
  std::vector<std::string> device_selectors{""};        // identical devices, one worker each
  DataOptions data;
  int warmup = 1, repeat = 3;  // untimed and timed runs per configuration (the cost is the median)
  std::string binary_cache;    // folder of compiled kernels shared by the compile threads and the workers
  /// --restrict NAME=V1,V2,...: value names as `mdh space` prints them, or numbers.
  std::vector<std::pair<std::string, std::vector<std::string>>> restrictions;
  /// --full-ranges: search every integer of each range instead of the families' lattices (TuningSpace::full_ranges).
  bool full_ranges = false;
  /// A candidate whose first timed run is more than this many times the best cost so far is not timed further
  /// (recorded as cut with that run's time; 0: never cut). See MdHomCostFunction.
  double cut_factor = 3;
  /// --allow-spills: time candidates whose kernels ptxas reports spilling, instead of rejecting them (NVIDIA only; a
  /// small spill can occasionally be fastest). See tuning_cost_settings.
  bool allow_spills = false;
  /// NVIDIA's compute cache for the workers (CUDA_CACHE_PATH), a folder of this run's own where spills are checked:
  /// on a hit in it the driver skips ptxas and with it the report (a kernel of an earlier run would not be known to
  /// spill), while within the run the evaluating worker still hits what the compile worker's build put there when it
  /// loads the binary. "": the driver's default.
  std::string nvidia_compute_cache;
  /// Where the workers share the reference output (pipeline/shared_reference.h): the first to compute it saves it
  /// there, a worker started later reads it. "": each worker computes its own.
  std::string shared_reference;

  nlohmann::json to_json() const;
  static TuningRequest from_json(const nlohmann::json& json);
  void write(const std::string& path) const;
  static TuningRequest read(const std::string& path);
};

/// What a tuning run's cost function measures with on a device of `limits`: the request's runs and cut and, on
/// NVIDIA's driver unless allow_spills, builds with ptxas's report in the log (kNvidiaVerboseBuildOption) and
/// rejects candidates it reports spilling. Elsewhere there is no such report (PoCL keeps private arrays on a stack
/// that the private memory budget bounds): the builds are the plan's.
CostSettings tuning_cost_settings(const TuningRequest& request, const DeviceLimits& limits);

/// The tuning space of the md_hom on the device, narrowed by the restrictions (UserError for unknown names or
/// values), searched over whole ranges with full_ranges.
TuningSpace restricted_tuning_space(const BoundMdh& bound, const DeviceLimits& limits,
                                    const std::vector<std::pair<std::string, std::vector<std::string>>>& restrictions,
                                    bool full_ranges = false);

}  // namespace mdh
