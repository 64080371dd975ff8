// Compiling ahead in compile workers (with the run's compile deadline) or on this process's threads.
#include "pipeline/tune/compile_ahead.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "pipeline/kernel.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/context.h"
#include "tuner/evaluate/compile_pipeline.h"
#include "tuner/evaluate/worker_pool.h"

namespace mdh {
namespace {

// A compile ahead may take this many times the median of the run's latest compiles, and at least the floor
// (tuner/evaluate/compile_deadline.h). The factor is the lookahead per compile thread: behind a compile that the
// deadline lets finish, the other compile workers have work (docs/decisions.md).
constexpr double kCompileDeadlineFactor = tuner::kLookaheadPerCompileThread, kCompileDeadlineFloorSeconds = 2;

// The seconds a compile worker reports for its build (under the cost function's program stage).
std::optional<double> build_seconds(const tuner::EvaluationResult& built) {
  for (const auto& [stage, seconds] : built.stage_seconds)
    if (stage == kProgramStage) return seconds;
  return std::nullopt;
}

// On a thread pool (one Context per thread). In process, nothing can stop a compile that hangs: --in-process is for
// debugging.
tuner::Prepare compile_on_threads(const TuningTarget& target, const TuningWorkspace& workspace) {
  return
      [&target, cache = workspace.binary_cache()](const tuner::Configuration& configuration, const std::atomic<bool>&) {
        thread_local std::unique_ptr<Context> context;
        thread_local const BinaryCache* context_cache = nullptr;
        if (!context || context_cache != cache.get()) {
          context = std::make_unique<Context>(target.devices[0]);
          context->use_binary_cache(cache);
          context->capture_driver_output(false);  // compile threads build side by side; their failures are ignored
          context_cache = cache.get();
        }
        try {
          const LaunchPlan plan =
              prepare_kernel(target.bound, target.limits,
                             KernelChoice::typed(kernel_config_of(target.bound, *target.space, configuration)))
                  .plan;
          context->program(plan.source, tuning_build_options(plan.build_options, target.cost_settings));
        } catch (const UserError&) {
          // The evaluation reports the same failure with its classification; preparing only saves time.
        }
        return std::optional<tuner::EvaluationResult>();
      };
}

// Each thread of the prepare pool hands its configurations to a compile worker process of its own that builds them
// into the binary cache. A build that hangs (a helper including /dev/stdin) or grows without end is killed at its
// deadline, when the run ends or is interrupted, like an evaluation.
tuner::Prepare compile_in_workers(const TuningWorkspace& workspace, const TuningSettings& settings,
                                  std::shared_ptr<const tuner::SeedConfigurations> seeds) {
  tuner::WorkerPoolOptions compile_options = worker_pool_options(settings);
  compile_options.commands = {{settings.worker_executable, "tune-worker", "--request", workspace.request_path(),
                               "--device-index", "0", "--compile-only"}};
  // No compile gets longer than a seed's, the first build's deadline.
  auto deadline = std::make_shared<tuner::CompileDeadline>(kCompileDeadlineFactor, kCompileDeadlineFloorSeconds,
                                                           compile_options.initial_timeout_seconds);
  return [compile_options, deadline, seeds](const tuner::Configuration& configuration,
                                            const std::atomic<bool>& stop) -> std::optional<tuner::EvaluationResult> {
    // The pool belongs to this thread (a WorkerPool serves one thread); the thread lives as long as the run.
    thread_local std::unique_ptr<tuner::WorkerPool> compiler;
    thread_local std::vector<std::string> compiler_command;
    if (!compiler || compiler_command != compile_options.commands[0]) {
      compiler.reset();
      compiler = std::make_unique<tuner::WorkerPool>(compile_options);
      compiler_command = compile_options.commands[0];
    }
    // A seed may compile as long as a first build may: stopped at the run's median, a default that compiles slowly
    // beside many other builds would be lost, and the run could end slower than it (docs/decisions.md).
    const bool seed = seeds->contains(configuration);
    tuner::EvaluationContext context;
    context.timeout_seconds = deadline->seconds_for(seed, compile_options.initial_timeout_seconds);
    // A build stopped at its deadline is recorded as a timeout and not evaluated (that would only build it again).
    auto timed_out = [](double limit, bool median) {
      char reason[160];
      std::snprintf(reason, sizeof reason,
                    median ? "compiling took over %.3g s (%g times the median of the run's latest %zu compiles, "
                             "at least %g s); not evaluated"
                           : "compiling took over %.3g s; not evaluated",
                    limit, kCompileDeadlineFactor, tuner::kCompileDeadlineRecentCompiles, kCompileDeadlineFloorSeconds);
      return tuner::EvaluationResult::failed(tuner::EvaluationStatus::timeout, reason);
    };
    const double limit = context.timeout_seconds.value_or(compiler->current_timeout());
    // The compile's time leaves out the compile worker's start-up (its first build, and each build after one that
    // was stopped): workers starting side by side would otherwise make the first compiles' median far too long
    // (docs/decisions.md).
    const auto working = [&] { return compiler->working_seconds(0).value_or(0.0); };
    compiler->submit(0, configuration, context);
    std::optional<std::pair<uint64_t, tuner::EvaluationResult>> built;
    double worked = 0;
    while (!(built = compiler->wait_for(tuner::kInterruptPollSeconds))) {
      worked = working();
      if (stop) {
        compiler->abandon();
        return std::nullopt;
      }
      // Started before the run's median was known (the first window's compiles, under the worker's first-build
      // timeout): stopped once the median says it takes too long.
      if (!context.timeout_seconds && deadline->passed(worked)) {
        compiler->abandon();
        const double late = *deadline->seconds();
        deadline->add(late);
        return std::optional<tuner::EvaluationResult>(timed_out(late, true));
      }
    }
    // As the worker timed the build; one stopped at its deadline took the limit, one that died what was seen of it.
    const std::optional<double> build = build_seconds(built->second);
    deadline->add(build ? *build : built->second.status == tuner::EvaluationStatus::timeout ? limit : worked);
    // A build that failed is reported by the evaluation, with its classification.
    if (built->second.status != tuner::EvaluationStatus::timeout) return std::nullopt;
    return std::optional<tuner::EvaluationResult>(timed_out(limit, !seed && context.timeout_seconds.has_value()));
  };
}

}  // namespace

unsigned default_compile_threads(unsigned processes_on_host, bool device_on_these_cores) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const unsigned cores = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0
                             ? static_cast<unsigned>(CPU_COUNT(&allowed))
                             : std::thread::hardware_concurrency();
  const unsigned workers = device_on_these_cores ? (std::max(1u, cores) + 1) / 2 : cores;  // rounded up
  return std::max(1u, workers / std::max(1u, processes_on_host));
}

unsigned compile_threads_of_run(const TuningSettings& settings, const DeviceLimits& limits) {
  return settings.compile_threads.value_or(
      default_compile_threads(settings.processes_on_host, !limits.local_memory_dedicated));
}

tuner::Prepare compile_ahead(const TuningTarget& target, const TuningWorkspace& workspace,
                             const TuningSettings& settings, unsigned compile_threads,
                             std::shared_ptr<const tuner::SeedConfigurations> seeds) {
  if (compile_threads == 0) return {};
  if (settings.in_process) return compile_on_threads(target, workspace);
  return compile_in_workers(workspace, settings, std::move(seeds));
}

}  // namespace mdh
