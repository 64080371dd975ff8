// After the search: its best few configurations, and the references the caller names (mdh: the default), timed again
// side by side under one protocol, so that the result is the configuration that is fastest when timed like a peer,
// not the luckiest draw among thousands of short timings.
//
// Why: a search keeps the lowest of thousands of medians of three runs, and for short kernels that minimum is biased
// low (docs/decisions.md).
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "tuner/evaluate/evaluation.h"

namespace mdh::tuner {

struct FinalTimingOptions {
  /// Each finalist is timed once per round, the finalists of a round in turn (the order rotated every round), so that
  /// a drift of the device (clocks, temperature, a neighbour's load) spreads over all of them alike.
  size_t rounds = 3;
  /// Timed seconds per finalist over all rounds, from the search's cost: short kernels get more runs, long ones at
  /// least one a round. Bounded by max_runs_per_round.
  double seconds_per_finalist = 0.3;
  int max_runs_per_round = 10;
};

struct Finalist {
  Configuration configuration;
  /// What the search measured; nullopt for a reference the search did not evaluate.
  std::optional<double> search_cost;
  /// What it is, for the record: "search" for one of the search's best, else the reference's name ("default").
  std::string role = "search";
};

struct FinalistTiming {
  Finalist finalist;
  /// The cost of each round (the evaluator's median over that round's runs).
  std::vector<double> round_costs;
  /// The median of the round costs, where every round succeeded and the result was checked.
  std::optional<double> cost;
  /// Why it has no cost: the first failed round's status and reason.
  std::string failure;
};

struct FinalTiming {
  std::vector<FinalistTiming> finalists;
  int runs_per_round = 0;
  size_t rounds = 0;
  /// Index of the fastest finalist with a cost; nullopt where none has one or the timing was interrupted.
  std::optional<size_t> chosen;
  bool interrupted = false;
};

/// How many timed runs each finalist gets per round: seconds_per_finalist / (rounds x fastest search cost), between
/// 1 and max_runs_per_round.
int final_runs_per_round(const std::vector<Finalist>& finalists, const FinalTimingOptions& options);

/// Times every finalist `rounds` times through `evaluator`, one evaluation at a time (several at once would time
/// each other's load where evaluators share a device), each with EvaluationContext::final_runs. `interrupt`, where
/// given, is checked between evaluations: when set, the evaluation in flight is abandoned and nothing is chosen.
FinalTiming time_finalists(Evaluator& evaluator, const std::vector<Finalist>& finalists,
                           const FinalTimingOptions& options, const std::atomic<bool>* interrupt = nullptr);

}  // namespace mdh::tuner
