// How a tuning run searches (TuningSettings) and what it ends with (TuningOutcome): the driver's (pipeline/tune.h)
// input besides the request, and its output.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_config.h"
#include "pipeline/tuning_result.h"
#include "tuner/abort.h"
#include "tuner/evaluate/final_timing.h"
#include "tuner/evaluate/worker_pool.h"
#include "tuner/journal/journal.h"
#include "tuner/tuner.h"

namespace mdh::tuner {
class MpiSession;  // tuner/evaluate/mpi_evaluators.h, in builds with MPI
}

namespace mdh {

/// When to stop when no abort condition is given: after this many evaluations.
constexpr uint64_t kDefaultTuningEvaluations = 200;

/// TuningSettings::finalists by default.
inline constexpr size_t kDefaultFinalists = 3;

struct TuningSettings {
  /// Empty: the journal's technique when resuming one, else tuner::kDefaultTechnique (so a journal recorded before
  /// the default changed resumes without naming it).
  std::string technique;
  uint64_t seed = 1;
  std::optional<tuner::Abort> abort;     // default: kDefaultTuningEvaluations evaluations
  std::optional<double> budget_seconds;  // the --budget part of the abort: no evaluation may take longer at first
  std::string journal_path;
  /// Start a new journal where one exists (without it, an existing journal that is not resumed is an error).
  bool replace_journal = false;
  /// Continue the journal's run without re-evaluating anything. Allowed when the journal was recorded for the same
  /// spec (hash), sizes, device and driver, generator generation, treatment of spilling candidates (NVIDIA) and
  /// search (technique, seed, window, space size);
  /// an older journal that differs only in how it wrote values (enum ordinals, permutation ranks) resumes.
  bool resume = false;
  bool default_start = true;  // evaluate the default configuration first
  /// After the search, this many of its fastest configurations and the default start are timed again side by side
  /// as peers are timed (tuner/evaluate/final_timing.h), and the fastest of them is the result; 0: the search's best.
  size_t finalists = kDefaultFinalists;
  // Configurations evaluated next, in order (files holding a config or an `mdh tune` result, e.g. the best of
  // another size or device): re-checked against this md_hom, sizes and device, never trusted. A journal records
  // them and resumes only with the same ones.
  std::vector<std::string> start_config_paths;
  /// A store of tuned results (pipeline/tuned_store.h, e.g. tuned/): the best of them for the same md_hom, from
  /// any device's folder, re-checked and adapted, are evaluated after the starts above
  /// (pipeline/transferred_starts.h); nullopt or kNoTunedStore: none. The journal records what was taken, and a
  /// resumed run takes the journal's, whatever this says.
  std::optional<std::string> transfer_folder;
  bool in_process = false;  // no worker processes (no protection against hanging kernels)
  /// Configurations compiled ahead, each in a compile worker process (killed at its deadline or when the run ends);
  /// 0: compile in the evaluating worker; nullopt: default_compile_threads(processes_on_host, the device is a CPU).
  std::optional<unsigned> compile_threads;
  unsigned processes_on_host = 1;  // tuning processes sharing this host's cores (the mpirun ranks there)
  double timeout_floor_seconds = 10;
  /// The mdh executable, started as `EXE tune-worker --request FILE --device-index K` for each device (and with
  /// --compile-only for each compile thread).
  std::string worker_executable;
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const tuner::TuningStatus&, const tuner::EvaluationRecord&, bool replayed)> on_evaluation;
  std::function<void(const std::string&)> note;  // things the user should know (not errors)
  /// Under mpirun: this process is one rank of one tuning run. Rank 0 searches and writes the journal; every rank
  /// (rank 0 unless rank0_evaluates is false) evaluates on one device of its host, the local_rank-th of those the
  /// device selectors match (modulo their number), in its own worker processes, compiling ahead on its own cores.
  tuner::MpiSession* mpi = nullptr;
  int local_rank = 0;
  bool rank0_evaluates = true;
  /// Whether this process searches: it is not an MPI rank, or it is rank 0.
  bool searches() const;
};

/// The options of the run's worker pools (evaluating and compiling): until a first success sets the pace, one
/// evaluation may not take more than the whole time budget.
tuner::WorkerPoolOptions worker_pool_options(const TuningSettings& settings);

struct TuningOutcome {
  tuner::TuningResult result;
  std::optional<KernelConfig> best;
  std::optional<TuningResultFile> result_file;  // when a best configuration exists
  double seconds = 0;
  bool default_start = false;
  std::vector<std::string> transferred_from;  // the stored results the run started from (their paths)
  size_t evaluating_devices = 0;              // devices that evaluated (under mpirun: the evaluating ranks)
  unsigned compile_threads = 0;               // the compile workers the run had (TuningSettings::compile_threads)
  bool served = false;  // under mpirun, a rank other than 0: evaluated for rank 0, holds no result
  /// The final timing that chose the result (TuningSettings::finalists); nullopt where there was none.
  std::optional<tuner::FinalTiming> final_timing;
  /// This process's evaluating workers: how often one started up (restarts after timeouts and crashes included), the
  /// seconds until they were ready and where those went (tuner::WorkerPool::start_up_stages).
  uint64_t worker_start_ups = 0;
  double worker_start_up_seconds = 0;
  tuner::StageSeconds worker_start_up_stages;
};

}  // namespace mdh
