// The progress of a tuning run (pipeline/tuning_progress.h): the exact line, the time left, and the rule that a run
// piped to a file prints a line at least every interval even while nothing improves.
#include "pipeline/tuning_progress.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

namespace mdh {
namespace {

tuner::TuningStatus status_after(uint64_t evaluations, uint64_t valid, double seconds, std::optional<double> best) {
  tuner::TuningStatus status;
  status.evaluations = evaluations;
  status.valid_evaluations = valid;
  status.elapsed_seconds = seconds;
  if (best) status.improvements.push_back({seconds, evaluations, *best});
  return status;
}

TEST(TuningProgress, LineShowsCountOfLimitTimeOfBudgetAndTimeLeft) {
  const auto status = status_after(4, 4, 7, 0.0001234);
  // 196 evaluations left at 1.75 s each would take 5 min 43 s; the budget ends first, so it decides.
  EXPECT_EQ(progress_line(status, {200, 60.0}, 7),
            "evaluations 4 of 200 (4 valid), best 0.1234 ms, 7 s of 1 min, about 53 s left");
  EXPECT_EQ(progress_line(status, {200, std::nullopt}, 7),
            "evaluations 4 of 200 (4 valid), best 0.1234 ms, 7 s, about 5 min 43 s left");
  // Three seconds into the next evaluation the pace estimate moves on with the clock.
  EXPECT_EQ(progress_line(status, {200, std::nullopt}, 10),
            "evaluations 4 of 200 (4 valid), best 0.1234 ms, 10 s, about 5 min 40 s left");
  EXPECT_EQ(progress_line(status_after(0, 0, 0, std::nullopt), {std::nullopt, 600.0}, 1),
            "evaluations 0 (0 valid), best none yet, 1 s of 10 min, about 9 min 59 s left");
  EXPECT_EQ(progress_line(status_after(3, 1, 5, std::nullopt), {}, 5), "evaluations 3 (1 valid), best none yet, 5 s");
  // An evaluation still running when the budget ends: the run waits for it, and the line says why.
  EXPECT_EQ(progress_line(status_after(1, 1, 7, 0.0002152), {15, 15.0}, 47),
            "evaluations 1 of 15 (1 valid), best 0.2152 ms, 47 s of 15 s, budget used up: finishing the evaluations "
            "under way");
}

// A record of an evaluation whose stages took these seconds (as the cost function names them).
tuner::EvaluationRecord record_with_stages(double compile_ahead, double source, double program, double warmup,
                                           double device, double verification) {
  tuner::EvaluationRecord record;
  record.compile_seconds = compile_ahead;
  record.result.stage_seconds = {{"kernel source", source},
                                 {"program", program},
                                 {"warm-up", warmup},
                                 {"device", device},
                                 {"verification", verification}};
  return record;
}

// Evaluations rare enough that a user may think the run is stuck (2 s or more each): the line says where their time
// goes; before the first one, that the first kernels are compiling and launching.
TEST(TuningProgress, RareEvaluationsSayWhereTheTimeGoes) {
  EvaluationTimes times;
  times.add(record_with_stages(6.0, 0.1, 1.9, 3.0, 0.5, 0.1));
  times.add(record_with_stages(7.9, 0.1, 0.0, 3.4, 0.1, 0.1));
  EXPECT_EQ(progress_line(status_after(2, 2, 30, 0.0001), {100, 60.0}, 31, times),
            "evaluations 2 of 100 (2 valid), best 0.1000 ms, 31 s of 1 min, about 29 s left; per evaluation: "
            "compiling 8.0 s, first launch 3.2 s, running 0.4 s");
  EXPECT_EQ(progress_line(status_after(0, 0, 0, std::nullopt), {std::nullopt, 60.0}, 12),
            "evaluations 0 (0 valid), best none yet, 12 s of 1 min, about 48 s left; no evaluation finished yet: "
            "compiling and launching the first kernels");
  // Frequent evaluations: the line stays short.
  EXPECT_EQ(progress_line(status_after(40, 40, 30, 0.0001), {std::nullopt, 60.0}, 31, times),
            "evaluations 40 (40 valid), best 0.1000 ms, 31 s of 1 min, about 29 s left");
}

TEST(TuningProgress, DurationsReadAsPeopleWriteThem) {
  EXPECT_EQ(format_duration(0.4), "0 s");
  EXPECT_EQ(format_duration(59.6), "1 min");
  EXPECT_EQ(format_duration(200), "3 min 20 s");
  EXPECT_EQ(format_duration(3900), "1 h 5 min");
  EXPECT_EQ(format_duration(7200), "2 h");
  EXPECT_EQ(format_duration(-3), "0 s");
}

TEST(TuningProgress, PipedItPrintsImprovementsAndALineEveryIntervalWhileNothingHappens) {
  std::ostringstream out;
  {
    TuningProgress progress(out, false, {10, std::nullopt}, 0.2);
    tuner::EvaluationRecord record;
    record.result.status = tuner::EvaluationStatus::ok;
    record.result.cost = 0.002;
    record.result.verified = true;
    progress.on_evaluation(status_after(1, 1, 0.01, 0.002), record, false);  // an improvement: printed at once
    record.result.cost = 0.003;
    progress.on_evaluation(status_after(2, 2, 0.02, 0.002), record, false);  // not better: not printed by itself
    std::this_thread::sleep_for(std::chrono::milliseconds(700));             // a long evaluation: the clock prints
  }
  const std::string text = out.str();
  EXPECT_EQ(text.find('\r'), std::string::npos) << "no in-place rewriting when not on a terminal";
  EXPECT_EQ(text.rfind("evaluations 1 of 10 (1 valid), best 2.0000 ms, 0 s, about 0 s left\n", 0), 0u) << text;
  size_t heartbeats = 0;
  for (size_t at = text.find("evaluations 2 of 10"); at != std::string::npos;
       at = text.find("evaluations 2 of 10", at + 1))
    ++heartbeats;
  EXPECT_GE(heartbeats, 2u) << "at least one line per 0.2 s interval over 0.7 s without an evaluation:\n" << text;
  EXPECT_LE(heartbeats, 4u) << text;
}

}  // namespace
}  // namespace mdh
