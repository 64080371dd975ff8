// The final timing of a search's finalists: each timed again in rounds, in turn, with the order rotated; the fastest
// as timed again is chosen, not the one the search measured lowest; failures and interrupts choose nothing wrong.
// And the tuning loop's leaders, from which the finalists come.
#include "tuner/evaluate/final_timing.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "tests/tuner/synthetic.h"
#include "tuner/search/technique_registry.h"
#include "tuner/tuner.h"

namespace mdh::tuner {
namespace {

using testing::bowl_parameters;

// Configurations of the bowl space by X (Y=1, Z=1, FLAG=1).
Configuration bowl_point(const std::shared_ptr<const std::vector<Parameter>>& parameters, int64_t x) {
  return Configuration(parameters, {x, 1, 1, 1});
}

// Answers a final timing with a true cost per X and records what it was asked, in order.
class TimedAgain final : public CostFunction {
 public:
  std::map<int64_t, double> true_cost;
  std::map<int64_t, int> fail_on_call;  // X -> the call (1-based, counted per X) that fails with a wrong result
  std::vector<int64_t> order;
  std::vector<std::optional<int>> final_runs;
  std::atomic<bool>* interrupt_after_second = nullptr;

  EvaluationResult evaluate(const Configuration& c) override { return evaluate_in_context(c, {}); }
  EvaluationResult evaluate_in_context(const Configuration& c, const EvaluationContext& context) override {
    const int64_t x = c["X"];
    order.push_back(x);
    final_runs.push_back(context.final_runs);
    if (interrupt_after_second && order.size() == 2) *interrupt_after_second = true;
    if (fail_on_call.count(x) && ++calls_[x] == fail_on_call[x])
      return EvaluationResult::failed(EvaluationStatus::wrong_result, "synthetic mismatch");
    return EvaluationResult::ok(true_cost.at(x));
  }

 private:
  std::map<int64_t, int> calls_;
};

class FinalTimingTest : public ::testing::Test {
 protected:
  const std::shared_ptr<const std::vector<Parameter>> parameters_ =
      std::make_shared<const std::vector<Parameter>>(bowl_parameters());
  // The search's luckiest draw (X=1: measured 0.5, truly 1.3), two honest ones and the default (no search cost).
  std::vector<Finalist> finalists_ = {{bowl_point(parameters_, 1), 0.5, "search"},
                                      {bowl_point(parameters_, 2), 1.05, "search"},
                                      {bowl_point(parameters_, 3), 1.1, "search"},
                                      {bowl_point(parameters_, 4), std::nullopt, "default"}};
  TimedAgain cost_;
  FinalTimingTest() { cost_.true_cost = {{1, 1.3}, {2, 1.0}, {3, 1.1}, {4, 1.2}}; }
};

TEST_F(FinalTimingTest, TheFastestWhenTimedAgainIsChosenNotTheLuckiestDrawOfTheSearch) {
  InProcessEvaluator evaluator(cost_);
  const FinalTiming timing = time_finalists(evaluator, finalists_, FinalTimingOptions{});
  EXPECT_FALSE(timing.interrupted);
  ASSERT_TRUE(timing.chosen);
  EXPECT_EQ(*timing.chosen, 1u);
  EXPECT_EQ(timing.finalists[1].finalist.role, "search");
  EXPECT_EQ(timing.rounds, 3u);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(timing.finalists[k].round_costs.size(), 3u);
    ASSERT_TRUE(timing.finalists[k].cost);
    EXPECT_DOUBLE_EQ(*timing.finalists[k].cost, cost_.true_cost.at(static_cast<int64_t>(k + 1)));
    EXPECT_EQ(timing.finalists[k].failure, "");
  }
  // In turn, each round starting one later; every evaluation a final one with the runs for the fastest search cost
  // (0.3 s over 3 rounds of 0.5 s: one run each).
  EXPECT_EQ(cost_.order, (std::vector<int64_t>{1, 2, 3, 4, 2, 3, 4, 1, 3, 4, 1, 2}));
  for (const std::optional<int>& runs : cost_.final_runs) EXPECT_EQ(runs, std::optional<int>(1));
}

TEST_F(FinalTimingTest, AFinalistThatFailsARoundIsNotTimedAgainOrChosen) {
  cost_.true_cost[3] = 0.9;  // the fastest, but its second timing is wrong
  cost_.fail_on_call[3] = 2;
  InProcessEvaluator evaluator(cost_);
  const FinalTiming timing = time_finalists(evaluator, finalists_, FinalTimingOptions{});
  ASSERT_TRUE(timing.chosen);
  EXPECT_EQ(*timing.chosen, 1u);
  EXPECT_FALSE(timing.finalists[2].cost);
  EXPECT_EQ(timing.finalists[2].failure, "wrong_result: synthetic mismatch");
  EXPECT_EQ(std::count(cost_.order.begin(), cost_.order.end(), 3), 2) << "timed until it failed, then left out";
}

TEST_F(FinalTimingTest, ACostFunctionThatIgnoresTheFinalTimingLeavesItsResultOut) {
  class Unchecked final : public CostFunction {
   public:
    EvaluationResult evaluate(const Configuration&) override {
      EvaluationResult r = EvaluationResult::ok(1.0);
      r.verified = false;
      return r;
    }
  } unchecked;
  InProcessEvaluator evaluator(unchecked);
  const FinalTiming timing = time_finalists(evaluator, finalists_, FinalTimingOptions{});
  EXPECT_FALSE(timing.chosen);
  EXPECT_EQ(timing.finalists[0].failure, "the evaluator did not check it or cut its timing");
}

TEST_F(FinalTimingTest, AnInterruptStopsTheTimingAndChoosesNothing) {
  std::atomic<bool> interrupt{false};
  cost_.interrupt_after_second = &interrupt;
  InProcessEvaluator evaluator(cost_);
  const FinalTiming timing = time_finalists(evaluator, finalists_, FinalTimingOptions{}, &interrupt);
  EXPECT_TRUE(timing.interrupted);
  EXPECT_FALSE(timing.chosen);
  EXPECT_EQ(cost_.order.size(), 2u);
}

TEST(FinalRunsPerRound, FollowTheFastestSearchCostBetweenOneAndTheMaximum) {
  auto parameters = std::make_shared<const std::vector<Parameter>>(bowl_parameters());
  auto with_costs = [&](std::vector<std::optional<double>> costs) {
    std::vector<Finalist> finalists;
    for (const auto& cost : costs) finalists.push_back({bowl_point(parameters, 1), cost, "search"});
    return final_runs_per_round(finalists, FinalTimingOptions{});  // 0.3 s over 3 rounds, at most 10 a round
  };
  EXPECT_EQ(with_costs({6e-6}), 10);
  EXPECT_EQ(with_costs({0.05, 0.02}), 5);
  EXPECT_EQ(with_costs({0.9}), 1);
  EXPECT_EQ(with_costs({std::nullopt}), 1);
  EXPECT_EQ(with_costs({std::nullopt, 0.025}), 4);
}

// The loop keeps the lowest costs of the run in order, leaves out cut timings (one run, not a median) and counts
// unchecked results (a cost function checks only what could become the best when measured).
TEST(TunerLeaders, AreTheLowestFullyTimedCostsOfTheRunLowestFirst) {
  class Bowl final : public CostFunction {
   public:
    EvaluationResult evaluate(const Configuration& c) override {
      EvaluationResult r = EvaluationResult::ok(testing::bowl_cost(c));
      if (c["X"] == 1) {  // timed once and cut, cheaper than anything
        r.cost = 0.01;
        r.cut = true;
        r.verified = false;
      }
      if (c["X"] == 8) r.verified = false;
      costs.push_back({r.cost, r.cut});
      return r;
    }
    std::vector<std::pair<double, bool>> costs;
  } bowl;
  SearchSpace space(bowl_parameters());
  auto technique = make_technique("exhaustive");
  TunerOptions options;
  options.leaders = 4;
  const TuningResult result = tune(space, *technique, evaluations(10'000), bowl, options);
  std::vector<double> expected;
  for (const auto& [cost, cut] : bowl.costs)
    if (!cut) expected.push_back(cost);
  std::sort(expected.begin(), expected.end());
  expected.resize(4);
  ASSERT_EQ(result.leaders.size(), 4u);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_DOUBLE_EQ(result.leaders[k].second, expected[k]);
    EXPECT_DOUBLE_EQ(testing::bowl_cost(result.leaders[k].first), expected[k]);
  }
  EXPECT_EQ(result.leaders[0].first["X"], 7) << "the bowl's minimum";
}

}  // namespace
}  // namespace mdh::tuner
