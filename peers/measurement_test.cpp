// The measurement method (runtime/measurement.h) on synthetic, deterministic run sequences.
#include "runtime/measurement.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/error.h"

namespace mdh {
namespace {

/// A callable returning values[i % size] for both quantities (call time = 2 x device time), counting its calls.
struct Sequence {
  std::vector<double> values;
  int calls = 0;
  RunTimes operator()() {
    double v = values[static_cast<size_t>(calls++) % values.size()];
    return {v, 2 * v};
  }
};

TEST(MedianCiRanks, MatchesTheBinomialTable) {
  // Published 95% ranks for the median (e.g. Conover, Practical Nonparametric Statistics): n=6 -> 1..6,
  // n=10 -> 2..9, n=20 -> 6..15, n=100 -> 40..61.
  EXPECT_EQ(median_ci_ranks(5, 0.95), (std::pair<size_t, size_t>{0, 0}));
  EXPECT_EQ(median_ci_ranks(6, 0.95), (std::pair<size_t, size_t>{1, 6}));
  EXPECT_EQ(median_ci_ranks(10, 0.95), (std::pair<size_t, size_t>{2, 9}));
  EXPECT_EQ(median_ci_ranks(20, 0.95), (std::pair<size_t, size_t>{6, 15}));
  EXPECT_EQ(median_ci_ranks(100, 0.95), (std::pair<size_t, size_t>{40, 61}));
  EXPECT_EQ(median_ci_ranks(200, 0.95).first + median_ci_ranks(200, 0.95).second, 201u);
}

TEST(Measure, ConstantRunsStopAtTheFirstFiniteInterval) {
  Sequence seq{{1000.0}};
  Measurement m = measure(std::ref(seq), MeasurementOptions{});
  // 5 runs allow no finite 95% interval; the 6th gives [x1, x6] = [1000, 1000].
  EXPECT_EQ(m.runs, 6);
  EXPECT_EQ(seq.calls, 6 + MeasurementOptions{}.warmups);
  EXPECT_TRUE(m.ci_met);
  EXPECT_DOUBLE_EQ(m.device.median_ns, 1000.0);
  EXPECT_DOUBLE_EQ(m.call.median_ns, 2000.0);
  EXPECT_DOUBLE_EQ(m.device.stddev_ns, 0.0);
}

TEST(Measure, WideSpreadRunsToTheLimitAndSaysSo) {
  Sequence seq{{100.0, 200.0}};
  MeasurementOptions options;
  options.warmups = 0;
  Measurement m = measure(std::ref(seq), options);
  EXPECT_EQ(m.runs, 200);
  EXPECT_EQ(seq.calls, 200);
  EXPECT_FALSE(m.ci_met);
  EXPECT_DOUBLE_EQ(m.device.min_ns, 100.0);
  EXPECT_DOUBLE_EQ(m.device.max_ns, 200.0);
  EXPECT_DOUBLE_EQ(m.device.median_ns, 150.0);
  // 100 values of 100 and 100 of 200 around a mean of 150: sample stddev = 50 * sqrt(200/199).
  EXPECT_NEAR(m.device.stddev_ns, 50.0 * std::sqrt(200.0 / 199.0), 1e-9);
}

TEST(Measure, StopsOnceOutliersLeaveTheIntervalTight) {
  // One slow run in ten (+50%): the median's interval [x2, x9] at n=10 excludes it.
  Sequence seq{{100, 100, 101, 100, 99, 100, 150, 100, 101, 100}};
  MeasurementOptions options;
  options.warmups = 1;
  Measurement m = measure(std::ref(seq), options);
  EXPECT_TRUE(m.ci_met);
  // Runs are values[1..]; at n=6 (x1..x6 = 99..150) the interval [99, 150] is too wide; at n=7 ranks are 1..7
  // again (P(B<2) = 8/128 > 0.025), so the first possible stop is n=9 (ranks 2..8), containing no 150 beyond x8.
  EXPECT_EQ(m.runs, 9);
  EXPECT_DOUBLE_EQ(m.device.max_ns, 150.0);
  EXPECT_DOUBLE_EQ(m.device.median_ns, 100.0);
}

TEST(Measure, RespectsMinimumAndMaximum) {
  Sequence seq{{1.0}};
  MeasurementOptions options;
  options.warmups = 0;
  options.min_runs = 30;
  options.max_runs = 30;
  EXPECT_EQ(measure(std::ref(seq), options).runs, 30);
  options.max_runs = 3;
  options.min_runs = 1;
  Measurement m = measure(std::ref(seq), options);
  EXPECT_EQ(m.runs, 3);
  EXPECT_FALSE(m.ci_met);  // 3 runs give no 95% interval
}

TEST(Measure, RejectsInconsistentOptions) {
  Sequence seq{{1.0}};
  MeasurementOptions options;
  options.max_runs = 4;
  try {
    measure(std::ref(seq), options);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "measurement: the maximum number of runs (4) is below the minimum (5)");
  }
  options = MeasurementOptions{};
  options.warmups = -1;
  EXPECT_THROW(measure(std::ref(seq), options), UserError);
}

}  // namespace
}  // namespace mdh
