// The tuning driver: one call per stage, each in pipeline/tune/.
#include "pipeline/tune.h"

#include <chrono>

#include "pipeline/tune/finalists.h"
#include "pipeline/tune/run_result.h"
#include "pipeline/tune/tuning_evaluators.h"
#include "pipeline/tune/tuning_seeds.h"
#include "pipeline/tune/tuning_target.h"
#include "pipeline/tune/tuning_workspace.h"
#include "pipeline/tuning_search_space.h"
#include "tuner/search/technique_registry.h"

namespace mdh {

TuningOutcome tune_md_hom(const TuningRequest& request, const TuningSettings& settings) {
  const auto started = std::chrono::steady_clock::now();
  TuningOutcome outcome;
  // 1. Spec -> bound IR, the devices and their limits, the tuning space, the data (a bad input file fails first).
  TuningTarget target = bind_tuning_target(request, settings);
  // 2. The tuning space as the tuner's search space, and the technique (a resumed journal's, else the default).
  const tuner::SearchSpace search_space = make_search_space(*target.space);
  const std::string technique_name = technique_of_run(settings);
  std::unique_ptr<tuner::SearchTechnique> technique = tuner::make_technique(technique_name);
  // 3. Seeds, evaluated first: the default configuration, the given starts, the transferred ones.
  const TuningSeeds seeds = choose_seeds(target, search_space, settings);
  technique = seeded(std::move(technique), seeds);
  outcome.default_start = seeds.default_configuration.has_value();
  outcome.transferred_from = seeds.transferred_from;
  // 4. The temporary files the workers share: binary cache, request, reference output (removed at the end).
  TuningWorkspace workspace(target.request, settings, target.cost_settings);
  // 5. The journal: its header's metadata, checked where the run resumes one.
  tuner::TunerOptions options = journal_options(target, seeds, settings);
  DefaultStartWatch default_start(seeds.default_configuration);
  default_start.watch(options);
  // 6. The search, on evaluators that compile ahead; under mpirun on the ranks (or serving rank 0 there).
  outcome.compile_threads = compile_threads_of_run(settings, target.limits);
  const tuner::Abort abort = settings.abort ? *settings.abort : tuner::evaluations(kDefaultTuningEvaluations);
  {
    TuningEvaluators evaluators(
        target, workspace, settings, search_space, options.journal_metadata,
        compile_ahead(target, workspace, settings, outcome.compile_threads, seeds.configurations),
        outcome.compile_threads, seeds.configurations);
    outcome.result = evaluators.search(*technique, abort, options);
    outcome.served = evaluators.served();
    outcome.evaluating_devices = evaluators.evaluating_devices();
    // 7. Finalists: the search's fastest and the default timed again side by side; the fastest is the result.
    outcome.final_timing = time_finalists(evaluators.evaluator(), outcome.result, default_start.finalist(), settings);
    evaluators.finish(outcome);
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // 8. The best configuration and the result file.
  record_result(outcome, target, search_space, technique_name, settings, abort);
  return outcome;
}

}  // namespace mdh
