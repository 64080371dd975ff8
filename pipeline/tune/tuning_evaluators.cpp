// The evaluators of a tuning run: in process, in worker processes, or over the ranks of an MPI job.
#include "pipeline/tune/tuning_evaluators.h"

#include <map>
#include <string>
#include <utility>

#include "codegen/tunable_kernel.h"
#include "pipeline/cost_function.h"
#include "pipeline/md_hom_run.h"
#include "runtime/context.h"
#include "tuner/evaluate/compile_pipeline.h"
#include "tuner/evaluate/worker_pool.h"
#ifdef MDH_WITH_MPI
#include "tuner/evaluate/mpi_evaluators.h"
#else
namespace mdh::tuner {
// Never made in builds without MPI; complete, so that the evaluators' members can be destroyed.
class MpiEvaluators {};
struct EvaluatorDescription {};
}  // namespace mdh::tuner
#endif

namespace mdh {
namespace {

// The least time the kernels of an evaluation get on NVIDIA's driver (WorkerPoolOptions::kernels_timeout_floor_seconds)
// once one has succeeded: thousands of times a good kernel's; a slower candidate would be cut anyway
// (docs/decisions.md).
constexpr double kNvidiaKernelsTimeoutFloorSeconds = 1;

}  // namespace

TuningEvaluators::TuningEvaluators(TuningTarget& target, TuningWorkspace& workspace, const TuningSettings& settings,
                                   const tuner::SearchSpace& search_space, const nlohmann::json& journal_metadata,
                                   tuner::Prepare compile_ahead, unsigned compile_threads,
                                   std::shared_ptr<tuner::SeedConfigurations> seeds)
    : settings_(settings),
      search_space_(search_space),
      compile_ahead_(std::move(compile_ahead)),
      compile_threads_(compile_threads),
      seeds_(std::move(seeds)) {
  if (settings.in_process) {
    context_ = std::make_unique<Context>(target.devices[0]);
    context_->use_binary_cache(workspace.binary_cache());
    run_ = std::make_unique<MdHomRun>(*context_, target.bound, std::move(target.data.inputs), target.data.params,
                                      target.data.seed);
    cost_ = std::make_unique<MdHomCostFunction>(*run_, target.space, target.limits, target.cost_settings);
    in_process_ = std::make_unique<tuner::InProcessEvaluator>(*cost_);
    evaluating_devices_ = 1;
    return;
  }
  if (settings.worker_executable.empty())
    throw UserError("tuning in worker processes needs the path of the mdh executable to start them");
  workspace.write_request(target.request);
  tuner::WorkerPoolOptions pool_options = worker_pool_options(settings);
  // NVIDIA's driver builds the whole kernel in clBuildProgram, so once a worker says its kernels start, only kernels
  // run, and one that hangs shows within a kernel's time. PoCL compiles for the work-group size at the first launch:
  // there the evaluation's floor stays.
  if (target.limits.nvidia_driver)
    pool_options.kernels_timeout_floor_seconds =
        std::min(settings.timeout_floor_seconds, kNvidiaKernelsTimeoutFloorSeconds);
  for (size_t k = 0; k < target.devices.size(); ++k)
    pool_options.commands.push_back({settings.worker_executable, "tune-worker", "--request", workspace.request_path(),
                                     "--device-index", std::to_string(k)});
  if (!settings.mpi) {
    pool_ = std::make_unique<tuner::WorkerPool>(pool_options);
    evaluating_devices_ = target.devices.size();
    return;
  }
  // Each evaluating rank compiles what it evaluates, as deep a pipeline as a one-process run on its cores.
  if (!settings.searches() || settings.rank0_evaluates) {
    pool_ = std::make_unique<tuner::WorkerPool>(pool_options);
    pipeline_ = std::make_unique<tuner::RankPipeline>(*pool_, compile_ahead_, compile_threads_);
  }
  start_mpi(target, journal_metadata);
}

#ifdef MDH_WITH_MPI

void TuningEvaluators::start_mpi(const TuningTarget& target, const nlohmann::json& journal_metadata) {
  tuner::MpiSession& mpi = *settings_.mpi;
  const DeviceInfo& device = target.devices[0];
  // What every rank must share with rank 0 for one cost scale, and where it measures (for the journal).
  description_ = std::make_unique<tuner::EvaluatorDescription>(
      tuner::EvaluatorDescription{{{"host", mpi.host()}, {"device", device.name}, {"selector", device.selector()}},
                                  {{"device", device.name},
                                   {"driver", device.driver_version},
                                   {"spec_hash", journal_metadata["spec_hash"]},
                                   {"sizes", target.request.sizes},
                                   {"generator", kTunableKernelGeneration},
                                   {"space_size", search_space_.size().str()}},
                                  pipeline_ ? pipeline_->lookahead() : 0});
  if (!settings_.searches()) return;  // it serves rank 0 in search()
  mpi_evaluators_ =
      std::make_unique<tuner::MpiEvaluators>(mpi, pipeline_ ? &pipeline_->evaluator() : nullptr, *description_);
  mpi_evaluators_->mark_seeds([this](const tuner::Configuration& c) { return seeds_->contains(c); });
  evaluating_devices_ = mpi_evaluators_->evaluating_ranks();
  if (!settings_.note) return;
  settings_.note("MPI: " + std::to_string(mpi.size()) + " ranks, " +
                 std::to_string(mpi_evaluators_->evaluating_ranks()) + " evaluating, " +
                 std::to_string(mpi_evaluators_->capacity()) + " configurations at a time on the ranks, " +
                 std::to_string(mpi_evaluators_->lookahead()) + " more asked ahead");
  // Ranks on one device measure each other's kernels too.
  std::map<std::pair<std::string, std::string>, std::string> sharing;
  std::map<std::pair<std::string, std::string>, int> count;
  for (const nlohmann::json& where : mpi_evaluators_->measured_on()) {
    const auto on = std::make_pair(where["host"].get<std::string>(), where["selector"].get<std::string>());
    sharing[on] += (count[on]++ ? ", " : "") + std::to_string(where["rank"].get<int>());
  }
  for (const auto& [on, ranks] : sharing)
    if (count[on] > 1)
      settings_.note("ranks " + ranks + " share device " + on.second + " on " + on.first +
                     ": their timings include each other's load (start one rank per device)");
}

#else

void TuningEvaluators::start_mpi(const TuningTarget&, const nlohmann::json&) {
  MDH_INTERNAL_ASSERT(false, "an MPI tuning run in a build without MPI");
}

#endif

TuningEvaluators::~TuningEvaluators() = default;

tuner::TuningResult TuningEvaluators::search(tuner::SearchTechnique& technique, const tuner::Abort& abort,
                                             tuner::TunerOptions options) {
  if (compile_ahead_ && !settings_.mpi) {
    // A window deep enough that one slow compile at its front leaves the other compile workers busy.
    options.lookahead = tuner::compile_lookahead(compile_threads_);
    options.prepare_threads = compile_threads_;
    options.prepare = compile_ahead_;
  }
  if (cost_) return tuner::tune(search_space_, technique, abort, *cost_, options);
  if (!settings_.mpi) return tuner::tune(search_space_, technique, abort, *pool_, options);
#ifdef MDH_WITH_MPI
  if (!mpi_evaluators_) {
    tuner::serve_mpi_evaluations(
        *settings_.mpi, pipeline_->evaluator(), *description_,
        [this](const nlohmann::json& config) { return search_space_.configuration_from_json(config); },
        [this](const tuner::Configuration& seed) { seeds_->add(seed); });
    served_ = true;
    return {};
  }
  options.lookahead = mpi_evaluators_->lookahead();
  return tuner::tune(search_space_, technique, abort, *mpi_evaluators_, options);
#else
  MDH_INTERNAL_ASSERT(false, "an MPI tuning run in a build without MPI");
#endif
}

tuner::Evaluator& TuningEvaluators::evaluator() {
  if (in_process_) return *in_process_;
#ifdef MDH_WITH_MPI
  if (mpi_evaluators_) return *mpi_evaluators_;
#endif
  if (pipeline_) return pipeline_->evaluator();
  return *pool_;
}

void TuningEvaluators::finish(TuningOutcome& outcome) {
  mpi_evaluators_.reset();
  pipeline_.reset();
  if (!pool_) return;
  outcome.worker_start_ups = pool_->ready_starts();
  outcome.worker_start_up_seconds = pool_->start_up_seconds();
  outcome.worker_start_up_stages = pool_->start_up_stages();
}

}  // namespace mdh
