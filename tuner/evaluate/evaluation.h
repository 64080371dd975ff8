// What a cost function answers, and the two ways the tuner evaluates: a synchronous CostFunction in-process, or an
// asynchronous Evaluator that runs several evaluations at once (the WorkerPool's child processes).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tuner/space/configuration.h"

namespace mdh::tuner {

/// Seconds per named stage, in order; JSON: [["name", seconds], ...].
using StageSeconds = std::vector<std::pair<std::string, double>>;
/// Adds `seconds` to the stage `name`, appending it where it is new.
void add_stage_seconds(StageSeconds& stages, const std::string& name, double seconds);

/// Times consecutive stages into `stages`: end(name) adds the time since the previous end (or since construction)
/// to that stage. With `ticks_per_second`, each time is rounded to whole ticks (1e6: microseconds, which keep
/// journals short).
class StageClock {
 public:
  explicit StageClock(StageSeconds& stages, double ticks_per_second = 0)
      : stages_(stages), ticks_per_second_(ticks_per_second), begin_(std::chrono::steady_clock::now()) {}
  void end(const std::string& name);

 private:
  StageSeconds& stages_;
  double ticks_per_second_;
  std::chrono::steady_clock::time_point begin_;
};

/// Failures are classified and recorded, never fatal to a tuning run.
enum class EvaluationStatus { ok, constraint, build_error, launch_error, wrong_result, timeout, error };

std::string to_string(EvaluationStatus status);
/// Throws mdh::UserError for an unknown name.
EvaluationStatus evaluation_status_from_string(const std::string& name);

struct EvaluationResult {
  EvaluationStatus status = EvaluationStatus::error;
  double cost = 0;     // meaningful for ok only; lower is better
  std::string reason;  // why it failed (compiler log excerpt, signal, ...)
  /// ok only: whether the result was checked. A cost function may leave unchecked a configuration that cannot
  /// become the best (its cost is not below EvaluationContext::best_cost): checking costs time and would change
  /// nothing. Its cost still guides the search; the tuner never takes an unchecked result as its best.
  bool verified = true;
  /// ok only: timing stopped after one timed run (or, where a first launch does no extra work, after the warm-up)
  /// because it was far behind the best; the cost is that run's time (one sample where the others are medians: good
  /// enough for a candidate this far behind), `reason` says which run. Never verified.
  bool cut = false;
  /// Where it was measured (host, device, rank), when the evaluator spreads work over machines (MPI ranks); null
  /// otherwise. The journal records it.
  nlohmann::json measured_on;
  /// Where the evaluation's time went, by stage in the order they ran, as the cost function names them (for the
  /// md_hom cost function: kernel source, program, device, verification); empty where it does not say. Journaled, and
  /// summed in the tuner's TimeBreakdown: the answer to "what does one evaluation cost?".
  StageSeconds stage_seconds;
  /// Seconds its preparation (compiling ahead) took, where the evaluator prepared it itself (PreparingEvaluator, as
  /// on an MPI rank); nullopt where the tuning loop prepared it (the loop times that) or nothing did. The journal
  /// records it as the evaluation's compile time either way.
  std::optional<double> prepare_seconds;

  static EvaluationResult ok(double cost) {
    EvaluationResult result;
    result.status = EvaluationStatus::ok;
    result.cost = cost;
    return result;
  }
  static EvaluationResult failed(EvaluationStatus status, std::string reason) {
    EvaluationResult result;
    result.status = status;
    result.reason = std::move(reason);
    return result;
  }
};

/// What the tuner knows when an evaluation starts.
struct EvaluationContext {
  EvaluationContext() = default;
  explicit EvaluationContext(std::optional<double> best) : best_cost(best) {}

  std::optional<double> best_cost;  // the best verified cost so far; nullopt before the first
  /// Seconds after which the evaluator gives up on this evaluation (status timeout), in place of its own rule;
  /// nullopt for the evaluator's rule (the compile deadline of a run's compile workers is set this way).
  std::optional<double> timeout_seconds;
  /// Called by a cost function when what is left of the evaluation is its kernels running: the program is built and
  /// loaded. An evaluator in another process hears of it and gives the rest a deadline of its own (a kernel that
  /// hangs is then stopped after a kernel's time, not a build's). Null where nobody listens.
  std::function<void()> kernels_start;
  /// Called by a cost function when its kernels have finished and what is left is host work on their result (reading
  /// it back and checking it): the kernels' deadline no longer applies, since checking a large output can take far
  /// longer than the kernels (docs/decisions.md).
  std::function<void()> kernels_end;
  /// Set for a final timing (tuner/evaluate/final_timing.h): time exactly this many runs after the warm-ups, each a
  /// separate call as peers are timed, never cut, and check the result whatever the cost. Unset during the search.
  std::optional<int> final_runs;
};

/// Prepares a configuration before its evaluation (compiles its kernel into a cache that the evaluator reads).
/// Returns nothing to go on to the evaluation, or the evaluation's result where preparing already decided it (a
/// compile past its deadline: evaluating would only compile it again). `stop` is set when the evaluation is
/// abandoned or the run ends: a preparation still running should then give up promptly.
using Prepare = std::function<std::optional<EvaluationResult>(const Configuration&, const std::atomic<bool>& stop)>;

class CostFunction {
 public:
  virtual ~CostFunction() = default;
  /// Exceptions escaping here are recorded as status error with the exception's message.
  virtual EvaluationResult evaluate(const Configuration& configuration) = 0;
  /// The same, knowing the best cost so far (to skip checks or cut timing, see EvaluationResult); by default the
  /// context is ignored.
  virtual EvaluationResult evaluate_in_context(const Configuration& configuration, const EvaluationContext& context) {
    (void)context;
    return evaluate(configuration);
  }
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  /// How many evaluations may run at the same time.
  virtual size_t capacity() const = 0;
  /// Starts evaluating; at most capacity() evaluations are outstanding.
  virtual void submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) = 0;
  /// Blocks until one outstanding evaluation finishes and returns its ticket and result.
  virtual std::pair<uint64_t, EvaluationResult> wait() = 0;
  /// The same, giving up after about `seconds` (nullopt then), so that the caller can notice an interrupt or the
  /// end of its time budget while evaluations run. Evaluators that cannot wait for less block as wait() does.
  virtual std::optional<std::pair<uint64_t, EvaluationResult>> wait_for(double seconds) {
    (void)seconds;
    return wait();
  }
  /// Gives up on all outstanding evaluations (the run stops); they are never returned by wait().
  virtual void abandon() = 0;
};

/// Runs a CostFunction in the calling thread, one evaluation at a time.
class InProcessEvaluator final : public Evaluator {
 public:
  explicit InProcessEvaluator(CostFunction& cost_function) : cost_function_(cost_function) {}
  size_t capacity() const override { return 1; }
  void submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) override;
  std::pair<uint64_t, EvaluationResult> wait() override;
  void abandon() override { has_pending_ = false; }

 private:
  CostFunction& cost_function_;
  uint64_t ticket_ = 0;
  Configuration configuration_;
  EvaluationContext context_;
  bool has_pending_ = false;
};

}  // namespace mdh::tuner
