// The driver of `mdh bench` (see bench.h).
#include "pipeline/bench.h"

#include <memory>

#include "codegen/config_json.h"
#include "codegen/kernel_config.h"
#include "pipeline/compute_precision.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/md_hom_run.h"
#include "pipeline/pipeline.h"

namespace mdh {

BenchComparison compare_steady(const BenchEntry& first, const BenchEntry& other) {
  BenchComparison c;
  c.ratio = first.steady.median_ns > 0 ? other.steady.median_ns / first.steady.median_ns : 1.0;
  c.tie = other.steady.ci_low_ns <= first.steady.ci_high_ns && first.steady.ci_low_ns <= other.steady.ci_high_ns;
  return c;
}

namespace {

VerifyReport checked_call(MdHomRun& run, const LaunchPlan& plan) {
  run.run(plan, 0, 1, KernelEvents::plain, OutputPoison::before_first_run);
  return verify_result(run.read_output(), run.reference_output(), *run.bound().mdh, run.bound().reduction_size(), 8,
                       run.bound().precision);
}

void note(const std::function<void(const std::string&)>& progress, const std::string& text) {
  if (progress) progress(text);
}

}  // namespace

BenchOutcome bench_md_hom(const BenchRequest& request, const std::function<void(const std::string&)>& progress) {
  if (request.configurations.empty()) throw UserError("mdh bench: no configuration to time");
  const MeasurementOptions& m = request.measurement;
  if (m.min_runs < 1) throw UserError("the minimum number of rounds must be at least 1");
  if (m.max_runs < m.min_runs)
    throw UserError("--rounds " + std::to_string(m.max_runs) + " is below the minimum of " +
                    std::to_string(m.min_runs) + " rounds");
  if (!(m.ci_relative > 0)) throw UserError("--ci must be positive (0.02: the CI within 2% of the median)");
  if (!(m.confidence > 0 && m.confidence < 1)) throw UserError("the confidence must lie strictly between 0 and 1");
  check_steady_options(request.steady);

  // 1. Spec -> checked IR -> sizes bound (mdh/).
  BoundMdh bound = load_and_bind(request.spec_path, request.sizes);
  // 2. The data: files and generated records now, so that a bad file fails before any device work.
  RunInputs inputs = load_run_inputs(bound, request.data);
  // 3. The device and the limits that bound its configurations (runtime/).
  DeviceInfo device = select_device(request.device);
  const DeviceLimits limits = device_limits(device);
  settle_precision(bound, request.precision, limits, device.name,
                   [&](const std::string& text) { note(progress, text); });
  // 4. Every configuration -> OpenCL C and launch plan, all before any device time: a bad file stops the command.
  std::vector<PreparedKernel> kernels;
  std::vector<BenchEntry> entries(request.configurations.size());
  for (size_t c = 0; c < request.configurations.size(); ++c) {
    BenchEntry& e = entries[c];
    KernelChoice choice = request.configurations[c].choice;
    if (choice.kind == KernelChoice::Kind::stored) {
      // As `mdh run` resolves it, so that the store's pick is timed against the default as users get it.
      e.store = BenchStoreLookup{choice.config_path, std::nullopt, {}};
      auto store_note = [&](const std::string& line) {
        e.store->notes.push_back(line);
        note(progress, line);
      };
      choice = resolve_kernel_choice(choice, bound, device, limits, store_note, &e.store->taken);
    }
    kernels.push_back(prepare_kernel(bound, limits, choice));
    e.label = request.configurations[c].label;
    e.description = kernels.back().description;
    e.kernels_per_call = kernels.back().plan.kernels.size();
    if (kernels.back().config) e.config = config_to_json(bound, *kernels.back().config);
  }
  // 5. Program, buffers, reference (runtime/): one set of inputs and buffers that every configuration runs on.
  Context context(device);
  MdHomRun run(context, bound, std::move(inputs.inputs), inputs.params, inputs.seed);
  // 6. Correctness first: each configuration's call from a poisoned output is checked before any is timed.
  std::vector<size_t> timed;
  for (size_t c = 0; c < entries.size(); ++c) {
    note(progress, "verifying " + entries[c].label);
    entries[c].verification = checked_call(run, kernels[c].plan);
    entries[c].timed = entries[c].verification.passed;
    if (entries[c].timed) timed.push_back(c);
  }
  // 7. The steady instrument of each checked configuration: warm-up calls, then the calls per pair of time stamps.
  std::vector<std::unique_ptr<SteadyTimer>> timers(entries.size());
  for (size_t c : timed) {
    note(progress, "calibrating " + entries[c].label);
    timers[c] = std::make_unique<SteadyTimer>(run.steady_timer(kernels[c].plan, request.steady));
    entries[c].calls_per_pair = timers[c]->calls_per_pair();
  }
  // 8. Interleaved rounds: per configuration a steady sample, one profiled call (the event sum) and one plain call
  //    (the call time), until every steady median's CI meets the target.
  BenchOutcome outcome{bound, device, {}, 0, false, false};
  while (!timed.empty() && outcome.rounds < m.max_runs) {
    ++outcome.rounds;
    for (size_t c : timed) {
      BenchEntry& e = entries[c];
      e.steady_samples.push_back(timers[c]->sample());
      const PlanTiming profiled = run.run(kernels[c].plan, 0, 1, KernelEvents::profiled, OutputPoison::none);
      e.event_sum_samples.push_back(static_cast<double>(profiled.kernel_ns.at(0)));
      const PlanTiming plain = run.run(kernels[c].plan, 0, 1, KernelEvents::plain, OutputPoison::none);
      e.call_samples.push_back(static_cast<double>(plain.wall_ns.at(0)));
      e.runs = outcome.rounds;
      e.steady = time_stats(e.steady_samples, m);
      e.call = time_stats(e.call_samples, m);
      e.event_sum = time_stats(e.event_sum_samples, m);
    }
    if (outcome.rounds < m.min_runs) continue;
    outcome.ci_met = true;
    for (size_t c : timed) outcome.ci_met = outcome.ci_met && entries[c].steady.ci_met;
    if (outcome.ci_met) break;
  }
  // 9. One more checked call each: the timed calls ran on what the previous call left (no fills between them), so
  //    a kernel that failed to reset its work-group counters would show here.
  for (size_t c : timed) entries[c].after_timing = checked_call(run, kernels[c].plan);
  outcome.reference_in_double = run.reference_in_double();
  outcome.entries = std::move(entries);
  return outcome;
}

}  // namespace mdh
