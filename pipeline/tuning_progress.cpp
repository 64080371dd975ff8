// Progress lines of a tuning run (see tuning_progress.h).
#include "pipeline/tuning_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pipeline/cost_function.h"

namespace mdh {

std::string format_duration(double seconds) {
  const long total = std::lround(std::max(0.0, seconds));
  char buf[48];
  if (total < 60)
    std::snprintf(buf, sizeof buf, "%ld s", total);
  else if (total < 3600)
    std::snprintf(buf, sizeof buf, total % 60 ? "%ld min %ld s" : "%ld min", total / 60, total % 60);
  else
    std::snprintf(buf, sizeof buf, (total % 3600) / 60 ? "%ld h %ld min" : "%ld h", total / 3600, (total % 3600) / 60);
  return buf;
}

void EvaluationTimes::add(const tuner::EvaluationRecord& record) {
  ++evaluations;
  compiling += record.compile_seconds.value_or(0);
  for (const auto& [stage, seconds] : record.result.stage_seconds) {
    if (stage == kWarmupStage)
      first_launch += seconds;
    else if (stage == kProgramStage || stage == "kernel source")
      compiling += seconds;
    else
      running += seconds;
  }
}

namespace {

// "; per evaluation: compiling 8.1 s, first launch 3.2 s, running 0.4 s" where evaluations are rare, else "".
std::string where_the_time_goes(const tuner::TuningStatus& status, double elapsed_seconds,
                                const EvaluationTimes& times) {
  if (elapsed_seconds < kRareEvaluationSeconds) return "";
  if (status.evaluations == 0 || times.evaluations == 0)
    return status.evaluations == 0 ? "; no evaluation finished yet: compiling and launching the first kernels" : "";
  if (elapsed_seconds / static_cast<double>(status.evaluations) < kRareEvaluationSeconds) return "";
  const double n = static_cast<double>(times.evaluations);
  char text[128];
  std::snprintf(text, sizeof text, "; per evaluation: compiling %.1f s, first launch %.1f s, running %.1f s",
                times.compiling / n, times.first_launch / n, times.running / n);
  return text;
}

}  // namespace

std::string progress_line(const tuner::TuningStatus& status, const TuningHorizon& horizon, double elapsed_seconds,
                          const EvaluationTimes& times) {
  std::string line = "evaluations " + std::to_string(status.evaluations);
  if (horizon.evaluations) line += " of " + std::to_string(*horizon.evaluations);
  line += " (" + std::to_string(status.valid_evaluations) + " valid), best ";
  if (auto best = status.best_cost()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f ms", *best * 1e3);
    line += buf;
  } else {
    line += "none yet";
  }
  line += ", " + format_duration(elapsed_seconds);
  if (horizon.seconds) line += " of " + format_duration(*horizon.seconds);
  // Time left: the budget's rest, or the evaluations still allowed at the pace so far, whichever ends first.
  std::optional<double> left;
  if (horizon.seconds) left = *horizon.seconds - elapsed_seconds;
  if (horizon.evaluations && status.evaluations > 0 && status.elapsed_seconds > 0) {
    const double remaining = static_cast<double>(*horizon.evaluations) - static_cast<double>(status.evaluations);
    const double by_pace = std::max(0.0, remaining) * status.elapsed_seconds / static_cast<double>(status.evaluations) -
                           (elapsed_seconds - status.elapsed_seconds);
    left = left ? std::min(*left, by_pace) : by_pace;
  }
  // Past the budget the run still waits for the evaluations under way (a slow compile or kernel): say so rather
  // than "0 s left" for as long as that takes.
  if (horizon.seconds && elapsed_seconds >= *horizon.seconds)
    line += ", budget used up: finishing the evaluations under way";
  else if (left)
    line += ", about " + format_duration(std::max(0.0, *left)) + " left";
  return line + where_the_time_goes(status, elapsed_seconds, times);
}

TuningProgress::TuningProgress(std::ostream& out, bool terminal, TuningHorizon horizon, double interval_seconds)
    : out_(out), terminal_(terminal), horizon_(horizon), interval_seconds_(interval_seconds) {
  clock_ = std::thread([this] { tick(); });
}

TuningProgress::~TuningProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  clock_.join();
  if (terminal_) out_ << '\n' << std::flush;
}

double TuningProgress::elapsed_locked() const {
  return status_.elapsed_seconds + std::chrono::duration<double>(Clock::now() - status_time_).count();
}

void TuningProgress::print_locked() {
  const std::string line = progress_line(status_, horizon_, elapsed_locked(), times_);
  if (terminal_)
    out_ << "\r\033[K" << line << std::flush;
  else
    out_ << line << '\n' << std::flush;
  printed_ = Clock::now();
}

void TuningProgress::on_evaluation(const tuner::TuningStatus& status, const tuner::EvaluationRecord& record,
                                   bool replayed) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_ = status;
  status_time_ = Clock::now();
  if (!replayed) times_.add(record);
  const auto best = status.best_cost();
  const bool improved = !replayed && record.result.status == tuner::EvaluationStatus::ok && best &&
                        record.result.cost == *best && record.result.verified;
  if (terminal_ || improved) print_locked();
}

// The clock: on a terminal the line's times move every second; elsewhere a line whenever `interval` has passed
// since the last one, also in the middle of a long evaluation.
void TuningProgress::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto step = std::chrono::duration<double>(terminal_ ? 1.0 : std::min(1.0, interval_seconds_ / 4));
  while (!wake_.wait_for(lock, step, [this] { return stopping_; })) {
    if (terminal_ || std::chrono::duration<double>(Clock::now() - printed_).count() >= interval_seconds_)
      print_locked();
  }
}

}  // namespace mdh
