// Where a tuning run's configurations are evaluated: in this process (--in-process), in worker processes on the
// request's devices, or under mpirun on the ranks' devices with rank 0 searching. Lives across the search and the
// final timing, which use the same evaluators.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tune/tuning_target.h"
#include "pipeline/tune/tuning_workspace.h"
#include "tuner/evaluate/compile_deadline.h"
#include "tuner/evaluate/evaluation.h"
#include "tuner/search/technique.h"
#include "tuner/tuner.h"

namespace mdh::tuner {
class MpiEvaluators;  // tuner/evaluate/mpi_evaluators.h, in builds with MPI
class RankPipeline;
struct EvaluatorDescription;
}  // namespace mdh::tuner

namespace mdh {

class Context;
class MdHomRun;
class MdHomCostFunction;

class TuningEvaluators {
 public:
  /// Starts the evaluators the settings ask for. In worker processes it writes the request they read; under mpirun
  /// rank 0 waits for every rank's hello (UserError where one is incompatible) and notes what it has. The data
  /// move into this process's run where it evaluates in process.
  TuningEvaluators(TuningTarget& target, TuningWorkspace& workspace, const TuningSettings& settings,
                   const tuner::SearchSpace& search_space, const nlohmann::json& journal_metadata,
                   tuner::Prepare compile_ahead, unsigned compile_threads,
                   std::shared_ptr<tuner::SeedConfigurations> seeds);
  ~TuningEvaluators();
  TuningEvaluators(const TuningEvaluators&) = delete;
  TuningEvaluators& operator=(const TuningEvaluators&) = delete;

  /// The search (tuner::tune), compiling ahead as deep as the evaluators allow. Under mpirun on a rank other than
  /// 0: serves rank 0's evaluations instead and returns an empty result (served()).
  tuner::TuningResult search(tuner::SearchTechnique& technique, const tuner::Abort& abort, tuner::TunerOptions options);
  /// What the final timing evaluates on: the evaluators the search had.
  tuner::Evaluator& evaluator();
  bool served() const { return served_; }
  /// Devices that evaluated (under mpirun: the evaluating ranks); 0 on a rank that served.
  size_t evaluating_devices() const { return evaluating_devices_; }
  /// Ends the evaluation (under mpirun: tells the ranks to stop) and records this process's worker start-ups.
  void finish(TuningOutcome& outcome);

 private:
  void start_mpi(const TuningTarget& target, const nlohmann::json& journal_metadata);

  const TuningSettings& settings_;
  const tuner::SearchSpace& search_space_;
  tuner::Prepare compile_ahead_;
  const unsigned compile_threads_;
  std::shared_ptr<tuner::SeedConfigurations> seeds_;
  size_t evaluating_devices_ = 0;
  bool served_ = false;
  // In process: destroyed in reverse order (the cost function, the run, its context).
  std::unique_ptr<Context> context_;
  std::unique_ptr<MdHomRun> run_;
  std::unique_ptr<MdHomCostFunction> cost_;
  std::unique_ptr<tuner::InProcessEvaluator> in_process_;
  // In worker processes; under mpirun each evaluating rank's pipeline over them, and on rank 0 all ranks as one.
  std::unique_ptr<tuner::WorkerPool> pool_;
  std::unique_ptr<tuner::RankPipeline> pipeline_;
  std::unique_ptr<tuner::EvaluatorDescription> description_;
  std::unique_ptr<tuner::MpiEvaluators> mpi_evaluators_;
};

}  // namespace mdh
