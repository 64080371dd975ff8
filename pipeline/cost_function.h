// The tuner's cost function for mdh kernels: builds, runs and checks one configuration on an OpenCL device.
#pragma once

#include <memory>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "pipeline/md_hom_run.h"
#include "tuner/evaluation.h"

namespace mdh {

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
