// The tuner's cost function for mdh kernels: builds, runs and checks one configuration on an OpenCL device.
#pragma once

#include <functional>
#include <memory>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "pipeline/md_hom_run.h"
#include "tuner/evaluation.h"

namespace mdh {

struct CostSettings {
  int warmups = 1;  // untimed runs before the timed ones
  int repetitions = 3;
  double cut_factor = 3;  // see below; 0: never cut
};

/// The cost of a configuration: the median over `repetitions` of the profiling-event time summed over all kernels
/// of the configuration, in seconds. Steps, given the best cost so far B (EvaluationContext):
///   1. build, run the warm-ups and the first timed run: its time T1;
///   2. when T1 > cut_factor * B, stop: the result is ok with cost T1, cut and unverified (the candidate is far behind,
///      and timing it further would not change what the search learns from it);
///   3. the other timed repetitions: the median M of all of them;
///   4. when there is no B or M < B, the output of the last run is checked against the reference
///      (runtime/verify_result.h): a configuration is checked exactly when it could become the best, so the best is
///      always checked and no time goes into checking the rest, whose results are recorded as unverified.
/// Every run starts from an output buffer of NaNs, so a run that misses an element or accumulates over runs fails
/// the check. Failures are classified, never thrown:
///   constraint    the generator refused the configuration (it violates a constraint for this device)
///   build_error   the OpenCL compiler failed (reason: the log's first lines)
///   launch_error  enqueueing or running failed (e.g. CL_OUT_OF_RESOURCES)
///   wrong_result  the output is outside the tolerance (reason: the check's summary)
class MdHomCostFunction final : public tuner::CostFunction {
 public:
  MdHomCostFunction(MdHomRun& run, std::shared_ptr<const TuningSpace> space, DeviceLimits limits,
                    CostSettings settings);
  /// Without a best cost: checked and timed in full.
  tuner::EvaluationResult evaluate(const tuner::Configuration& configuration) override;
  tuner::EvaluationResult evaluate_in_context(const tuner::Configuration& configuration,
                                              const tuner::EvaluationContext& context) override;
  /// Evaluates a typed configuration (the same steps; for `mdh run --config` style checks and tests).
  /// The result carries the seconds of each stage (tuner::EvaluationResult::stage_seconds): "kernel source"
  /// (generating it), "program" (the binary cache or the driver's build), "device" (resetting the output, warm-ups
  /// and timed runs), "verification" (reading the output and comparing it with the reference).
  tuner::EvaluationResult evaluate(const KernelConfig& config, const tuner::EvaluationContext& context = {});

 private:
  // evaluate() without the clock: calls end_stage(name) as each stage ends.
  tuner::EvaluationResult evaluate_in_stages(const KernelConfig& config, const tuner::EvaluationContext& context,
                                             const std::function<void(const char*)>& end_stage);

  MdHomRun& run_;
  std::shared_ptr<const TuningSpace> space_;
  DeviceLimits limits_;
  CostSettings settings_;
};

}  // namespace mdh
