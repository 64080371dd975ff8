// Search spaces against brute-force enumeration, group detection, index mapping, sampling and neighbourhoods.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "support/error.h"
#include "tests/tuner/random_spaces.h"
#include "tests/tuner/synthetic.h"
#include "tuner/space/search_space.h"

namespace mdh::tuner {
namespace {

using Reads = std::span<const int64_t>;
using testing::brute_force;
using testing::random_parameters;
using Values = testing::Values;

TEST(SearchSpace, MatchesBruteForceOnRandomSpaces) {
  Rng rng(42);
  int checked = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<Parameter> params = random_parameters(rng);
    std::set<Values> expected = brute_force(params);
    if (expected.empty()) {
      EXPECT_THROW(SearchSpace{params}, UserError);
      continue;
    }
    ++checked;
    for (unsigned threads : {1u, 3u}) {
      SearchSpace space(params, threads);
      ASSERT_EQ(space.size(), BigUnsigned(expected.size())) << "trial " << trial;
      std::set<Values> generated;
      for (uint64_t i = 0; i < expected.size(); ++i) {
        Point point = space.point_of(BigUnsigned(i));
        ASSERT_EQ(space.index_of(point), BigUnsigned(i));
        Configuration c = space.configuration(point);
        ASSERT_EQ(space.point_of(c), point);
        generated.insert(c.values());
      }
      EXPECT_EQ(generated, expected) << "trial " << trial;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(SearchSpace, NeighboursAreExactlyTheOneParameterChanges) {
  Rng rng(7);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<Parameter> params = random_parameters(rng);
    std::set<Values> valid = brute_force(params);
    if (valid.empty()) continue;
    SearchSpace space(params);
    for (int probe = 0; probe < 5; ++probe) {
      Point point = space.sample(rng);
      Values values = space.configuration(point).values();
      std::set<Values> expected;
      for (const Values& other : valid) {
        size_t differences = 0;
        for (size_t i = 0; i < values.size(); ++i) differences += other[i] != values[i] ? 1 : 0;
        if (differences == 1) expected.insert(other);
      }
      std::set<Values> actual;
      for (const Point& n : space.neighbours(point)) actual.insert(space.configuration(n).values());
      EXPECT_EQ(actual, expected) << "trial " << trial;
      // The continuous view maps a configuration's own coordinates back onto it.
      EXPECT_EQ(space.closest(space.coordinates(point)), point);
    }
  }
}

TEST(SearchSpace, DetectsGroupsFromDeclaredReads) {
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("A", Range::interval(1, 4)));
  p.push_back(Parameter::integer("B", Range::interval(1, 4)));
  p.push_back(
      Parameter::integer("C", Range::interval(1, 4)).constrain({"A"}, [](int64_t v, Reads r) { return v <= r[0]; }));
  p.push_back(Parameter::boolean("D"));
  p.push_back(
      Parameter::integer("E", Range::interval(1, 4)).constrain({"B", "D"}, [](int64_t, Reads) { return true; }));
  p.push_back(Parameter::integer("F", Range::interval(1, 4)).constrain({"C"}, [](int64_t, Reads) { return true; }));
  SearchSpace space(std::move(p));
  ASSERT_EQ(space.group_count(), 2u);
  EXPECT_EQ(space.group_parameters(0), (std::vector<size_t>{0, 2, 5}));
  EXPECT_EQ(space.group_parameters(1), (std::vector<size_t>{1, 3, 4}));
  EXPECT_EQ(space.size(), BigUnsigned((1 + 2 + 3 + 4) * 4 * 4 * 2 * 4));
}

TEST(SearchSpace, ReportsDeclarationErrors) {
  auto message = [](std::vector<Parameter> p) {
    try {
      SearchSpace space(std::move(p));
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::vector<Parameter> later;
  later.push_back(Parameter::integer("A", Range::interval(1, 4)).constrain({"B"}, [](int64_t, Reads) { return true; }));
  later.push_back(Parameter::integer("B", Range::interval(1, 4)));
  EXPECT_EQ(message(std::move(later)), "constraint of 'A' reads 'B', which is not a parameter declared before it");
  std::vector<Parameter> twice;
  twice.push_back(Parameter::boolean("A"));
  twice.push_back(Parameter::boolean("A"));
  EXPECT_EQ(message(std::move(twice)), "tuning parameter 'A' is declared twice");
  std::vector<Parameter> empty;
  empty.push_back(Parameter::integer("A", Range::interval(1, 4)).constrain([](int64_t v) { return v > 9; }));
  EXPECT_EQ(message(std::move(empty)), "the search space has no valid configuration: the constraints exclude all");
  EXPECT_THROW(Range::interval(5, 1), UserError);
  EXPECT_THROW(Range::set({1, 2, 1}), UserError);
}

// Samples must be uniform over valid configurations, not over tree branches: this space's subtrees differ
// in size (A = a has a leaves below it). Chi-square with 35 degrees of freedom; 66.6 is the p = 0.001 bound.
TEST(SearchSpace, SamplesUniformly) {
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("A", Range::interval(1, 8)));
  p.push_back(
      Parameter::integer("B", Range::interval(1, 8)).constrain({"A"}, [](int64_t v, Reads r) { return v <= r[0]; }));
  SearchSpace space(std::move(p));
  ASSERT_EQ(space.size(), BigUnsigned(36));
  Rng rng(3);
  std::vector<double> counts(36, 0);
  const int draws = 72000;
  for (int i = 0; i < draws; ++i) counts[static_cast<uint64_t>(space.index_of(space.sample(rng)))] += 1;
  double chi_square = 0;
  for (double c : counts) chi_square += (c - draws / 36.0) * (c - draws / 36.0) / (draws / 36.0);
  EXPECT_LT(chi_square, 66.6);
}

TEST(SearchSpace, XgemmLikeTreeGivesExactCount) {
  // The divisor structure of CLBlast's Xgemm space on a 16^3 problem, cross-checked by brute force.
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("MWG", Range::interval(1, 16)).constrain([](int64_t v) { return 16 % v == 0; }));
  p.push_back(Parameter::integer("MDIMC", Range::interval(1, 16)).constrain({"MWG"}, [](int64_t v, Reads r) {
    return r[0] % v == 0;
  }));
  p.push_back(Parameter::integer("VWM", Range::set({1, 2, 4, 8})).constrain({"MWG", "MDIMC"}, [](int64_t v, Reads r) {
    return (r[0] / r[1]) % v == 0;
  }));
  p.push_back(Parameter::boolean("SA"));
  std::set<Values> expected = brute_force(p);
  SearchSpace space(std::move(p));
  EXPECT_EQ(space.size(), BigUnsigned(expected.size()));
}

TEST(SearchSpace, SizesAndIndicesBeyond64BitsAreExact) {
  // 14 independent parameters of 1024 values: 2^140 candidates, the mixed radix of 14 one-parameter groups.
  std::vector<Parameter> p;
  for (char name = 'A'; name < 'A' + 14; ++name)
    p.push_back(Parameter::integer(std::string(1, name), Range::interval(1, 1024)));
  SearchSpace space(std::move(p));
  EXPECT_EQ(space.size().str(), "1393796574908163946345982392040522594123776");
  EXPECT_FALSE(fits_uint64(space.size()));
  const BigUnsigned last = space.size() - 1;
  Point point = space.point_of(last);
  EXPECT_EQ(point, Point(14, 1023));
  EXPECT_EQ(space.index_of(point), last);
  point[0] = 1;  // the most significant digit: index 1 * 1024^13 + (1024^13 - 1)
  EXPECT_EQ(space.index_of(point), 2 * boost::multiprecision::pow(BigUnsigned(1024), 13) - 1);
}

TEST(BigUnsigned, GroupedDecimalForReports) {
  EXPECT_EQ(to_grouped_decimal(0), "0");
  EXPECT_EQ(to_grouped_decimal(999), "999");
  EXPECT_EQ(to_grouped_decimal(5651696), "5,651,696");
  EXPECT_EQ(to_grouped_decimal(BigUnsigned(1) << 64), "18,446,744,073,709,551,616");
  EXPECT_TRUE(fits_uint64(std::numeric_limits<uint64_t>::max()));
  EXPECT_FALSE(fits_uint64(BigUnsigned(1) << 64));
}

TEST(Configuration, JsonRoundTripOfEveryValueKind) {
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("N", Range::powers_of_two(1, 64)));
  p.push_back(Parameter::boolean("FLAG"));
  p.push_back(Parameter::enumeration("LAYOUT", {"row", "column"}));
  p.push_back(Parameter::permutation("ORDER", 3));
  SearchSpace space(std::move(p));
  EXPECT_EQ(space.size(), BigUnsigned(7 * 2 * 2 * 6));
  Rng rng(1);
  for (int i = 0; i < 20; ++i) {
    Configuration c = space.configuration(space.sample(rng));
    EXPECT_EQ(space.configuration_from_json(c.to_json()), c);
  }
  nlohmann::json json = {{"N", 8}, {"FLAG", true}, {"LAYOUT", "column"}, {"ORDER", {2, 0, 1}}};
  Configuration c = space.configuration_from_json(json);
  EXPECT_EQ(c["ORDER"], 4);  // lexicographic rank of (2, 0, 1)
  EXPECT_EQ(c.to_json(), json);
  try {
    space.configuration_from_json({{"N", 3}, {"FLAG", true}, {"LAYOUT", "row"}, {"ORDER", {0, 1, 2}}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "value 3 of parameter 'N' is not in its range");
  }
}

}  // namespace
}  // namespace mdh::tuner
