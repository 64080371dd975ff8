// Sampling blocks (tuner/space/sampling_blocks.h): where global constraints on small groups leave almost no uniform
// candidate valid, draws go through the blocks' valid combinations, stay uniform over the valid configurations and
// check few candidates; where rejection is cheap, draws stay exactly what they were.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <map>
#include <span>
#include <string>

#include "support/error.h"
#include "tuner/space/search_space.h"

namespace mdh::tuner {
namespace {

using Reads = std::span<const int64_t>;

// `pairs` pairs of groups A_d in [0, a_values) and B_d in [0, b_values), each pair tied by the global constraint
// "A_d == B_d" (one candidate pair in b_values valid), plus "the A_d sum to an even number" across all pairs.
// `checks` counts the calls of the pair constraints.
SearchSpace equal_pairs(int pairs, int values, std::atomic<uint64_t>& checks) {
  std::vector<Parameter> parameters;
  std::vector<GlobalConstraint> globals;
  std::vector<std::string> all_a;
  for (int d = 0; d < pairs; ++d) {
    const std::string a = "A_" + std::to_string(d), b = "B_" + std::to_string(d);
    parameters.push_back(Parameter::integer(a, Range::interval(0, values - 1)));
    parameters.push_back(Parameter::integer(b, Range::interval(0, values - 1)));
    globals.push_back({a + " == " + b, {a, b}, [&checks](Reads r) {
                         ++checks;
                         return r[0] == r[1];
                       }});
    all_a.push_back(a);
  }
  globals.push_back({"sum of A even", all_a, [](Reads r) {
                       int64_t sum = 0;
                       for (int64_t v : r) sum += v;
                       return sum % 2 == 0;
                     }});
  return SearchSpace(std::move(parameters), std::move(globals), 1);
}

// 20 pairs of 2 values: one uniform candidate in 2^21 is valid, so rejection needed about 2 million candidates
// per draw (and gave up after 10^6). Through the blocks a draw is valid with probability 1/2.
TEST(SamplingBlocks, TwentyTiedPairsSampleWithoutRejectingAlmostEveryCandidate) {
  std::atomic<uint64_t> checks{0};
  const SearchSpace space = equal_pairs(20, 2, checks);
  const SamplingBlocks& blocks = space.sampling_blocks();
  ASSERT_TRUE(blocks.active());
  EXPECT_EQ(blocks.block_count(), 20u);
  EXPECT_DOUBLE_EQ(blocks.internal_fraction(), std::pow(0.5, 20));
  ASSERT_EQ(blocks.remaining_constraints().size(), 1u);
  EXPECT_EQ(space.global_constraints().description(blocks.remaining_constraints()[0]), "sum of A even");
  EXPECT_EQ(blocks.drawn_from(), BigUnsigned(uint64_t{1} << 20));

  checks = 0;
  Rng rng(7);
  for (int s = 0; s < 200; ++s) {
    const Point point = space.sample(rng);
    ASSERT_TRUE(space.is_valid(point));
    const std::vector<int64_t> values = space.configuration(point).values();
    int64_t sum = 0;
    for (int d = 0; d < 20; ++d) {
      EXPECT_EQ(values[2 * d], values[2 * d + 1]);
      sum += values[2 * d];
    }
    EXPECT_EQ(sum % 2, 0);
  }
  // Each draw checks every pair constraint once; about two draws per sample. Rejection of uniform candidates
  // checked about 2 million candidates per sample.
  EXPECT_LT(checks.load(), uint64_t{200 * 20 * 6});

  const ValidSizeEstimate estimate = space.estimate_valid_size(4000, 1);
  EXPECT_GT(estimate.valid_samples, 1600u);
  EXPECT_LE(estimate.low, double(uint64_t{1} << 19));
  EXPECT_GE(estimate.high, double(uint64_t{1} << 19));
}

// Three pairs of 20 values: 8,000 of 64 million candidates satisfy the pairs, 4,000 also the sum. Draws through
// the blocks are uniform over those 4,000: each A_0 value (10 of them even, 10 odd) comes as often.
TEST(SamplingBlocks, DrawsAreUniformOverTheValidConfigurations) {
  std::atomic<uint64_t> checks{0};
  const SearchSpace space = equal_pairs(3, 20, checks);
  ASSERT_TRUE(space.sampling_blocks().active());
  EXPECT_EQ(space.sampling_blocks().drawn_from(), BigUnsigned(8000));
  Rng rng(11);
  std::map<int64_t, double> counts;
  const int draws = 20000;
  for (int s = 0; s < draws; ++s) {
    const Point point = space.sample(rng);
    ASSERT_TRUE(space.is_valid(point));
    counts[space.configuration(point).value(0)] += 1;
  }
  ASSERT_EQ(counts.size(), 20u);
  double chi_square = 0;
  const double expected = draws / 20.0;
  for (const auto& [value, count] : counts) chi_square += (count - expected) * (count - expected) / expected;
  EXPECT_LT(chi_square, 43.8);  // 19 degrees of freedom, exceeded with probability 0.001
  const ValidSizeEstimate estimate = space.estimate_valid_size(20000, 3);
  EXPECT_LE(estimate.low, 4000);
  EXPECT_GE(estimate.high, 4000);
}

// A constraint that excludes little leaves the draws as they were before blocks existed: the same points from the
// same seed as the same trees without it (journals of such spaces resume).
TEST(SamplingBlocks, SpacesWhereRejectionIsCheapKeepTheirDraws) {
  auto parameters = [] {
    std::vector<Parameter> p;
    p.push_back(Parameter::integer("X", Range::interval(0, 9)));
    p.push_back(Parameter::integer("Y", Range::interval(0, 9)));
    return p;
  };
  std::vector<GlobalConstraint> globals;
  globals.push_back({"X + Y <= 100", {"X", "Y"}, [](Reads r) { return r[0] + r[1] <= 100; }});
  const SearchSpace plain(parameters(), 1);
  const SearchSpace checked(parameters(), std::move(globals), 1);
  EXPECT_FALSE(checked.sampling_blocks().active());
  Rng a(5), b(5);
  for (int s = 0; s < 100; ++s) ASSERT_EQ(plain.sample(a), checked.sample(b));
}

// A block without a valid combination means no valid configuration: sampling says so at once, naming the
// constraint, instead of after 10^6 candidates.
TEST(SamplingBlocks, AnEmptyBlockEndsSamplingAtOnce) {
  std::vector<Parameter> parameters;
  std::vector<GlobalConstraint> globals;
  for (int d = 0; d < 12; ++d) {
    const std::string a = "A_" + std::to_string(d), b = "B_" + std::to_string(d);
    parameters.push_back(Parameter::integer(a, Range::interval(0, 1)));
    parameters.push_back(Parameter::integer(b, Range::interval(0, 1)));
    globals.push_back({a + " < " + b, {a, b}, [](Reads r) { return r[0] < r[1]; }});
  }
  globals.push_back({"A_0 > B_0", {"A_0", "B_0"}, [](Reads r) { return r[0] > r[1]; }});
  const SearchSpace space(std::move(parameters), std::move(globals), 1);
  ASSERT_TRUE(space.sampling_blocks().active());
  EXPECT_TRUE(space.sampling_blocks().has_empty_block());
  Rng rng(1);
  try {
    space.sample(rng);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("the search space has (almost) no configuration satisfying"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(space.estimate_valid_size(100, 1).valid, 0);
}

}  // namespace
}  // namespace mdh::tuner
