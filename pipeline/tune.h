// Tuning one md_hom for one device and size binding: the tuning request -> space -> search with the tuner,
// evaluating in worker processes (or in this process) -> the best configuration as a result file.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "codegen/kernel_config.h"
#include "pipeline/tuning_request.h"
#include "pipeline/tuning_result.h"
#include "tuner/abort.h"
#include "tuner/final_timing.h"
#include "tuner/journal.h"
#include "tuner/tuner.h"

namespace mdh::tuner {
class MpiSession;  // tuner/mpi_evaluators.h, in builds with MPI
}

namespace mdh {

/// When to stop when no abort condition is given: after this many evaluations.
constexpr uint64_t kDefaultTuningEvaluations = 200;

/// The journal header's record, on NVIDIA's driver only, of what the run does with candidates that ptxas reports
/// spilling: "rejected" (the default) or "timed" (--allow-spills). A journal resumes only with the same.
inline constexpr const char* kSpillingCandidatesKey = "spilling_candidates";

/// Compile workers for one tuning process when the user names none: one per core this process may run on (its CPU
/// affinity, so `taskset` and batch systems' core sets count), shared among the `processes_on_host` tuning processes
/// of one host (the mpirun ranks there), at least one. On the H200's 16-core host (GEMM 1024^3 from the default,
/// results/nvidia-h200/session19/) 16 workers made 16.1 evaluations per second against 9.9 and 9.1 with 8
/// (`auc_bandit`, 40 s runs) and 13.4 against 7.2 (`local`, 30 s), each build taking 0.56-0.91 s against 0.50-0.75.
/// Session 14 had measured the opposite there (12 and 16 workers: 1.25 and 1.47 s per build, 4.9 and 5.4 per
/// second against 11.9 with 8), before compiles ahead had the run's deadline. Where the device is these cores (a CPU
/// through PoCL) the timed kernels compete with the compiles for them: one per two cores there, as before (on the
/// 16-core Xeon with 8 workers the tuner's times were still about twice the benchmark's; session 18).
unsigned default_compile_threads(unsigned processes_on_host = 1, bool device_on_these_cores = false);

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
  /// as peers are timed (tuner/final_timing.h), and the fastest of them is the result; 0: the search's best is.
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

TuningOutcome tune_md_hom(const TuningRequest& request, const TuningSettings& settings);

/// The worker side: reads the request, prepares the data and the reference once, then evaluates the
/// configurations the tuner sends (tuner::serve_worker_requests). With `compile_only`, builds each configuration's
/// program into the request's binary cache instead (no data, no runs). Returns the process exit status.
int serve_tuning_worker(const std::string& request_path, size_t device_index, bool compile_only = false);

/// FNV-1a of the spec file's bytes, as journals and results record it.
std::string spec_hash(const std::string& spec_path);

/// Throws UserError when the journal at `path` may not be resumed with this run's metadata (see
/// TuningSettings::resume); does nothing when there is no such file.
void check_journal_resumable(const std::string& path, const nlohmann::json& metadata);

}  // namespace mdh
