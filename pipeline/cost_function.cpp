// The tuner's cost of a tunable-kernel configuration on an OpenCL device.
#include "pipeline/cost_function.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "pipeline/kernel.h"
#include "pipeline/spill_check.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/verify_result.h"

namespace mdh {

namespace {
// How many times over the cut a warm-up run must take to cut a candidate before its timed run (see evaluate).
constexpr double kWarmupCutMargin = 4;
}  // namespace

std::string tuning_build_options(const std::string& plan_options, const CostSettings& settings) {
  if (settings.extra_build_options.empty()) return plan_options;
  return plan_options + (plan_options.empty() ? "" : " ") + settings.extra_build_options;
}

MdHomCostFunction::MdHomCostFunction(MdHomRun& run, std::shared_ptr<const TuningSpace> space, DeviceLimits limits,
                                     CostSettings settings)
    : run_(run), space_(std::move(space)), limits_(limits), settings_(settings) {}

tuner::EvaluationResult MdHomCostFunction::evaluate(const tuner::Configuration& configuration) {
  return evaluate(kernel_config_of(run_.bound(), *space_, configuration));
}

tuner::EvaluationResult MdHomCostFunction::evaluate_in_context(const tuner::Configuration& configuration,
                                                               const tuner::EvaluationContext& context) {
  return evaluate(kernel_config_of(run_.bound(), *space_, configuration), context);
}

tuner::EvaluationResult MdHomCostFunction::evaluate(const KernelConfig& config,
                                                    const tuner::EvaluationContext& context) {
  // Each stage's time goes into the result, whatever ends the evaluation: what an evaluation costs besides the
  // kernel's own time (on the H200 about 50 ms of GEMM 1024^3's 58 ms median evaluation went elsewhere).
  tuner::StageSeconds stages;
  tuner::StageClock clock(stages, 1e6);  // microseconds keep journals short
  auto end_stage = [&](const char* name) { clock.end(name); };
  tuner::EvaluationResult result = evaluate_in_stages(config, context, end_stage);
  result.stage_seconds = std::move(stages);
  return result;
}

tuner::EvaluationResult MdHomCostFunction::checked(const LaunchPlan& plan, tuner::EvaluationResult timed,
                                                   const std::function<void(const char*)>& end_stage) {
  // A call of its own after the timed ones, from a poisoned output, on the work-group counters they left: no fill
  // zeroes those between calls of one program (runtime/execute.cpp), so a kernel that failed to reset them would
  // have been timed on stale counters, and its output here would be wrong (or the poison).
  run_.run(plan, 0, 1, KernelEvents::plain, OutputPoison::before_first_run);
  // On the device where it can: the host's check of Jacobi 3D 512^3 took 1.5-1.7 s on the H200 machine
  // (runtime/device_check.h). A failure is checked again on the host, for its report.
  if (run_.output_passes_on_device().value_or(false)) {
    end_stage("verification");
    timed.verified = true;
    return timed;
  }
  const VerifyReport report = verify_result(run_.read_output(), run_.reference_output(), *run_.bound().mdh,
                                            run_.bound().reduction_size(), 3, run_.bound().precision);
  end_stage("verification");
  if (!report.passed) return tuner::EvaluationResult::failed(tuner::EvaluationStatus::wrong_result, report.summary());
  timed.verified = true;
  return timed;
}

tuner::EvaluationResult MdHomCostFunction::evaluate_in_stages(const KernelConfig& config,
                                                              const tuner::EvaluationContext& context,
                                                              const std::function<void(const char*)>& end_stage) {
  using tuner::EvaluationResult;
  using tuner::EvaluationStatus;
  // Each stage's user errors mean something different for the tuner: classify by where they come from.
  LaunchPlan plan;
  try {
    plan = prepare_kernel(run_.bound(), limits_, KernelChoice::typed(config)).plan;
    end_stage("kernel source");
  } catch (const UserError& e) {
    end_stage("kernel source");
    return EvaluationResult::failed(EvaluationStatus::constraint, e.what());
  }
  plan.build_options = tuning_build_options(plan.build_options, settings_);
  try {
    run_.context().program(plan.source, plan.build_options);
    end_stage(kProgramStage);
  } catch (const UserError& e) {
    end_stage(kProgramStage);
    std::string log = e.what();
    if (log.size() > 2000) log = log.substr(0, 2000) + "\n...";
    return EvaluationResult::failed(EvaluationStatus::build_error, log);
  }
  // The log of the build that made the program, also where it came from the binary cache (a compile worker built
  // it; runtime/binary_cache.h keeps the log with the binary).
  if (settings_.reject_spills)
    if (std::optional<std::string> spills = spill_rejection(run_.context().build_log(plan.source, plan.build_options)))
      return EvaluationResult::failed(EvaluationStatus::constraint, *spills);
  if (context.kernels_start) context.kernels_start();
  const std::optional<double> best = context.best_cost;
  try {
    if (context.final_runs) {
      // As peers are timed (peers/peer_common.h): after the warm-ups, each run a call of its own; never cut, always
      // checked. The output is poisoned once, before the first launch (OutputPoison).
      OutputPoison poison = OutputPoison::before_first_run;
      if (settings_.warmups > 0) {
        run_.run(plan, settings_.warmups, 0, KernelEvents::profiled, poison);
        poison = OutputPoison::none;
        end_stage(kWarmupStage);
      }
      std::vector<uint64_t> kernel_ns;
      for (int k = 0; k < std::max(1, *context.final_runs); ++k) {
        kernel_ns.push_back(run_.run(plan, 0, 1, KernelEvents::profiled, poison).kernel_ns.at(0));
        poison = OutputPoison::none;
      }
      end_stage("device");
      if (context.kernels_end) context.kernels_end();
      return checked(plan, EvaluationResult::ok(static_cast<double>(median_ns(kernel_ns)) * 1e-9), end_stage);
    }
    const bool cutting = best && settings_.cut_factor > 0;
    auto cut_at = [&](double seconds, const char* why) {
      end_stage("device");
      EvaluationResult cut = EvaluationResult::ok(seconds);
      cut.cut = true;
      cut.verified = false;
      cut.reason = why;
      return cut;
    };
    // The warm-ups first: a first launch can include work that later ones do not (PoCL compiles the kernel for
    // its work-group size at the first launch), which would cut nearly every candidate. NVIDIA's driver builds the
    // whole kernel in clBuildProgram, so there a first warm-up kWarmupCutMargin times over the cut is already the
    // verdict: random candidates can run thousands of times slower than the best (docs/decisions.md).
    // The output is poisoned before the evaluation's first launch only (OutputPoison): the check reads what the
    // last run left, which a kernel that misses an element cannot have written.
    int warmups = settings_.warmups;
    OutputPoison poison = OutputPoison::before_first_run;
    if (cutting && limits_.nvidia_driver && warmups > 0) {
      const double warmup =
          static_cast<double>(run_.run(plan, 0, 1, KernelEvents::profiled, poison).median_kernel_ns()) * 1e-9;
      if (warmup > kWarmupCutMargin * settings_.cut_factor * *best) return cut_at(warmup, "cut after its warm-up run");
      --warmups;
      poison = OutputPoison::none;
      end_stage(kWarmupStage);
    }
    if (warmups > 0) {
      run_.run(plan, warmups, 0, KernelEvents::profiled, poison);
      poison = OutputPoison::none;
      end_stage(kWarmupStage);
    }
    PlanTiming timing = run_.run(plan, 0, 1, KernelEvents::profiled, poison);
    const double first_run = static_cast<double>(timing.median_kernel_ns()) * 1e-9;
    if (cutting && first_run > settings_.cut_factor * *best) return cut_at(first_run, "cut after one timed run");
    if (settings_.repetitions > 1) {
      const PlanTiming rest = run_.run(plan, 0, settings_.repetitions - 1, KernelEvents::profiled, OutputPoison::none);
      timing.kernel_ns.insert(timing.kernel_ns.end(), rest.kernel_ns.begin(), rest.kernel_ns.end());
    }
    end_stage("device");
    EvaluationResult result = EvaluationResult::ok(static_cast<double>(median_ns(timing.kernel_ns)) * 1e-9);
    result.verified = !best || result.cost < *best;
    if (!result.verified) return result;
    if (context.kernels_end) context.kernels_end();
    return checked(plan, std::move(result), end_stage);
  } catch (const UserError& e) {
    end_stage("device");
    return EvaluationResult::failed(EvaluationStatus::launch_error, e.what());
  }
}

}  // namespace mdh
