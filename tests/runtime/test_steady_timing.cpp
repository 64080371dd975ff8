// The steady-state instrument: the choice of calls per pair of time stamps on fake clocks, and on the default
// device the calls a pair really spans (every kernel of every call, between one START and one END).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/execute.h"
#include "runtime/steady_timing.h"
#include "support/error.h"
#include "tests/runtime/shared_context_test.h"

namespace mdh {
namespace {

// A device whose n calls take `fixed_ns + n * per_call_ns`; records the calls it was asked for.
struct FakeClock {
  explicit FakeClock(double per_call, double fixed = 0) : per_call_ns(per_call), fixed_ns(fixed) {}
  double per_call_ns;
  double fixed_ns;
  std::vector<int> asked;
  double operator()(int calls) {
    asked.push_back(calls);
    return fixed_ns + calls * per_call_ns;
  }
};

int choose(FakeClock& clock, const SteadyOptions& options = {}) {
  return choose_calls_per_pair([&clock](int calls) { return clock(calls); }, options);
}

TEST(ChooseCallsPerPair, SpansOneMillisecondWithTheFewestCalls) {
  FakeClock clock{50'000};  // 50 us per call: 20 calls span exactly 1 ms
  EXPECT_EQ(choose(clock), 20);
  EXPECT_EQ(clock.asked, (std::vector<int>{1, 20}));
}

TEST(ChooseCallsPerPair, StopsAtTheCallCountWhereCallsAreShort) {
  FakeClock clock{3'000};  // 3 us per call: 334 calls would span 1 ms, 100 calls suffice
  EXPECT_EQ(choose(clock), 100);
  EXPECT_EQ(clock.asked, (std::vector<int>{1, 100}));
  SteadyOptions options;
  options.min_calls = 250;
  FakeClock again{3'000};
  EXPECT_EQ(choose(again, options), 250);
}

TEST(ChooseCallsPerPair, OneLongCallIsEnough) {
  FakeClock clock{5'000'000};
  EXPECT_EQ(choose(clock), 1);
  EXPECT_EQ(clock.asked, (std::vector<int>{1}));
}

// A fixed cost per pair (the host's first enqueue, say) makes the first estimate short; the choice grows until a
// span really reaches the target, and stops at the first N that does.
TEST(ChooseCallsPerPair, GrowsUntilASpanReachesTheTarget) {
  FakeClock clock{10'000, 200'000};  // 80 calls span exactly 1 ms
  const int calls = choose(clock);
  EXPECT_EQ(calls, 80);
  EXPECT_GE(clock.fixed_ns + calls * clock.per_call_ns, 1e6);
  EXPECT_LT(clock.fixed_ns + (calls - 1) * clock.per_call_ns, 1e6);
  for (size_t k = 1; k < clock.asked.size(); ++k) EXPECT_GT(clock.asked[k], clock.asked[k - 1]);
}

// Whatever the per-call time, the chosen N spans the target or reaches the count, and never exceeds the count.
TEST(ChooseCallsPerPair, EveryChoiceSpansTheTargetOrReachesTheCount) {
  for (double per_call : {0.0, 1.0, 999.0, 9'999.0, 10'001.0, 33'333.0, 1e6 - 1, 1e6, 2e6}) {
    FakeClock clock{per_call};
    const int calls = choose(clock);
    EXPECT_TRUE(calls * per_call >= 1e6 || calls == 100) << per_call << " ns per call: " << calls;
    EXPECT_LE(calls, 100) << per_call;
    if (per_call > 0 && calls < 100) {
      EXPECT_EQ(calls, static_cast<int>(std::ceil(1e6 / per_call))) << per_call;
    }
  }
}

TEST(ChooseCallsPerPair, OptionsThatCannotChooseAreUserErrors) {
  FakeClock clock{1'000};
  SteadyOptions no_calls;
  no_calls.min_calls = 0;
  EXPECT_THROW(choose(clock, no_calls), UserError);
  SteadyOptions no_span;
  no_span.min_span_ns = 0;
  EXPECT_THROW(choose(clock, no_span), UserError);
  EXPECT_TRUE(clock.asked.empty());
}

// Two kernels per call: `count` adds one to a zeroed scratch counter, `report` copies it to the caller's buffer.
LaunchPlan counting_plan(const std::string& comment = "") {
  LaunchPlan plan;
  plan.source =
      "kernel void count(global int* counts) { counts[0] += 1; }\n"
      "kernel void report(global const int* counts, global int* seen) { seen[0] = counts[0]; }" +
      comment;
  plan.build_options = "-cl-std=CL1.2";
  plan.scratch.push_back({"counts", sizeof(cl_int), true});
  KernelLaunch count, report;
  count.kernel_name = "count";
  count.args = {{KernelArg::Kind::Scratch, "", 0}};
  report.kernel_name = "report";
  report.args = {{KernelArg::Kind::Scratch, "", 0}, {KernelArg::Kind::Buffer, "seen", -1}};
  plan.kernels = {count, report};
  return plan;
}

using SteadyTimerTest = testing::SharedContextTest;

// A pair spans exactly the calls asked for, both kernels of each: after another program used the scratch buffer,
// the span starts from a zeroed counter and the last call's second kernel reports n.
TEST_F(SteadyTimerTest, APairSpansExactlyTheCallsAskedForWithEveryKernel) {
  const LaunchPlan plan = counting_plan(), other = counting_plan("// another program");
  DeviceBuffer seen = context_->create_buffer(sizeof(cl_int));
  const std::map<std::string, cl_mem> buffers{{"seen", seen.get()}};
  SteadyTimer timer(*context_, plan, buffers, {});
  EXPECT_GE(timer.calls_per_pair(), 1);
  EXPECT_LE(timer.calls_per_pair(), SteadyOptions{}.min_calls);
  for (int calls : {1, 7, 40}) {
    execute_plan(*context_, other, buffers, {}, 0, 1);
    const double span = timer.span_ns(calls);
    cl_int value = -1;
    seen.read(&value, sizeof value);
    EXPECT_EQ(value, calls);
    EXPECT_GT(span, 0.0) << calls;
  }
  EXPECT_GT(timer.sample(), 0.0);
}

// Options as small as a test wants: a pair of at most 3 calls; the median's CI bounds the median.
TEST_F(SteadyTimerTest, SteadyTimeStopsAtTheSampleLimitWithAnOrderedInterval) {
  const LaunchPlan plan = counting_plan();
  DeviceBuffer seen = context_->create_buffer(sizeof(cl_int));
  SteadyOptions steady;
  steady.min_calls = 3;
  MeasurementOptions measurement;
  measurement.min_runs = 8;
  measurement.max_runs = 8;
  measurement.ci_relative = 1e-9;  // never met: exactly max_runs samples
  SteadyTimer timer(*context_, plan, {{"seen", seen.get()}}, {}, steady);
  const SteadyTiming t = steady_time(timer, measurement);
  EXPECT_LE(t.calls_per_pair, 3);
  ASSERT_EQ(t.per_call_ns.size(), 8u);
  for (double ns : t.per_call_ns) EXPECT_GT(ns, 0.0);
  EXPECT_LE(t.stats.ci_low_ns, t.stats.median_ns);
  EXPECT_LE(t.stats.median_ns, t.stats.ci_high_ns);
  EXPECT_FALSE(t.ci_met);
}

}  // namespace
}  // namespace mdh
