// The end-of-run summary of `mdh tune`.
#include "pipeline/tune/tuning_summary.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace mdh {
namespace {

// "1 compile worker", "2 compile workers".
std::string count_of(uint64_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

void print_tuning_summary(std::ostream& out, const TuningOutcome& outcome, bool under_mpirun,
                          const std::map<int, double>& rank_compile_seconds) {
  const tuner::TuningResult& result = outcome.result;
  // Evaluations per second over this run's wall time (replayed ones took none of it): the tuner's throughput.
  const uint64_t evaluated = result.status.evaluations - result.replayed;
  char rate[48];
  std::snprintf(rate, sizeof rate, "%.2f evaluations/s", outcome.seconds > 0 ? evaluated / outcome.seconds : 0.0);
  out << "stopped: " << result.stop_reason << "; " << count_of(result.status.evaluations, "evaluation") << " ("
      << result.status.valid_evaluations << " valid, " << result.status.verified_evaluations << " verified, "
      << result.status.cut_evaluations << " cut, " << result.replayed << " replayed) in "
      << static_cast<int>(outcome.seconds) << " s, " << rate << "\n";
  // Where the time went (tuner/tuner.h, TimeBreakdown): what limits the rate.
  if (evaluated > 0) {
    const tuner::TimeBreakdown& t = result.time;
    char breakdown[256];
    if (under_mpirun)
      // The ranks compile what they evaluate: an evaluation's time runs from sending it to its result, its compile
      // included, and the loop never waits for a compile of its own.
      std::snprintf(breakdown, sizeof breakdown,
                    "time: %.1f s on the ranks (%.0f ms per evaluation from sending it to its result, its compile "
                    "included), %.1f s in the tuning loop (%.1f s of the run before it: setup and reference)",
                    t.evaluating_seconds, 1e3 * t.evaluating_seconds / static_cast<double>(evaluated),
                    result.status.elapsed_seconds, std::max(0.0, outcome.seconds - result.status.elapsed_seconds));
    else
      std::snprintf(breakdown, sizeof breakdown,
                    "time: %.1f s evaluating (%.0f ms per evaluation), %.1f s idle waiting for compiles, %.1f s in "
                    "the tuning loop (%.1f s of the run before it: setup and reference)",
                    t.evaluating_seconds, 1e3 * t.evaluating_seconds / static_cast<double>(evaluated),
                    t.waiting_for_prepare_seconds, result.status.elapsed_seconds,
                    std::max(0.0, outcome.seconds - result.status.elapsed_seconds));
    out << breakdown;
    if (t.prepared > 0)
      out << "; " << count_of(t.prepared, "compile") << " ahead took "
          << static_cast<int>(1e3 * t.prepare_seconds / t.prepared) << " ms each on average, on "
          << count_of(outcome.compile_threads, "compile worker");
    out << "\n";
    // Over this run's part of the loop's time (a resumed run's elapsed time starts where the journal's ended).
    const double loop_seconds = result.replayed == 0 ? result.status.elapsed_seconds : 0;
    if (!rank_compile_seconds.empty() && loop_seconds > 0) {
      out << "compiles in flight on average:";
      char part[48];
      const char* separator = " ";
      for (const auto& [rank, seconds] : rank_compile_seconds) {
        std::snprintf(part, sizeof part, "%srank %d: %.1f", separator, rank, seconds / loop_seconds);
        out << part;
        separator = ", ";
      }
      out << " (" << count_of(outcome.compile_threads, "compile worker") << " on rank 0)\n";
    }
    // The spread, not only the mean: one slow compile at the front of the window holds every evaluation behind it.
    if (!t.compile_seconds.empty()) {
      std::vector<double> sorted = t.compile_seconds;
      std::sort(sorted.begin(), sorted.end());
      auto quantile = [&](double q) { return 1e3 * sorted[static_cast<size_t>(q * (sorted.size() - 1))]; };
      char spread[160];
      std::snprintf(spread, sizeof spread,
                    "compiles of the evaluations: median %.0f ms, 90%% within %.0f ms, slowest %.0f ms\n",
                    quantile(0.5), quantile(0.9), 1e3 * sorted.back());
      out << spread;
    }
    // One evaluation's stages, as the cost function timed them, and the rest of the evaluator's time: sending the
    // request, the reply, and a worker restarted after a crash or timeout.
    if (!t.stage_seconds.empty()) {
      const double per = 1e3 / static_cast<double>(evaluated);
      double staged = 0;
      char part[96];
      out << "per evaluation:";
      for (const auto& [stage, seconds] : t.stage_seconds) {
        std::snprintf(part, sizeof part, " %.1f ms %s,", seconds * per, stage.c_str());
        out << part;
        staged += seconds;
      }
      std::snprintf(part, sizeof part, " %.1f ms elsewhere (worker messages and restarts)",
                    std::max(0.0, t.evaluating_seconds - staged) * per);
      out << part << "\n";
    }
    // What a restart after a timeout or crash costs, and where it goes.
    if (outcome.worker_start_ups > 0) {
      const double n = static_cast<double>(outcome.worker_start_ups);
      char part[96];
      std::snprintf(part, sizeof part, "evaluating worker start-ups: %llu, %.2f s each until ready",
                    static_cast<unsigned long long>(outcome.worker_start_ups), outcome.worker_start_up_seconds / n);
      out << part;
      const char* separator = " (";
      for (const auto& [stage, seconds] : outcome.worker_start_up_stages) {
        std::snprintf(part, sizeof part, "%s%.2f s %s", separator, seconds / n, stage.c_str());
        out << part;
        separator = ", ";
      }
      out << (outcome.worker_start_up_stages.empty() ? "\n" : ")\n");
    }
  }
}

}  // namespace mdh
