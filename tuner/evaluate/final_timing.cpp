// The final timing of a search's finalists (final_timing.h).
#include "tuner/evaluate/final_timing.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace mdh::tuner {

namespace {
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}
}  // namespace

int final_runs_per_round(const std::vector<Finalist>& finalists, const FinalTimingOptions& options) {
  std::optional<double> fastest;
  for (const Finalist& f : finalists)
    if (f.search_cost && *f.search_cost > 0 && (!fastest || *f.search_cost < *fastest)) fastest = f.search_cost;
  if (!fastest) return 1;
  const double rounds = static_cast<double>(std::max<size_t>(1, options.rounds));
  // A hair above the quotient, so that a share that divides evenly (0.3 s / (3 x 25 ms)) is not rounded down.
  const double runs = std::floor(options.seconds_per_finalist / (rounds * *fastest) * (1 + 1e-9));
  return static_cast<int>(std::clamp(runs, 1.0, static_cast<double>(std::max(1, options.max_runs_per_round))));
}

FinalTiming time_finalists(Evaluator& evaluator, const std::vector<Finalist>& finalists,
                           const FinalTimingOptions& options, const std::atomic<bool>* interrupt) {
  FinalTiming timing;
  timing.rounds = std::max<size_t>(1, options.rounds);
  timing.runs_per_round = final_runs_per_round(finalists, options);
  for (const Finalist& f : finalists) timing.finalists.push_back({f, {}, std::nullopt, ""});
  const size_t n = finalists.size();
  // Tickets of their own: the search's run numbered its evaluations from 0.
  uint64_t ticket = uint64_t(1) << 63;
  for (size_t round = 0; round < timing.rounds && !timing.interrupted; ++round) {
    for (size_t k = 0; k < n && !timing.interrupted; ++k) {
      FinalistTiming& t = timing.finalists[(k + round) % n];
      if (!t.failure.empty()) continue;
      if (interrupt && interrupt->load()) {
        timing.interrupted = true;
        break;
      }
      EvaluationContext context;
      context.final_runs = timing.runs_per_round;
      evaluator.submit(ticket, t.finalist.configuration, context);
      std::optional<std::pair<uint64_t, EvaluationResult>> done;
      while (!(done = evaluator.wait_for(0.1))) {
        if (interrupt && interrupt->load()) {
          evaluator.abandon();
          timing.interrupted = true;
          break;
        }
      }
      if (!done) break;
      MDH_INTERNAL_ASSERT(done->first == ticket, "the evaluator answered another ticket than the one in flight");
      ++ticket;
      const EvaluationResult& result = done->second;
      if (result.status != EvaluationStatus::ok)
        t.failure = to_string(result.status) + (result.reason.empty() ? "" : ": " + result.reason);
      else if (!result.verified || result.cut)
        t.failure = "the evaluator did not check it or cut its timing";  // a cost function that ignores final_runs
      else
        t.round_costs.push_back(result.cost);
    }
  }
  if (timing.interrupted) return timing;
  for (size_t k = 0; k < n; ++k) {
    FinalistTiming& t = timing.finalists[k];
    if (!t.failure.empty() || t.round_costs.size() != timing.rounds) continue;
    t.cost = median(t.round_costs);
    if (!timing.chosen || *t.cost < *timing.finalists[*timing.chosen].cost) timing.chosen = k;
  }
  return timing;
}

}  // namespace mdh::tuner
