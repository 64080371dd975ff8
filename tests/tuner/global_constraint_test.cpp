// Global (cross-group) constraints: the valid set and exhaustive order against brute force, uniform sampling of
// valid configurations, valid-only neighbourhoods, random neighbours and closest points, every technique on a mostly
// invalid space, the valid-size estimate, and the diagnostics of (nearly) empty spaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "support/error.h"
#include "tests/tuner/random_spaces.h"
#include "tests/tuner/synthetic.h"
#include "tuner/search/technique_registry.h"
#include "tuner/tuner.h"

namespace mdh::tuner {
namespace {

using testing::Reads;
using testing::Values;

// The chi-square value exceeded with probability 0.001 (Wilson-Hilferty approximation; z = 3.09).
double chi_square_bound(double degrees) {
  const double a = 2.0 / (9.0 * degrees);
  return degrees * std::pow(1.0 - a + 3.09 * std::sqrt(a), 3.0);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GlobalConstraints, ValidSetAndExhaustiveOrderMatchBruteForce) {
  Rng rng(2024);
  int checked = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<Parameter> params = testing::random_parameters(rng);
    std::vector<GlobalConstraint> globals = testing::random_global_constraints(rng, params);
    std::set<Values> candidates = testing::brute_force(params);
    std::set<Values> expected;
    for (const Values& v : candidates)
      if (testing::satisfies(params, globals, v)) expected.insert(v);
    if (expected.empty()) {
      if (!candidates.empty()) {
        EXPECT_THROW((SearchSpace{params, globals}), UserError) << "trial " << trial;
      }
      continue;
    }
    ++checked;
    SearchSpace space(params, globals, 2);
    ASSERT_EQ(space.size(), BigUnsigned(candidates.size())) << "trial " << trial;
    ASSERT_TRUE(space.known_valid_size());
    EXPECT_EQ(*space.known_valid_size(), BigUnsigned(expected.size())) << "trial " << trial;
    EXPECT_EQ(space.exact_valid_size(space.size()), BigUnsigned(expected.size()));
    EXPECT_FALSE(space.exact_valid_size(BigUnsigned(candidates.size() - 1)));

    // Candidates in index order: exactly the valid ones are valid, and exhaustive proposes them in that order.
    std::vector<Point> valid_in_index_order;
    std::set<Values> seen_valid;
    for (uint64_t i = 0; i < candidates.size(); ++i) {
      Point point = space.point_of(BigUnsigned(i));
      Configuration c = space.configuration(point);
      const bool valid = testing::satisfies(params, globals, c.values());
      ASSERT_EQ(space.is_valid(point), valid) << "trial " << trial;
      ASSERT_EQ(space.point_of(c).has_value(), valid) << "trial " << trial;
      if (valid) {
        valid_in_index_order.push_back(point);
        seen_valid.insert(c.values());
        EXPECT_EQ(space.configuration_from_json(c.to_json()), c);
      } else {
        EXPECT_THROW(space.configuration_from_json(c.to_json()), UserError);
      }
    }
    EXPECT_EQ(seen_valid, expected) << "trial " << trial;
    auto exhaustive = make_technique("exhaustive");
    exhaustive->initialize(space, 1);
    for (size_t round = 0; round < 2; ++round)  // the second round checks the wrap-around
      for (const Point& expected_point : valid_in_index_order) {
        ASSERT_EQ(exhaustive->next(), expected_point) << "trial " << trial;
        exhaustive->report(1.0);
      }
  }
  EXPECT_GT(checked, 80);
}

TEST(GlobalConstraints, NeighboursAndClosestAreValid) {
  Rng rng(99);
  int checked = 0;
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<Parameter> params = testing::random_parameters(rng);
    std::vector<GlobalConstraint> globals = testing::random_global_constraints(rng, params);
    std::set<Values> valid;
    for (const Values& v : testing::brute_force(params))
      if (testing::satisfies(params, globals, v)) valid.insert(v);
    if (valid.empty()) continue;
    ++checked;
    SearchSpace space(params, globals);
    for (int probe = 0; probe < 5; ++probe) {
      Point point = space.sample(rng);
      Values values = space.configuration(point).values();
      ASSERT_TRUE(valid.count(values));
      std::set<Values> expected;
      for (const Values& other : valid) {
        size_t differences = 0;
        for (size_t i = 0; i < values.size(); ++i) differences += other[i] != values[i] ? 1 : 0;
        if (differences == 1) expected.insert(other);
      }
      std::set<Values> actual;
      for (const Point& n : space.neighbours(point)) actual.insert(space.configuration(n).values());
      EXPECT_EQ(actual, expected) << "trial " << trial;
      EXPECT_EQ(space.closest(space.coordinates(point)), point);
      // Arbitrary coordinates snap to a valid configuration, the same one every time.
      std::vector<double> coordinates(params.size());
      for (double& c : coordinates) c = rng.uniform01();
      Point snapped = space.closest(coordinates);
      EXPECT_TRUE(valid.count(space.configuration(snapped).values())) << "trial " << trial;
      EXPECT_EQ(space.closest(coordinates), snapped);
    }
  }
  EXPECT_GT(checked, 40);
}

// A random neighbour is one of the valid neighbours, every one of them is drawn, and a point without valid neighbours
// has none.
TEST(GlobalConstraints, RandomNeighboursAreTheValidNeighbours) {
  Rng rng(7);
  int checked = 0;
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<Parameter> params = testing::random_parameters(rng);
    std::vector<GlobalConstraint> globals = testing::random_global_constraints(rng, params);
    bool any_valid = false;
    for (const Values& v : testing::brute_force(params))
      any_valid = any_valid || testing::satisfies(params, globals, v);
    if (!any_valid) continue;
    SearchSpace space(params, globals);
    for (int probe = 0; probe < 3; ++probe) {
      const Point point = space.sample(rng);
      const std::vector<Point> all = space.neighbours(point);
      const std::set<Point> expected(all.begin(), all.end());
      if (expected.empty()) {
        EXPECT_EQ(space.random_neighbour(point, rng), std::nullopt) << "trial " << trial;
        continue;
      }
      ++checked;
      std::set<Point> drawn;
      for (size_t k = 0; k < 30 * expected.size(); ++k) {
        const std::optional<Point> n = space.random_neighbour(point, rng);
        ASSERT_TRUE(n) << "trial " << trial;
        EXPECT_TRUE(expected.count(*n)) << "trial " << trial;
        drawn.insert(*n);
      }
      EXPECT_EQ(drawn, expected) << "trial " << trial;
    }
  }
  EXPECT_GT(checked, 40);
}

// Two independent 1..8 parameters (64 candidates in two groups) of which the global constraints keep 20.
// Rejection sampling must be uniform over exactly those.
TEST(GlobalConstraints, SamplesUniformlyOverValidConfigurations) {
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("A", Range::interval(1, 8)));
  p.push_back(Parameter::integer("B", Range::interval(1, 8)));
  std::vector<GlobalConstraint> globals;
  globals.push_back({"A + B odd", {"A", "B"}, [](Reads r) { return (r[0] + r[1]) % 2 == 1; }});
  globals.push_back({"B * A <= 20", {"B", "A"}, [](Reads r) { return r[0] * r[1] <= 20; }});
  SearchSpace space(std::move(p), std::move(globals));
  ASSERT_EQ(space.group_count(), 2u);
  ASSERT_EQ(space.size(), BigUnsigned(64));
  ASSERT_EQ(*space.known_valid_size(), BigUnsigned(20));
  Rng rng(5);
  std::map<uint64_t, double> counts;
  const int draws = 36000;
  for (int i = 0; i < draws; ++i) {
    Point point = space.sample(rng);
    ASSERT_TRUE(space.is_valid(point));
    counts[static_cast<uint64_t>(space.index_of(point))] += 1;
  }
  ASSERT_EQ(counts.size(), 20u);
  double chi_square = 0;
  for (const auto& [index, c] : counts) chi_square += (c - draws / 20.0) * (c - draws / 20.0) / (draws / 20.0);
  EXPECT_LT(chi_square, chi_square_bound(19));
}

// The bowl (2,704 candidates) with a global constraint that keeps one in five: every technique must propose
// valid configurations only, and find the optimum (valid) within a budget of half the valid configurations.
std::vector<GlobalConstraint> bowl_globals() {
  return {{"(X + 2*Y + Z + FLAG) % 5 == 2", {"X", "Y", "Z", "FLAG"}, [](Reads r) {
             return (r[0] + 2 * r[1] + r[2] + r[3]) % 5 == 2;
           }}};
}

class MostlyInvalidTechniqueTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::vector<GlobalConstraint> globals_ = bowl_globals();
  SearchSpace space_{testing::bowl_parameters(), bowl_globals()};
};

TEST_P(MostlyInvalidTechniqueTest, ProposesOnlyValidConfigurations) {
  const std::vector<Parameter> params = testing::bowl_parameters();
  auto technique = make_technique(GetParam());
  technique->initialize(space_, 3);
  for (int ask = 0; ask < 400; ++ask) {
    Point point = technique->next();
    Configuration c = space_.configuration(point);
    ASSERT_TRUE(testing::satisfies(params, globals_, c.values())) << GetParam() << " ask " << ask;
    // Some failures, so that the techniques' failure paths are exercised too.
    technique->report(c["X"] == 3 ? Cost{} : Cost{testing::bowl_cost(c)});
  }
}

TEST_P(MostlyInvalidTechniqueTest, FindsTheValidOptimum) {
  const uint64_t valid = static_cast<uint64_t>(*space_.known_valid_size());
  ASSERT_LT(valid * 4, static_cast<uint64_t>(space_.size()));
  const uint64_t budget = GetParam() == "exhaustive" ? valid : valid / 2;
  int found = 0;
  std::vector<double> best;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto technique = make_technique(GetParam());
    testing::BowlCostFunction cost;
    TunerOptions options;
    options.seed = seed;
    TuningResult result = tune(space_, *technique, evaluations(budget), cost, options);
    ASSERT_TRUE(result.best_cost);
    best.push_back(*result.best_cost);
    if (*result.best_cost == testing::bowl_cost(7, 5, 9, 1)) ++found;
    for (const Configuration& c : cost.evaluated) ASSERT_TRUE(space_.point_of(c)) << GetParam();
  }
  std::sort(best.begin(), best.end());
  if (GetParam() == "random") {  // half of the valid configurations, uniformly: the optimum in about half the runs
    EXPECT_LT(best[2], 1.1);
  } else {
    EXPECT_GE(found, 3) << GetParam();
  }
}

TEST_P(MostlyInvalidTechniqueTest, IsReproducibleFromItsSeed) {
  auto sequence = [&](uint64_t seed) {
    auto technique = make_technique(GetParam());
    technique->initialize(space_, seed);
    std::vector<Point> asked;
    for (int ask = 0; ask < 120; ++ask) {
      asked.push_back(technique->next());
      technique->report(testing::bowl_cost(space_.configuration(asked.back())));
    }
    return asked;
  };
  EXPECT_EQ(sequence(8), sequence(8));
}

INSTANTIATE_TEST_SUITE_P(AllTechniques, MostlyInvalidTechniqueTest, ::testing::ValuesIn(technique_names()));

TEST(GlobalConstraints, EstimatesTheValidSize) {
  // Three groups of 40 values (64,000 candidates, counted eagerly) with a product bound across all three.
  std::vector<Parameter> p;
  for (const char* name : {"A", "B", "C"}) p.push_back(Parameter::integer(name, Range::interval(1, 40)));
  std::vector<GlobalConstraint> globals{
      {"A * B * C <= 4000", {"A", "B", "C"}, [](Reads r) { return r[0] * r[1] * r[2] <= 4000; }}};
  SearchSpace space(std::move(p), std::move(globals));
  const double exact = static_cast<double>(*space.known_valid_size());
  ValidSizeEstimate estimate = space.estimate_valid_size(20000, 7);
  EXPECT_FALSE(estimate.exact);
  EXPECT_EQ(estimate.samples, 20000u);
  EXPECT_LE(estimate.low, exact);
  EXPECT_GE(estimate.high, exact);
  EXPECT_NEAR(estimate.valid / exact, 1.0, 0.05);
  EXPECT_LT(estimate.high - estimate.low, 0.1 * exact);

  SearchSpace plain(testing::bowl_parameters());
  ValidSizeEstimate exact_estimate = plain.estimate_valid_size(100, 1);
  EXPECT_TRUE(exact_estimate.exact);
  EXPECT_EQ(exact_estimate.valid, 2704.0);
  EXPECT_EQ(exact_estimate.low, exact_estimate.high);
}

TEST(GlobalConstraints, DiagnosesEmptySpaces) {
  auto two_groups = [](int64_t extent) {
    std::vector<Parameter> p;
    p.push_back(Parameter::integer("A", Range::interval(1, extent)));
    p.push_back(Parameter::integer("B", Range::interval(1, extent)));
    p.push_back(Parameter::integer("C", Range::interval(1, extent)));
    return p;
  };
  std::vector<GlobalConstraint> impossible{
      {"A is even", {"A"}, [](Reads r) { return r[0] % 2 == 0; }},
      {"A + B > 1000", {"A", "B"}, [](Reads r) { return r[0] + r[1] > 1000; }},
  };
  // Small: counted at construction, every candidate diagnosed.
  EXPECT_EQ(error_of([&] { SearchSpace space(two_groups(8), impossible); }),
            "the search space has no configuration satisfying: A + B > 1000 (fails for 100% of 512 candidates)");
  // Large (10^6 candidates): sampling gives up and names the constraint that fails most.
  SearchSpace large(two_groups(100), impossible);
  EXPECT_FALSE(large.known_valid_size());
  Rng rng(1);
  EXPECT_EQ(error_of([&] { large.sample(rng); }),
            "the search space has (almost) no configuration satisfying: A + B > 1000 (fails for 100% of 10,000 "
            "candidates)");
  auto technique = make_technique("exhaustive");
  technique->initialize(large, 1);
  EXPECT_EQ(error_of([&] { technique->next(); }).substr(0, 58),
            "the search space has (almost) no configuration satisfying:");
  // Jointly impossible constraints that each fail about half the time are both named.
  std::vector<GlobalConstraint> contradicting{
      {"A <= 50", {"A"}, [](Reads r) { return r[0] <= 50; }},
      {"A > 50", {"A", "C"}, [](Reads r) { return r[0] > 50; }},
  };
  SearchSpace contradiction(two_groups(100), contradicting);
  std::string message = error_of([&] { contradiction.sample(rng); });
  EXPECT_NE(message.find("A <= 50 (fails for"), std::string::npos) << message;
  EXPECT_NE(message.find("; A > 50 (fails for"), std::string::npos) << message;
}

TEST(GlobalConstraints, NamesTheViolatedConstraintAndBadDeclarations) {
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("A", Range::interval(1, 8)));
  p.push_back(Parameter::integer("B", Range::interval(1, 8)));
  std::vector<GlobalConstraint> globals{{"A * B <= 16", {"A", "B"}, [](Reads r) { return r[0] * r[1] <= 16; }}};
  SearchSpace space(p, globals);
  EXPECT_EQ(error_of([&] {
              space.configuration_from_json({{"A", 4}, {"B", 5}});
            }),
            "configuration {\"A\":4,\"B\":5} violates the constraint 'A * B <= 16'");
  EXPECT_EQ(space.configuration_from_json({{"A", 4}, {"B", 4}})["B"], 4);
  EXPECT_EQ(error_of([&] {
              SearchSpace bad(p, {{"A * Q", {"A", "Q"}, [](Reads) { return true; }}});
            }),
            "global constraint 'A * Q' reads 'Q', which is not a parameter of the space");
  EXPECT_EQ(error_of([&] {
              SearchSpace bad(p, {{"nothing", {}, [](Reads) { return true; }}});
            }),
            "global constraint 'nothing' reads no parameter");
}

}  // namespace
}  // namespace mdh::tuner
