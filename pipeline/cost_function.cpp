// The tuner's cost of a tunable-kernel configuration on an OpenCL device.
#include "pipeline/cost_function.h"

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

tuner::EvaluationResult MdHomCostFunction::evaluate(const KernelConfig& config) {
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
  PlanTiming timing;
  try {
    run_.run(plan, 0, 1);
    VerifyReport report = verify_result(run_.read_output(), run_.reference_output(), *run_.bound().mdh,
                                        run_.bound().reduction_size(), 3);
    if (!report.passed) return EvaluationResult::failed(EvaluationStatus::wrong_result, report.summary());
    timing = run_.run(plan, settings_.warmups, settings_.repetitions);
  } catch (const UserError& e) {
    return EvaluationResult::failed(EvaluationStatus::launch_error, e.what());
  }
  return EvaluationResult::ok(static_cast<double>(timing.median_kernel_ns()) * 1e-9);
}

}  // namespace mdh
