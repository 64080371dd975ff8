// The measurement method (runtime/measurement.h) on synthetic, deterministic run sequences.
#include "runtime/measurement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "peers/steady_measurement.h"
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

/// A fake device for the steady instrument: `launch_ns` of host work per call that overlaps the previous call's
/// `kernel_ns` once calls are back to back, so n calls span launch + n * max(kernel, launch); counts every call.
struct FakeDevice {
  double kernel_ns, launch_ns;
  std::vector<int> requests;
  double operator()(int n) {
    requests.push_back(n);
    return launch_ns + n * std::max(kernel_ns, launch_ns);
  }
};

TEST(SteadyCalls, ShortCallsAreTimedAHundredAtATime) {
  FakeDevice device{3000, 8000};  // 8 us per call: 100 calls span 0.8 ms, below 1 ms, so the cap decides
  EXPECT_EQ(peers::choose_steady_calls(std::ref(device)), peers::kSteadyMaxCalls);
  EXPECT_LE(device.requests.size(), 3u);
}

TEST(SteadyCalls, ThePairSpansAMillisecondWhereFewerCallsReachIt) {
  FakeDevice device{50000, 5000};  // 50 us per call: 20 calls span 1 ms
  const int n = peers::choose_steady_calls(std::ref(device));
  EXPECT_GE(device(n), peers::kSteadySpanNs);
  EXPECT_LT(device(n - 1), peers::kSteadySpanNs + 50000);
  EXPECT_LE(n, 21);
}

TEST(SteadyCalls, ALongCallIsItsOwnSample) {
  FakeDevice device{2.5e6, 5000};
  EXPECT_EQ(peers::choose_steady_calls(std::ref(device)), 1);
  EXPECT_EQ(device.requests, std::vector<int>{1});
}

TEST(SteadyCalls, SamplesAreTimesPerCallUntilTheIntervalIsMet) {
  FakeDevice device{40000, 2000};
  MeasurementOptions options;
  options.warmups = 1;
  const peers::SteadyMeasurement steady = peers::measure_steady(std::ref(device), options);
  const int n = steady.calls_per_sample;
  EXPECT_EQ(n, 25);  // 25 x 40 us + 2 us spans 1 ms
  EXPECT_TRUE(steady.per_call.ci_met);
  EXPECT_EQ(steady.per_call.runs, 6);  // constant samples: the first n with a finite 95% interval of the median
  EXPECT_DOUBLE_EQ(steady.per_call.device.median_ns, (2000.0 + 25 * 40000.0) / 25);
  ASSERT_GE(device.requests.size(), 7u);  // the warm-up and the six samples, after the calibration
  for (size_t k = device.requests.size() - 7; k < device.requests.size(); ++k) EXPECT_EQ(device.requests[k], n);

  const nlohmann::json fields = peers::steady_record_fields(steady, "a fake pair");
  EXPECT_DOUBLE_EQ(fields.at("steady_time_ns").at("median").get<double>(), steady.per_call.device.median_ns);
  EXPECT_EQ(fields.at("steady").at("calls_per_sample"), n);
  EXPECT_EQ(fields.at("steady").at("samples"), 6);
  EXPECT_EQ(fields.at("steady").at("ci_met"), true);
  EXPECT_EQ(fields.at("steady").at("includes"), "a fake pair");
}

TEST(SteadyCalls, UnusableTimestampsAreAnError) {
  EXPECT_THROW(peers::choose_steady_calls([](int) { return 0.0; }), UserError);
  EXPECT_THROW(peers::choose_steady_calls([](int) { return std::nan(""); }), UserError);
}

}  // namespace
}  // namespace mdh
