// Abort conditions (cppATF abort_conditions.hpp): predicates over the tuning status, combinable with && and ||.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdh::tuner {

/// A new best cost, as the status history keeps it.
struct Improvement {
  double seconds = 0;       // since tuning started (resumed runs continue the clock of the journal)
  uint64_t evaluation = 0;  // number of evaluations including this one
  double cost = 0;
};

/// What an abort condition may look at.
struct TuningStatus {
  uint64_t evaluations = 0;           // configurations evaluated (one journal line each)
  uint64_t valid_evaluations = 0;     // ... of which had status ok
  uint64_t verified_evaluations = 0;  // ... of which were checked (EvaluationResult::verified)
  uint64_t cut_evaluations = 0;       // ... of which were cut after one run (EvaluationResult::cut)
  double elapsed_seconds = 0;
  double space_size = 0;                  // for fractions; exact size is SearchSpace::size()
  std::vector<Improvement> improvements;  // ascending in time, descending in cost

  std::optional<double> best_cost() const;
  /// The best cost known after `seconds` / after `evaluation` evaluations (nullopt before the first valid one).
  std::optional<double> best_cost_at_time(double seconds) const;
  std::optional<double> best_cost_at_evaluation(uint64_t evaluation) const;
};

class AbortCondition {
 public:
  virtual ~AbortCondition() = default;
  virtual bool stop(const TuningStatus& status) const = 0;
  /// Readable form, e.g. "evaluations(200) || duration(60s)", also the reason a run stopped.
  virtual std::string describe() const = 0;
};

/// A shareable, immutable abort condition; `a && b` stops when both would, `a || b` when either would.
class Abort {
 public:
  explicit Abort(std::shared_ptr<const AbortCondition> condition) : condition_(std::move(condition)) {}
  bool stop(const TuningStatus& status) const { return condition_->stop(status); }
  std::string describe() const { return condition_->describe(); }
  friend Abort operator&&(const Abort& a, const Abort& b);
  friend Abort operator||(const Abort& a, const Abort& b);

 private:
  std::shared_ptr<const AbortCondition> condition_;
};

/// The largest count of evaluations an option or abort expression may give: far beyond any run, small enough that
/// a count read from a typo (or a negative number wrapped around) is refused instead of meaning "never stop".
constexpr uint64_t kMaxEvaluationCount = 1'000'000'000;
constexpr size_t kMaxAbortNesting = 64;
constexpr size_t kMaxAbortTerms = 256;

Abort evaluations(uint64_t count);
Abort valid_evaluations(uint64_t count);
Abort duration(double seconds);
/// Stops once this fraction (0, 1] of the space has been evaluated.
Abort space_fraction(double fraction);
/// Stops once the best cost is at or below the threshold.
Abort cost_at_most(double threshold);
/// Stops when the best cost of `seconds` ago is less than `factor` times the best cost now (once that much time has
/// passed): "no improvement by a factor within a time window". Having no valid result counts as no improvement.
Abort speedup_within_time(double factor, double seconds);
/// The same over the last `window` evaluations.
Abort speedup_within_evaluations(double factor, uint64_t window);

/// Parses the CLI form: a term is evaluations(N) | valid(N) | duration(T) | fraction(F) | cost(C) |
/// speedup(F, T) | speedup(F, Nevals); T is seconds with an optional unit s, m or h ("90s", "10m");
/// terms combine with &&, || and parentheses, && binding tighter. Throws mdh::UserError with the position, also
/// for counts above kMaxEvaluationCount, parentheses nested deeper than kMaxAbortNesting and more than
/// kMaxAbortTerms terms (the parser and the condition tree recurse; their depth must stay bounded).
Abort parse_abort(const std::string& expression);

}  // namespace mdh::tuner
