// One `mdh tune` process: ranks, progress, signals, the run, its summary and its result file.
#include "pipeline/tune/tuning_session.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "pipeline/tune/tuning_ranks.h"
#include "pipeline/tune/tuning_summary.h"
#include "tuner/interrupt_signals.h"

namespace mdh {
namespace {

std::string format_cost(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f ms", seconds * 1e3);
  return buf;
}

std::string rates(const std::optional<double>& gflops, const std::optional<double>& gbytes) {
  std::string out;
  char buf[48];
  if (gflops) std::snprintf(buf, sizeof buf, ", %.2f GFLOP/s", *gflops), out += buf;
  if (gbytes) std::snprintf(buf, sizeof buf, ", %.2f GB/s", *gbytes), out += buf;
  return out;
}

// What a run without a valid configuration says instead of a best: why nothing was evaluated, or the first
// evaluation's failure (a compiler error, a wrong result), so that the user need not search the journal for it.
std::string no_valid_configuration(const TuningOutcome& outcome, const std::optional<tuner::EvaluationRecord>& failed,
                                   const std::string& journal_path) {
  const tuner::TuningResult& result = outcome.result;
  if (result.status.evaluations == 0)
    return "no configuration was evaluated: the run stopped before its first evaluation finished (" +
           result.stop_reason + ")\n";
  std::string text = "no valid configuration found: ";
  text += result.status.evaluations == 1 ? "the one evaluation"
                                         : "all " + std::to_string(result.status.evaluations) + " evaluations";
  text += " failed";
  if (failed) {
    // The first lines of the reason only: a compiler's log can run to pages, and the journal keeps all of it.
    constexpr size_t kQuotedReason = 1500;
    std::string reason = failed->result.reason.empty() ? "(no reason given)" : failed->result.reason;
    if (reason.size() > kQuotedReason) reason = reason.substr(0, kQuotedReason) + " ...";
    text += "; evaluation " + std::to_string(failed->evaluation) + ": " + tuner::to_string(failed->result.status) +
            ": " + reason;
    if (text.back() != '\n') text += '\n';
  } else {
    text += "\n";
  }
  return text + "every evaluation's reason is in the journal " + journal_path + "\n";
}

}  // namespace

int run_tuning_session(const TuningRequest& request, TuningSettings settings, const TuningSessionOptions& session) {
  settings.interrupt = &tuner::signal_interrupt();
  // One write per note: under mpirun several ranks' notes share one stream, and the pieces of one line would
  // interleave with another rank's.
  settings.note = [](const std::string& text) { std::cerr << ("note: " + text + "\n") << std::flush; };
  std::optional<TuningProgress> progress;
  progress.emplace(std::cerr, ::isatty(STDERR_FILENO), session.horizon);
  // Under mpirun: each evaluating rank's compile seconds, which say how many compiles it kept in flight.
  std::map<int, double> rank_compile_seconds;
  std::optional<tuner::EvaluationRecord> first_failure;  // replayed ones included: the run's first
  settings.on_evaluation = [&](const tuner::TuningStatus& status, const tuner::EvaluationRecord& record,
                               bool replayed) {
    if (progress) progress->on_evaluation(status, record, replayed);
    if (!first_failure && record.result.status != tuner::EvaluationStatus::ok) first_failure = record;
    if (!replayed && record.compile_seconds && record.result.measured_on.contains("rank"))
      rank_compile_seconds[record.result.measured_on["rank"].get<int>()] += *record.compile_seconds;
  };
  TuningRanks ranks(settings, session.rank0_evaluates);
  if (ranks.quiet()) progress.reset();

  std::optional<TuningOutcome> outcome;
  {
    const tuner::InterruptOnSignals signals;
    outcome = ranks.tune(request, settings);
  }
  if (!outcome) return 0;  // a rank other than 0 failed: rank 0 reports it
  progress.reset();
  if (outcome->served) return 0;

  print_tuning_summary(std::cout, *outcome, ranks.under_mpirun(), rank_compile_seconds);
  if (!outcome->result_file) {
    std::cout << no_valid_configuration(*outcome, first_failure, settings.journal_path);
    return 1;
  }
  session.write_text(session.out_path, outcome->result_file->to_json().dump(2) + "\n");
  // Which figure this is: the final timing's (as the benchmark times) or, without one, the search's own.
  const bool final_timed = outcome->final_timing && outcome->final_timing->chosen;
  std::cout << (final_timed ? "best (final timing): " : "best (the search's; no final timing): ")
            << format_cost(*outcome->result.best_cost)
            << rates(outcome->result_file->gflops, outcome->result_file->gbytes_per_second) << " -> "
            << session.out_path << '\n';
  return 0;
}

}  // namespace mdh
