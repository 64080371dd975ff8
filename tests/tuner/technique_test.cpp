// Every technique finds the optimum of a small synthetic landscape, tolerates failing configurations and is
// reproducible from its seed; the loop's ordered reports make parallel evaluation deterministic too.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "support/error.h"
#include "tests/tuner/synthetic.h"
#include "tuner/evaluate/preparing_evaluator.h"
#include "tuner/journal/journal.h"
#include "tuner/search/seeded_technique.h"
#include "tuner/search/technique_registry.h"
#include "tuner/search/techniques.h"
#include "tuner/tuner.h"

namespace mdh::tuner {
namespace {

using testing::BowlCostFunction;

class TechniqueTest : public ::testing::TestWithParam<std::string> {
 protected:
  SearchSpace space_{testing::bowl_parameters()};
};

// Budget 250 of 2,704 configurations (9%): the optimum should be found for most seeds by the guided
// techniques; pure random search only gets close.
TEST_P(TechniqueTest, FindsTheOptimumOfABowl) {
  ASSERT_EQ(space_.size().str(), "2704");
  const bool guided = GetParam() != "random";
  const uint64_t budget = GetParam() == "exhaustive" ? 2704 : 250;
  int found = 0;
  std::vector<double> best;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto technique = make_technique(GetParam());
    BowlCostFunction cost;
    TunerOptions options;
    options.seed = seed;
    TuningResult result = tune(space_, *technique, evaluations(budget), cost, options);
    ASSERT_TRUE(result.best_cost);
    EXPECT_LE(result.status.evaluations, budget);
    best.push_back(*result.best_cost);
    if (*result.best_cost == testing::bowl_cost(7, 5, 9, 1)) ++found;
  }
  std::sort(best.begin(), best.end());
  if (guided) {
    EXPECT_GE(found, 3) << GetParam();
  } else {
    EXPECT_LT(best[2], 1.2) << GetParam();
  }
}

TEST_P(TechniqueTest, HandlesFailingConfigurations) {
  auto technique = make_technique(GetParam());
  BowlCostFunction cost(/*with_failures=*/true);
  TunerOptions options;
  options.seed = 11;
  TuningResult result = tune(space_, *technique, evaluations(300), cost, options);
  ASSERT_TRUE(result.best_cost);
  if (GetParam() != "exhaustive") {  // exhaustive only sees small X in 300
    EXPECT_LT(*result.best_cost, 1.3);
  }
  EXPECT_LT(result.status.valid_evaluations, result.status.evaluations);
}

TEST_P(TechniqueTest, SurvivesOnlyFailures) {
  struct AlwaysFails : CostFunction {
    EvaluationResult evaluate(const Configuration&) override {
      return EvaluationResult::failed(EvaluationStatus::launch_error, "no");
    }
  } cost;
  auto technique = make_technique(GetParam());
  TuningResult result = tune(space_, *technique, evaluations(120), cost, {});
  EXPECT_FALSE(result.best_cost);
  EXPECT_EQ(result.status.evaluations, 120u);
}

TEST_P(TechniqueTest, IsReproducibleFromItsSeed) {
  auto sequence = [&](uint64_t seed) {
    auto technique = make_technique(GetParam());
    BowlCostFunction cost(true);
    TunerOptions options;
    options.seed = seed;
    tune(space_, *technique, evaluations(150), cost, options);
    std::vector<std::vector<int64_t>> values;
    for (const Configuration& c : cost.evaluated) values.push_back(c.values());
    return values;
  };
  auto first = sequence(5);
  EXPECT_EQ(first.size(), 150u);
  EXPECT_EQ(sequence(5), first);
  if (GetParam() != "exhaustive") {
    EXPECT_NE(sequence(6), first);
  }
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, TechniqueTest, ::testing::ValuesIn(technique_names()));

// An evaluator with three slots that finishes evaluations in a scrambled order.
class ScramblingEvaluator : public Evaluator {
 public:
  explicit ScramblingEvaluator(uint64_t scramble_seed) : rng_(scramble_seed) {}
  size_t capacity() const override { return 3; }
  void submit(uint64_t ticket, const Configuration& c, const EvaluationContext&) override {
    running_.emplace_back(ticket, EvaluationResult::ok(testing::bowl_cost(c)));
  }
  std::pair<uint64_t, EvaluationResult> wait() override {
    size_t pick = rng_.below(running_.size());
    auto done = running_[pick];
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(pick));
    return done;
  }
  void abandon() override { running_.clear(); }

 private:
  Rng rng_;
  std::deque<std::pair<uint64_t, EvaluationResult>> running_;
};

TEST(TuningLoop, ParallelEvaluationOrderDoesNotChangeTheSequence) {
  SearchSpace space(testing::bowl_parameters());
  auto run = [&](uint64_t scramble) {
    auto technique = make_technique("auc_bandit");
    ScramblingEvaluator evaluator(scramble);
    std::vector<nlohmann::json> order;
    TunerOptions options;
    options.seed = 9;
    options.on_evaluation = [&](const TuningStatus&, const EvaluationRecord& r, bool) {
      order.push_back(r.configuration);
    };
    TuningResult result = tune(space, *technique, evaluations(100), evaluator, options);
    EXPECT_EQ(result.status.evaluations, 100u);
    return order;
  };
  EXPECT_EQ(run(1), run(2));
}

// Issue 15 item 1: when an error ended the run (a full disk under the journal) while compiles were running, the
// tickets holding their configurations were freed before the compile threads stopped reading them. A preparation
// that reads its configuration again after a while sees other values in freed memory (and AddressSanitizer reports
// the read).
TEST(TuningLoop, AnErrorEndsTheRunOnlyAfterRunningPreparationsStopReading) {
  SearchSpace space(testing::bowl_parameters());
  auto technique = make_technique("random");
  BowlCostFunction cost;
  std::atomic<int> running{0}, changed{0};
  TunerOptions options;
  options.lookahead = 4;
  options.prepare_threads = 2;
  options.prepare = [&](const Configuration& c, const std::atomic<bool>&) -> std::optional<EvaluationResult> {
    ++running;
    const std::vector<int64_t> before = c.values();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (c.values() != before) ++changed;
    --running;
    return std::nullopt;
  };
  options.on_evaluation = [](const TuningStatus&, const EvaluationRecord&, bool) {
    throw UserError("cannot write journal 'j': No space left on device");
  };
  EXPECT_THROW(tune(space, *technique, evaluations(50), cost, options), UserError);
  EXPECT_EQ(running.load(), 0);
  EXPECT_EQ(changed.load(), 0);
}

// Issue 15 items 6 and 7: a compile that never ends (a helper including /dev/stdin) held the run past its budget
// and past an interrupt. Preparations are told to stop when the run ends, and the loop waits for them in slices.
TEST(TuningLoop, AHangingPreparationEndsWithTheBudgetAndOnInterrupt) {
  for (const bool interrupt : {false, true}) {
    SearchSpace space(testing::bowl_parameters());
    auto technique = make_technique("random");
    BowlCostFunction cost;
    std::atomic<bool> interrupted{false};
    TunerOptions options;
    options.lookahead = 2;
    options.prepare_threads = 1;
    options.interrupt = &interrupted;
    options.prepare = [&](const Configuration&, const std::atomic<bool>& stop) -> std::optional<EvaluationResult> {
      // Hangs until told to stop (or 20 s, so that a broken loop fails the test instead of hanging it).
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!stop && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return std::nullopt;
    };
    std::thread interrupter;
    if (interrupt)
      interrupter = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        interrupted = true;
      });
    const auto start = std::chrono::steady_clock::now();
    TuningResult result = tune(space, *technique, interrupt ? evaluations(10) : duration(0.3), cost, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (interrupter.joinable()) interrupter.join();
    EXPECT_LT(seconds, 3.0) << (interrupt ? "interrupt" : "budget");
    EXPECT_EQ(result.status.evaluations, 0u);
    EXPECT_EQ(result.stop_reason, interrupt ? "interrupted" : "abort condition " + duration(0.3).describe() + " met");
  }
}

// A preparation may also decide the result itself (a compile past its deadline): X == 3 here. That result is
// recorded and the configuration never reaches the evaluator. Every evaluation records how long its preparation took.
TEST(TuningLoop, PreparesAheadAndRecordsPrepareFailures) {
  SearchSpace space(testing::bowl_parameters());
  auto technique = make_technique("random");
  BowlCostFunction cost;
  std::mutex mutex;
  std::set<std::vector<int64_t>> prepared;
  TunerOptions options;
  options.lookahead = 3;
  options.prepare_threads = 2;
  options.prepare = [&](const Configuration& c, const std::atomic<bool>&) -> std::optional<EvaluationResult> {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (c["X"] == 2) throw std::runtime_error("synthetic compile error");
    if (c["X"] == 3) return EvaluationResult::failed(EvaluationStatus::timeout, "synthetic compile deadline");
    std::lock_guard<std::mutex> lock(mutex);
    prepared.insert(c.values());
    return std::nullopt;
  };
  std::vector<EvaluationRecord> records;
  options.on_evaluation = [&](const TuningStatus&, const EvaluationRecord& r, bool) { records.push_back(r); };
  const TuningResult result = tune(space, *technique, evaluations(80), cost, options);
  ASSERT_EQ(records.size(), 80u);
  for (const Configuration& c : cost.evaluated) EXPECT_EQ(prepared.count(c.values()), 1u);
  size_t failures = 0, verdicts = 0;
  for (const EvaluationRecord& r : records) {
    ASSERT_TRUE(r.compile_seconds.has_value()) << "evaluation " << r.evaluation;
    EXPECT_GE(*r.compile_seconds, 0.002);
    if (r.configuration["X"] == 2) {
      ++failures;
      EXPECT_EQ(r.result.status, EvaluationStatus::error);
      EXPECT_EQ(r.result.reason, "prepare failed: synthetic compile error");
    }
    if (r.configuration["X"] == 3) {
      ++verdicts;
      EXPECT_EQ(r.result.status, EvaluationStatus::timeout);
      EXPECT_EQ(r.result.reason, "synthetic compile deadline");
    }
  }
  EXPECT_GT(failures, 0u);
  EXPECT_GT(verdicts, 0u);
  EXPECT_EQ(result.time.compile_seconds.size(), records.size());
  // Every recorded success was evaluated, each configuration at most once, and no failed prepare reached the
  // evaluator. A configuration whose prepare finishes first is evaluated ahead of older ones still preparing, so
  // when the abort fires up to window - 1 = lookahead evaluations may be done but unreported (dropped): counting
  // them exactly, as this test once did, failed in 1 of 80 to 200 runs (with either thread pool).
  std::set<nlohmann::json> evaluated, recorded_successes;
  for (const Configuration& c : cost.evaluated) {
    EXPECT_TRUE(evaluated.insert(c.to_json()).second) << "evaluated twice: " << c.to_json();
    EXPECT_NE(c["X"], 2) << "a configuration whose prepare failed was evaluated";
    EXPECT_NE(c["X"], 3) << "a configuration whose prepare decided its result was evaluated";
  }
  for (const EvaluationRecord& r : records)
    if (r.configuration["X"] != 2 && r.configuration["X"] != 3) recorded_successes.insert(r.configuration);
  for (const nlohmann::json& c : recorded_successes) EXPECT_EQ(evaluated.count(c), 1u) << c;
  EXPECT_LE(evaluated.size(), recorded_successes.size() + options.lookahead);
}

// The time breakdown says where a run went: prepares that take 20 ms each on one thread, instant evaluations, so
// the evaluator waits for the prepares (lower bounds only: sleeps last at least as long as asked).
TEST(TuningLoop, TimeBreakdownShowsTheEvaluatorWaitingForSlowPrepares) {
  SearchSpace space(testing::bowl_parameters());
  auto technique = make_technique("random");
  BowlCostFunction cost;
  TunerOptions options;
  options.lookahead = 2;
  options.prepare_threads = 1;
  options.prepare = [](const Configuration&, const std::atomic<bool>&) -> std::optional<EvaluationResult> {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return std::nullopt;
  };
  const TuningResult result = tune(space, *technique, evaluations(12), cost, options);
  ASSERT_EQ(result.status.evaluations, 12u);
  EXPECT_GE(result.time.prepared, 12u);
  EXPECT_GE(result.time.prepare_seconds, 0.020 * static_cast<double>(result.time.prepared));
  // At most lookahead + 1 configurations are prepared while nothing waits; the evaluator waits for the rest.
  EXPECT_GE(result.time.waiting_for_prepare_seconds, 0.020 * (12 - 3));
  EXPECT_LT(result.time.evaluating_seconds, result.time.waiting_for_prepare_seconds);
  EXPECT_LE(result.time.waiting_for_prepare_seconds, result.status.elapsed_seconds);
}

// The time breakdown sums each stage the evaluations report, by name, in the order the stages first appeared.
TEST(TuningLoop, TimeBreakdownSumsTheStagesOfTheEvaluations) {
  class StagedCost : public CostFunction {
   public:
    EvaluationResult evaluate(const Configuration& c) override {
      EvaluationResult result = EvaluationResult::ok(testing::bowl_cost(c));
      result.stage_seconds = {{"program", 0.5}, {"device", 0.25}};
      if (c["X"] % 2 == 0) result.stage_seconds.emplace_back("verification", 0.125);
      return result;
    }
  };
  SearchSpace space(testing::bowl_parameters());
  auto technique = make_technique("random");
  StagedCost cost;
  std::vector<EvaluationRecord> records;
  TunerOptions options;
  options.on_evaluation = [&](const TuningStatus&, const EvaluationRecord& r, bool) { records.push_back(r); };
  const TuningResult result = tune(space, *technique, evaluations(10), cost, options);
  ASSERT_EQ(records.size(), 10u);
  size_t verified = 0;
  for (const EvaluationRecord& r : records) verified += r.result.stage_seconds.size() == 3;
  ASSERT_GT(verified, 0u) << "no even X drawn: the test checks no third stage";
  const StageSeconds expected{{"program", 5.0}, {"device", 2.5}, {"verification", 0.125 * verified}};
  EXPECT_EQ(result.time.stage_seconds, expected);
}

// The evaluator form of preparing ahead (an MPI rank compiles what it evaluates): each configuration prepared once
// before its evaluation, prepare failures and results decided by the preparation recorded as the loop records them,
// and the same sequence as the loop's own prepare with the same window (capacity 1 + lookahead 3 either way).
TEST(PreparingEvaluator, PreparesEachConfigurationFirstAndKeepsTheLoopsSequence) {
  SearchSpace space(testing::bowl_parameters());
  auto prepare_into = [](std::mutex& mutex, std::set<std::vector<int64_t>>& prepared) {
    return [&](const Configuration& c) -> std::optional<EvaluationResult> {
      if (c["X"] == 2) throw std::runtime_error("synthetic compile error");
      if (c["X"] == 3) return EvaluationResult::failed(EvaluationStatus::timeout, "synthetic compile deadline");
      std::lock_guard<std::mutex> lock(mutex);
      EXPECT_TRUE(prepared.insert(c.values()).second) << "prepared twice";
      return std::nullopt;
    };
  };
  auto records_of = [](TunerOptions& options) {
    auto records = std::make_shared<std::vector<EvaluationRecord>>();
    options.on_evaluation = [records](const TuningStatus&, const EvaluationRecord& r, bool) { records->push_back(r); };
    return records;
  };
  std::mutex loop_mutex, evaluator_mutex;
  std::set<std::vector<int64_t>> loop_prepared, evaluator_prepared;
  auto prepare_for_evaluator = [&](const Configuration& c, const std::atomic<bool>&) {
    return prepare_into(evaluator_mutex, evaluator_prepared)(c);
  };

  auto loop_technique = make_technique("auc_bandit");
  BowlCostFunction loop_cost;
  TunerOptions loop_options;
  loop_options.lookahead = 3;
  loop_options.prepare_threads = 2;
  loop_options.prepare = [prepare = prepare_into(loop_mutex, loop_prepared)](
                             const Configuration& c, const std::atomic<bool>&) { return prepare(c); };
  auto loop_records = records_of(loop_options);
  tune(space, *loop_technique, evaluations(60), loop_cost, loop_options);

  auto technique = make_technique("auc_bandit");
  BowlCostFunction cost;
  InProcessEvaluator in_process(cost);
  PreparingEvaluator preparing(in_process, prepare_for_evaluator, 2, 3);
  EXPECT_EQ(preparing.capacity(), 4u);
  TunerOptions options;
  auto records = records_of(options);
  tune(space, *technique, evaluations(60), preparing, options);

  ASSERT_EQ(records->size(), 60u);
  ASSERT_EQ(loop_records->size(), 60u);
  size_t failures = 0, verdicts = 0;
  for (size_t k = 0; k < records->size(); ++k) {
    const EvaluationRecord& r = (*records)[k];
    EXPECT_EQ(r.configuration, (*loop_records)[k].configuration) << "evaluation " << k + 1;
    EXPECT_EQ(r.result.status, (*loop_records)[k].result.status) << "evaluation " << k + 1;
    if (r.configuration["X"] == 2) {
      ++failures;
      EXPECT_EQ(r.result.status, EvaluationStatus::error);
      EXPECT_EQ(r.result.reason, "prepare failed: synthetic compile error");
    }
    if (r.configuration["X"] == 3) {
      ++verdicts;
      EXPECT_EQ(r.result.status, EvaluationStatus::timeout);
      EXPECT_EQ(r.result.reason, "synthetic compile deadline");
    }
  }
  EXPECT_GT(failures, 0u);
  EXPECT_GT(verdicts, 0u);
  for (const Configuration& c : cost.evaluated) {
    EXPECT_NE(c["X"], 2) << "a configuration whose prepare failed was evaluated";
    EXPECT_NE(c["X"], 3) << "a configuration whose prepare decided its result was evaluated";
    std::lock_guard<std::mutex> lock(evaluator_mutex);
    EXPECT_EQ(evaluator_prepared.count(c.values()), 1u) << "evaluated without being prepared";
  }
}

// An MPI rank compiles what it evaluates (PreparingEvaluator), so the loop does not time the compiles: the evaluator
// does, and the journal records them as it records the loop's own.
TEST(PreparingEvaluator, EveryResultSaysHowLongItsPreparationTook) {
  SearchSpace space(testing::bowl_parameters());
  auto prepare = [](const Configuration& c, const std::atomic<bool>&) -> std::optional<EvaluationResult> {
    std::this_thread::sleep_for(std::chrono::milliseconds(c["X"] == 3 ? 30 : 10));
    if (c["X"] == 2) return EvaluationResult::failed(EvaluationStatus::timeout, "synthetic compile deadline");
    return std::nullopt;
  };
  auto technique = make_technique("random");
  BowlCostFunction cost;
  InProcessEvaluator in_process(cost);
  PreparingEvaluator preparing(in_process, prepare, 2, 3);
  TunerOptions options;
  std::vector<EvaluationRecord> records;
  options.on_evaluation = [&](const TuningStatus&, const EvaluationRecord& r, bool) { records.push_back(r); };
  const TuningResult result = tune(space, *technique, evaluations(40), preparing, options);
  ASSERT_EQ(records.size(), 40u);
  size_t slow = 0, verdicts = 0;
  for (const EvaluationRecord& r : records) {
    ASSERT_TRUE(r.compile_seconds.has_value()) << "evaluation " << r.evaluation;
    EXPECT_GE(*r.compile_seconds, r.configuration["X"] == 3 ? 0.03 : 0.01) << "evaluation " << r.evaluation;
    slow += r.configuration["X"] == 3;
    verdicts += r.result.status == EvaluationStatus::timeout;
  }
  EXPECT_GT(slow, 0u);
  EXPECT_GT(verdicts, 0u) << "a preparation that decides the result is timed too";
  EXPECT_EQ(result.time.compile_seconds.size(), records.size());
}

TEST(TuningLoop, StopsWhenTheSpaceIsExhausted) {
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("A", Range::interval(1, 5)));
  SearchSpace space(std::move(p));
  struct Constant : CostFunction {
    EvaluationResult evaluate(const Configuration& c) override {
      return EvaluationResult::ok(static_cast<double>(c["A"]));
    }
  } cost;
  for (const std::string& name : technique_names()) {
    auto technique = make_technique(name);
    TuningResult result = tune(space, *technique, evaluations(1000), cost, {});
    EXPECT_EQ(result.status.evaluations, 5u) << name;
    EXPECT_EQ(result.stop_reason, "every configuration of the space has been evaluated") << name;
    EXPECT_EQ(result.best_cost, 1.0) << name;
  }
}

// A cost function that checks only what could become the best and cuts what is far behind (as mdh's does), and one
// that claims an unchecked result better than the best: the loop tells each evaluation the best so far, counts
// checks and cuts, journals them, and takes only checked results as its best.
TEST(TuningLoop, OnlyCheckedResultsBecomeTheBest) {
  struct Skipping : CostFunction {
    bool lie = false;
    std::vector<std::optional<double>> told;
    EvaluationResult evaluate(const Configuration& c) override { return evaluate_in_context(c, {}); }
    EvaluationResult evaluate_in_context(const Configuration& c, const EvaluationContext& context) override {
      told.push_back(context.best_cost);
      EvaluationResult r = EvaluationResult::ok(testing::bowl_cost(c));
      if (lie && context.best_cost) {
        r.cost = *context.best_cost / 2;
        r.verified = false;
        return r;
      }
      r.verified = !context.best_cost || r.cost < *context.best_cost;
      if (context.best_cost && r.cost > 1.3 * *context.best_cost) r.cut = true, r.verified = false;
      return r;
    }
  };
  SearchSpace space(testing::bowl_parameters());
  const std::string journal = ::testing::TempDir() + "/only_checked.jsonl";
  std::remove(journal.c_str());
  Skipping cost;
  auto technique = make_technique("random");
  TunerOptions options;
  options.journal_path = journal;
  options.sync_journal = false;
  const TuningResult result = tune(space, *technique, evaluations(60), cost, options);
  ASSERT_EQ(cost.told.size(), 60u);
  EXPECT_FALSE(cost.told[0].has_value());
  // Each evaluation was told the best checked cost of those before it (one evaluation at a time here).
  std::optional<double> best;
  const JournalContents contents = read_journal(journal);
  ASSERT_EQ(contents.records.size(), 60u);
  uint64_t verified = 0, cut = 0;
  for (size_t k = 0; k < contents.records.size(); ++k) {
    EXPECT_EQ(cost.told[k], best) << k;
    const EvaluationResult& r = contents.records[k].result;
    verified += r.verified;
    cut += r.cut;
    if (r.verified && (!best || r.cost < *best)) best = r.cost;
  }
  EXPECT_EQ(result.best_cost, best);
  EXPECT_EQ(result.status.verified_evaluations, verified);
  EXPECT_EQ(result.status.cut_evaluations, cut);
  EXPECT_GT(cut, 0u);
  EXPECT_LT(verified, 60u);

  Skipping liar;
  liar.lie = true;
  auto again = make_technique("random");
  const TuningResult lied = tune(space, *again, evaluations(20), liar, {});
  EXPECT_EQ(lied.status.verified_evaluations, 1u);
  EXPECT_EQ(lied.best_cost, liar.told[1]);  // the first, checked result stays the best
}

// The seeds are evaluated first, in order; then the inner technique makes exactly the search it makes unseeded.
TEST(SeededTechnique, EvaluatesTheSeedsFirstThenSearchesAsWithoutThem) {
  SearchSpace space(testing::bowl_parameters());
  const auto optimum = space.point_of(space.configuration_from_json({{"X", 7}, {"Y", 5}, {"Z", 9}, {"FLAG", true}}));
  const auto other = space.point_of(space.configuration_from_json({{"X", 12}, {"Y", 8}, {"Z", 12}, {"FLAG", false}}));
  ASSERT_TRUE(optimum && other);
  auto run = [&](std::unique_ptr<SearchTechnique> technique, uint64_t budget) {
    BowlCostFunction cost;
    TunerOptions options;
    options.seed = 4;
    TuningResult result = tune(space, *technique, evaluations(budget), cost, options);
    return std::make_pair(cost.evaluated, result);
  };
  const auto [plain, plain_result] = run(make_exhaustive(), 30);
  const auto [seeded, seeded_result] =
      run(std::make_unique<SeededTechnique>(make_exhaustive(), std::vector<Point>{*other, *optimum}), 32);
  ASSERT_EQ(seeded.size(), 32u);
  EXPECT_EQ(seeded[0], space.configuration(*other));
  EXPECT_EQ(seeded[1], space.configuration(*optimum));
  EXPECT_EQ(std::vector<Configuration>(seeded.begin() + 2, seeded.end()), plain);
  EXPECT_EQ(seeded_result.best_cost, testing::bowl_cost(7, 5, 9, 1));  // the exhaustive walk alone is far from it
  EXPECT_GT(*plain_result.best_cost, *seeded_result.best_cost);
}

// `local` seeded with `seed` (one FLAG away from the bowl's optimum) for `evaluations` in a run of seed `run_seed`:
// checks that it found the optimum and returns its asks up to the optimum, the seed's evaluation left out.
std::vector<Configuration> asks_until_the_bowls_optimum(const SearchSpace& space, const Point& seed,
                                                        uint64_t evaluations_allowed, uint64_t run_seed) {
  BowlCostFunction cost;
  TunerOptions options;
  options.seed = run_seed;
  auto technique = std::make_unique<SeededTechnique>(make_local_search(), std::vector<Point>{seed});
  TuningResult result = tune(space, *technique, evaluations(evaluations_allowed), cost, options);
  EXPECT_EQ(result.best_cost, testing::bowl_cost(7, 5, 9, 1)) << "seed " << run_seed;
  std::vector<Configuration> asks;
  for (size_t k = 1; k < cost.evaluated.size(); ++k) {
    asks.push_back(cost.evaluated[k]);
    if (testing::bowl_cost(cost.evaluated[k]) == testing::bowl_cost(7, 5, 9, 1)) break;
  }
  return asks;
}

// The local search climbs from the seeds it observes: from a seed one parameter away from the optimum (FLAG), it
// finds the optimum among the seed's one-parameter changes, each tried once, before it asks anything else.
TEST(LocalSearch, ClimbsFromAnObservedSeedThroughItsOneParameterChanges) {
  SearchSpace space(testing::bowl_parameters());
  const auto seed = space.point_of(space.configuration_from_json({{"X", 7}, {"Y", 5}, {"Z", 9}, {"FLAG", false}}));
  ASSERT_TRUE(seed);
  const std::vector<Point> around = space.neighbours(*seed);
  ASSERT_GT(around.size(), 10u);
  std::set<std::string> neighbours;
  for (const Point& p : around) neighbours.insert(space.configuration(p).to_json().dump());
  for (uint64_t run_seed = 1; run_seed <= 3; ++run_seed) {
    // Until it found the optimum, every ask was a change of the seed's, none twice.
    std::set<std::string> asked;
    for (const Configuration& ask : asks_until_the_bowls_optimum(space, *seed, 1 + around.size(), run_seed)) {
      const std::string text = ask.to_json().dump();
      EXPECT_TRUE(neighbours.count(text) != 0) << "seed " << run_seed << ": " << text;
      EXPECT_TRUE(asked.insert(text).second) << "seed " << run_seed << ": " << text << " repeated";
    }
  }
}

// The tuner asks a window ahead of the seeds' costs; `local` fills it with the first seed's one-parameter changes,
// each once, not with random configurations (on the H200 those held the compile workers for a run's first 34 s).
TEST(LocalSearch, AsksTheFirstSeedsChangesBeforeItsCostIsKnown) {
  SearchSpace space(testing::bowl_parameters());
  const auto first = space.point_of(space.configuration_from_json({{"X", 3}, {"Y", 12}, {"Z", 2}, {"FLAG", false}}));
  const auto second = space.point_of(space.configuration_from_json({{"X", 7}, {"Y", 5}, {"Z", 9}, {"FLAG", false}}));
  ASSERT_TRUE(first && second);
  const std::vector<Point> around = space.neighbours(*first);
  ASSERT_GT(around.size(), 20u);
  const std::set<Point> changes(around.begin(), around.end());
  for (uint64_t run_seed = 1; run_seed <= 3; ++run_seed) {
    SeededTechnique technique(make_local_search(), {*first, *second});
    technique.initialize(space, run_seed);
    EXPECT_EQ(technique.next(), *first);
    EXPECT_EQ(technique.next(), *second);
    std::set<Point> asked;
    for (int k = 0; k < 20; ++k) {
      const Point p = technique.next();
      EXPECT_TRUE(changes.count(p) != 0) << "seed " << run_seed << ", ask " << k << ": "
                                         << space.configuration(p).to_json().dump();
      EXPECT_TRUE(asked.insert(p).second) << "seed " << run_seed << ", ask " << k << " repeated";
    }
    // The second seed's cost is the lower: the climb moves there, and its changes come next.
    technique.report(100.0);
    technique.report(1.0);
    for (int k = 0; k < 20; ++k) technique.report(50.0);
    const std::vector<Point> second_around = space.neighbours(*second);
    const std::set<Point> second_changes(second_around.begin(), second_around.end());
    const Point p = technique.next();
    EXPECT_TRUE(second_changes.count(p) != 0) << "seed " << run_seed << ": " << space.configuration(p).to_json().dump();
  }
}

// Changes are tried a group at a time in turn: a permutation of 6 elements (719 changes) beside the bowl does not bury
// FLAG's one change, which finds the optimum in the first round of groups.
TEST(LocalSearch, TriesEveryParameterGroupBeforeASecondChangeOfAny) {
  std::vector<Parameter> parameters = testing::bowl_parameters();
  parameters.push_back(Parameter::permutation("ORDER", 6));
  SearchSpace space(parameters);
  ASSERT_GE(space.group_count(), 3u);
  const auto seed = space.point_of(
      space.configuration_from_json({{"X", 7}, {"Y", 5}, {"Z", 9}, {"FLAG", false}, {"ORDER", {0, 1, 2, 3, 4, 5}}}));
  ASSERT_TRUE(seed);
  ASSERT_GT(space.neighbours(*seed).size(), 719u);
  for (uint64_t run_seed = 1; run_seed <= 5; ++run_seed) {
    // Until it found the optimum, no two asks changed the same group.
    std::set<size_t> changed;
    for (const Configuration& ask : asks_until_the_bowls_optimum(space, *seed, 1 + space.group_count(), run_seed)) {
      const Point p = *space.point_of(ask);
      size_t g = 0;
      while (g < p.size() && p[g] == (*seed)[g]) ++g;
      ASSERT_LT(g, p.size());
      EXPECT_TRUE(changed.insert(g).second) << "seed " << run_seed << ": group " << g << " changed twice";
    }
  }
}

TEST(Techniques, UnknownNameIsAUserError) {
  try {
    make_technique("hill_climbing");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("unknown search technique 'hill_climbing' (known: local, auc_bandit, exhaustive, random, "
                          "annealing, differential_evolution, pattern_search, particle_swarm") +
                  (model_guided_built_in() ? ", model)" : ")"));
  }
}

// The registry is the one list of techniques: unique names, each with a help line; the default among them; the AUC
// bandit's members numbered 1, 2, ... in the order it asks them, each a technique this build can make.
TEST(Techniques, TheRegistryNamesEachTechniqueOnceAndNumbersTheBanditsMembers) {
  std::set<std::string> names;
  std::vector<std::string> members(technique_registry().size());
  for (const TechniqueEntry& entry : technique_registry()) {
    EXPECT_TRUE(names.insert(entry.name).second) << entry.name;
    EXPECT_GT(std::string(entry.help).size(), 10u) << entry.name;
    if (entry.bandit_position == 0) continue;
    ASSERT_GT(entry.bandit_position, 0) << entry.name;
    ASSERT_LE(static_cast<size_t>(entry.bandit_position), members.size()) << entry.name;
    EXPECT_TRUE(members[entry.bandit_position - 1].empty()) << entry.name << " shares its place";
    EXPECT_NE(entry.make, nullptr) << entry.name;
    members[entry.bandit_position - 1] = entry.name;
  }
  EXPECT_EQ(names.count(kDefaultTechnique), 1u);
  EXPECT_EQ(technique_names().front(), kDefaultTechnique);
  const auto placed = std::count_if(members.begin(), members.end(), [](const std::string& m) { return !m.empty(); });
  members.resize(static_cast<size_t>(placed));  // the places are 1 to the number of members, without gaps
  EXPECT_EQ(members,
            (std::vector<std::string>{"particle_swarm", "differential_evolution", "annealing", "pattern_search"}));
  EXPECT_EQ(make_technique("auc_bandit")->name(), "auc_bandit");
}

}  // namespace
}  // namespace mdh::tuner
