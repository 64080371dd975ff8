// Tuning mdh kernels with the generic tuner: the tunable kernel's space (codegen/tuning_space.h) as a
// tuner::SearchSpace, and the OpenCL cost function that builds, runs and checks one configuration.
// tuner/ knows nothing about MDH or OpenCL; this file is where the two meet.
#pragma once

#include <memory>
#include <string>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "runtime/device.h"
#include "runtime/md_hom_run.h"
#include "tuner/evaluation.h"
#include "tuner/search_space.h"

namespace mdh {

/// Reads a tunable-kernel configuration: either a config object (codegen/kernel_config.h) or an `mdh tune` result
/// holding one under "config"; checked against the md_hom and the device (UserError naming the file and the problem).
KernelConfig load_config(const std::string& path, const BoundMdh& bound, const DeviceLimits& limits);

/// The limits of a device that bound the tunable kernel's configurations.
DeviceLimits device_limits(const DeviceInfo& device);

/// Intervals up to this many values are searched whole; larger ones through search_values' candidates.
inline constexpr int64_t kFullIntervalLimit = 64;

/// The values the tuner tries per parameter. Every value of the space is a valid choice (the kernel needs no
/// divisibility), but an interval of 2^24 tile sizes is neither searchable nor useful: a large interval is searched
/// through its powers of two, three times powers of two, its ends, and for NUM_WG / NUM_WI the values that make one
/// pass cover the dimension exactly (ceil(extent / LT), ceil(LT / PT)). Configurations outside these stay valid for
/// `mdh run --config`.
std::vector<std::vector<int64_t>> search_values(const TuningSpace& space);

/// The tuning space as the generic tuner's space: one tuner parameter per TuningParameter (same names and order,
/// the values of search_values), each constraint within one parameter group attached to the last parameter it
/// reads, the others checked per configuration (tuner::GlobalConstraint).
tuner::SearchSpace make_search_space(const TuningSpace& space, unsigned threads = 0);

/// A tuner configuration of make_search_space(space) as the kernel's typed configuration.
KernelConfig kernel_config_of(const BoundMdh& bound, const TuningSpace& space, const tuner::Configuration& configuration);

struct CostSettings {
  int warmups = 1;
  int repetitions = 3;
};

/// The cost of a configuration: the median over `repetitions` of the profiling-event time summed over all kernels
/// of the configuration, in seconds. The output is checked against the reference (runtime/verify_result.h) on the
/// first run of every configuration; failures are classified, never thrown:
///   constraint    the generator refused the configuration (it violates a constraint for this device)
///   build_error   the OpenCL compiler failed (reason: the log's first lines)
///   launch_error  enqueueing or running failed (e.g. CL_OUT_OF_RESOURCES)
///   wrong_result  the output is outside the tolerance (reason: the check's summary)
class MdHomCostFunction final : public tuner::CostFunction {
 public:
  MdHomCostFunction(MdHomRun& run, std::shared_ptr<const TuningSpace> space, DeviceLimits limits,
                    CostSettings settings);
  tuner::EvaluationResult evaluate(const tuner::Configuration& configuration) override;
  /// Evaluates a typed configuration (the same steps; for `mdh run --config` style checks and tests).
  tuner::EvaluationResult evaluate(const KernelConfig& config);

 private:
  MdHomRun& run_;
  std::shared_ptr<const TuningSpace> space_;
  DeviceLimits limits_;
  CostSettings settings_;
};

}  // namespace mdh
