// The tuning loop: ask the technique, evaluate (several at once when the evaluator allows, preparing ahead on a
// thread pool), report costs back in ask order, journal every evaluation, stop on the abort condition.
// Resume replays a journal into the technique without re-evaluating and continues with the same sequence.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tuner/abort.h"
#include "tuner/evaluate/evaluation.h"
#include "tuner/journal/journal.h"
#include "tuner/search/technique.h"
#include "tuner/space/search_space.h"

namespace mdh::tuner {

/// How often a waiting tuning loop looks at the interrupt flag and the abort condition.
inline constexpr double kInterruptPollSeconds = 0.1;

struct TunerOptions {
  uint64_t seed = 0;
  /// JSON-lines journal; empty for none. Locked while the run writes it (a second run on it fails).
  std::string journal_path;
  /// Start a new journal even where one exists (without it, an existing journal is an error unless resumed).
  bool replace_journal = false;
  /// Continue the run recorded in journal_path (same technique, seed, window); starts afresh if there is no file.
  bool resume = false;
  /// fdatasync after every journal line (off only for tests and benchmarks on slow disks).
  bool sync_journal = true;
  nlohmann::json journal_metadata = nlohmann::json::object();
  /// Configurations asked ahead of the evaluator's capacity, so `prepare` can work on them early.
  size_t lookahead = 0;
  /// Called on a thread pool for each new configuration before it is evaluated (e.g. to compile it); its result,
  /// where it returns one, is recorded without evaluating, and an exception records status error. The run waits
  /// for running preparations before it returns (`stop` tells them to give up).
  Prepare prepare;
  unsigned prepare_threads = 1;
  /// Called after each evaluation (replayed ones too, flagged).
  std::function<void(const TuningStatus&, const EvaluationRecord&, bool replayed)> on_evaluation;
  /// Checked after each evaluation and every kInterruptPollSeconds while waiting; set it (e.g. from a SIGINT
  /// handler) to stop cleanly: evaluations in flight are abandoned, the journal holds every finished one.
  const std::atomic<bool>* interrupt = nullptr;
  /// Stop when the technique proposes only already evaluated configurations this many times in a row.
  uint64_t max_repeated_proposals = 100000;
  /// How many of the lowest-cost configurations TuningResult::leaders keeps (replayed ones too), for a final timing
  /// (tuner/evaluate/final_timing.h).
  size_t leaders = 0;
};

/// Where a run's time went (evaluations replayed from a journal took none of it): the answer to "why so few
/// evaluations per second?".
struct TimeBreakdown {
  double evaluating_seconds = 0;  // summed over evaluations: submitted to the evaluator until its result came back
  // Wall time the loop blocked on a prepare task while the evaluator had a free slot: it was idle for a compile.
  double waiting_for_prepare_seconds = 0;
  double prepare_seconds = 0;  // summed over prepare tasks (on prepare_threads threads side by side)
  uint64_t prepared = 0;       // prepare tasks that ran
  // Each reported evaluation's preparation (EvaluationRecord::compile_seconds), in report order: its quantiles say
  // whether a few slow compiles or all of them hold the evaluator up.
  std::vector<double> compile_seconds;
  StageSeconds stage_seconds;  // EvaluationResult::stage_seconds summed over the evaluations
};

struct TuningResult {
  std::optional<Configuration> best;
  std::optional<double> best_cost;
  TuningStatus status;
  std::string stop_reason;
  uint64_t replayed = 0;  // evaluations taken from the journal
  TimeBreakdown time;
  /// The TunerOptions::leaders configurations of lowest cost, lowest first: timed in full (not cut), checked or not
  /// (a cost function checks only what could become the best when it is measured).
  std::vector<std::pair<Configuration, double>> leaders;
};

TuningResult tune(const SearchSpace& space, SearchTechnique& technique, const Abort& abort, Evaluator& evaluator,
                  const TunerOptions& options = {});
/// Evaluates in the calling thread.
TuningResult tune(const SearchSpace& space, SearchTechnique& technique, const Abort& abort, CostFunction& cost_function,
                  const TunerOptions& options = {});

}  // namespace mdh::tuner
