// The tuner's cost of a tunable-kernel configuration on an OpenCL device.
#include "pipeline/cost_function.h"

#include <algorithm>

#include "pipeline/kernel.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/verify_result.h"

namespace mdh {

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
  using tuner::EvaluationResult;
  using tuner::EvaluationStatus;
  // Each stage's user errors mean something different for the tuner: classify by where they come from.
  LaunchPlan plan;
  try {
    plan = prepare_kernel(run_.bound(), limits_, KernelChoice::typed(config)).plan;
  } catch (const UserError& e) {
    return EvaluationResult::failed(EvaluationStatus::constraint, e.what());
  }
  try {
    run_.context().program(plan.source, plan.build_options);
  } catch (const UserError& e) {
    std::string log = e.what();
    if (log.size() > 2000) log = log.substr(0, 2000) + "\n...";
    return EvaluationResult::failed(EvaluationStatus::build_error, log);
  }
  const std::optional<double> best = context.best_cost;
  try {
    // The warm-ups first: a first launch can include work that later ones do not (PoCL compiles the kernel for
    // its work-group size at the first launch), which would cut nearly every candidate.
    PlanTiming timing = run_.run(plan, settings_.warmups, 1);
    const double first_run = static_cast<double>(timing.median_kernel_ns()) * 1e-9;
    if (best && settings_.cut_factor > 0 && first_run > settings_.cut_factor * *best) {
      EvaluationResult cut = EvaluationResult::ok(first_run);
      cut.cut = true;
      cut.verified = false;
      return cut;
    }
    if (settings_.repetitions > 1) {
      const PlanTiming rest = run_.run(plan, 0, settings_.repetitions - 1);
      timing.kernel_ns.insert(timing.kernel_ns.end(), rest.kernel_ns.begin(), rest.kernel_ns.end());
    }
    EvaluationResult result = EvaluationResult::ok(static_cast<double>(median_ns(timing.kernel_ns)) * 1e-9);
    result.verified = !best || result.cost < *best;
    if (result.verified) {
      const VerifyReport report = verify_result(run_.read_output(), run_.reference_output(), *run_.bound().mdh,
                                                run_.bound().reduction_size(), 3);
      if (!report.passed) return EvaluationResult::failed(EvaluationStatus::wrong_result, report.summary());
    }
    return result;
  } catch (const UserError& e) {
    return EvaluationResult::failed(EvaluationStatus::launch_error, e.what());
  }
}

}  // namespace mdh
