// What a tuning run shows while it runs: how many evaluations of how many, the best so far, the time used of the
// budget and the time left. On a terminal one line rewritten in place; piped to a file a line for each improvement
// and at least one every `interval` seconds, so that a run which finds nothing better is never silent for long.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

#include "tuner/abort.h"
#include "tuner/journal/journal.h"

namespace mdh {

/// The limits a tuning run stops at, where it has them (an --abort expression alone gives none).
struct TuningHorizon {
  std::optional<uint64_t> evaluations;
  std::optional<double> seconds;
};

/// Where the evaluations' time went, summed from their records, so that a run whose evaluations are rare says what
/// it is doing: compiling (the kernel's source, the compile ahead and the evaluating worker's build), first launches
/// (the warm-up runs: PoCL compiles a kernel again for its work-group size at its first launch) and running (the
/// timed runs and the check against the reference).
struct EvaluationTimes {
  uint64_t evaluations = 0;
  double compiling = 0, first_launch = 0, running = 0;
  void add(const tuner::EvaluationRecord& record);
};

/// At least this many seconds per evaluation (or this long without one) make evaluations rare: the progress line then
/// says where their time goes.
inline constexpr double kRareEvaluationSeconds = 2;

/// "evaluations 4 of 200 (4 valid), best 0.1234 ms, 7 s of 1 min, about 53 s left". `elapsed_seconds` may run ahead of
/// status.elapsed_seconds (the time of the last evaluation) while an evaluation is under way. When evaluations are
/// rare it goes on "; per evaluation: compiling 8.1 s, first launch 3.2 s, running 0.4 s" (from `times`), or before
/// the first one "; no evaluation finished yet: compiling and launching the first kernels".
std::string progress_line(const tuner::TuningStatus& status, const TuningHorizon& horizon, double elapsed_seconds,
                          const EvaluationTimes& times = {});

/// "45 s", "3 min 20 s", "1 h 5 min".
std::string format_duration(double seconds);

class TuningProgress {
 public:
  /// `terminal`: rewrite one line in place (and refresh it every second); otherwise whole lines as described above.
  TuningProgress(std::ostream& out, bool terminal, TuningHorizon horizon, double interval_seconds = 10);
  /// Stops the clock thread and ends the line in place.
  ~TuningProgress();
  TuningProgress(const TuningProgress&) = delete;
  TuningProgress& operator=(const TuningProgress&) = delete;

  /// The tuner's on_evaluation callback (TunerOptions::on_evaluation).
  void on_evaluation(const tuner::TuningStatus& status, const tuner::EvaluationRecord& record, bool replayed);

 private:
  using Clock = std::chrono::steady_clock;
  void tick();
  void print_locked();
  double elapsed_locked() const;

  std::ostream& out_;
  const bool terminal_;
  const TuningHorizon horizon_;
  const double interval_seconds_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  tuner::TuningStatus status_;
  EvaluationTimes times_;
  Clock::time_point status_time_ = Clock::now();  // when status_ arrived (or when tuning started)
  Clock::time_point printed_ = Clock::now();      // when the last line was printed
  std::thread clock_;
};

}  // namespace mdh
