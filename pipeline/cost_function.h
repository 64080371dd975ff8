// The tuner's cost function for mdh kernels: builds, runs and checks one configuration on an OpenCL device.
#pragma once

#include <functional>
#include <memory>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "pipeline/md_hom_run.h"
#include "tuner/evaluate/evaluation.h"

namespace mdh {

struct CostSettings {
  int warmups = 1;  // untimed runs before the timed ones
  int repetitions = 3;
  double cut_factor = 3;  // see below; 0: never cut
  /// Appended to every plan's build options (tuning_build_options): kNvidiaVerboseBuildOption where spills are
  /// checked. Every process that builds for a tuning run appends the same, so that the binary cache's keys match.
  std::string extra_build_options;
  /// A built candidate whose build log reports a spilling kernel (pipeline/spill_check.h) is not timed.
  bool reject_spills = false;
};

/// The options a tuning run builds `plan_options` (a plan's) with: those plus settings.extra_build_options.
std::string tuning_build_options(const std::string& plan_options, const CostSettings& settings);

/// The stage of an evaluation that gets (or builds) its program; compile workers report their builds under it too.
inline constexpr const char* kProgramStage = "program";
/// The stage of the warm-up runs: on PoCL the first launch compiles the kernel again for its work-group size.
inline constexpr const char* kWarmupStage = "warm-up";

/// The cost of a configuration: the median over `repetitions` of the profiling-event time summed over all kernels
/// of the configuration, in seconds. Steps, given the best cost so far B (EvaluationContext):
///   0. build; with reject_spills, stop when the build log reports a spilling kernel;
///   1. run the warm-ups and the first timed run: its time T1;
///   2. when T1 > cut_factor * B, stop: the result is ok with cost T1, cut and unverified (the candidate is far behind,
///      and timing it further would not change what the search learns from it);
///   3. the other timed repetitions: the median M of all of them;
///   4. when there is no B or M < B, the output of the last run is checked against the reference
///      (runtime/verify_result.h): a configuration is checked exactly when it could become the best, so the best is
///      always checked and no time goes into checking the rest, whose results are recorded as unverified.
/// A final timing (EvaluationContext::final_runs, tuner/evaluate/final_timing.h) skips 1-4: after the warm-ups it times
/// that many runs, each a call of its own from a reset output as peers are timed, and checks the result; the cost is
/// their median. Every run starts from an output buffer of NaNs, so a run that misses an element or accumulates over
/// runs fails the check. Failures are classified, never thrown:
///   constraint    the generator refused the configuration (it violates a constraint for this device), or, with
///                 reject_spills, ptxas reports that a kernel spills (reason: spill_rejection's). The register
///                 budget is such a constraint, estimated before the build; the spill report checks it exactly
///                 after the build. The search treats every failure alike (no cost), and this one is neither a
///                 broken build nor a crash.
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

  // A call after the timed ones, from a poisoned output, checked against the reference: `timed`, marked verified,
  // or a wrong_result failure.
  tuner::EvaluationResult checked(const LaunchPlan& plan, tuner::EvaluationResult timed,
                                  const std::function<void(const char*)>& end_stage);

  MdHomRun& run_;
  std::shared_ptr<const TuningSpace> space_;
  DeviceLimits limits_;
  CostSettings settings_;
};

}  // namespace mdh
