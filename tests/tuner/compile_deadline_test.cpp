// The compile deadline follows the median of the run's latest compiles, with a floor and a cap, once enough compiles
// have finished.
#include "tuner/evaluate/compile_deadline.h"

#include <gtest/gtest.h>

namespace mdh::tuner {
namespace {

TEST(CompileDeadline, NoneUntilEnoughCompilesHaveFinished) {
  CompileDeadline deadline(4, 2, 120, 3);
  EXPECT_EQ(deadline.seconds(), std::nullopt);
  deadline.add(1);
  deadline.add(1);
  EXPECT_EQ(deadline.seconds(), std::nullopt);
  deadline.add(1);
  EXPECT_EQ(deadline.seconds(), 4.0);
}

TEST(CompileDeadline, FollowsTheMedianNotTheSlowCompilesAndKeepsItsFloor) {
  CompileDeadline deadline(4, 2, 120, 1);
  for (const double seconds : {0.5, 0.6, 30.0, 0.4, 60.0}) deadline.add(seconds);
  EXPECT_EQ(deadline.seconds(), 4 * 0.6);
  CompileDeadline fast(4, 2, 120, 1);
  for (const double seconds : {0.01, 0.02, 0.03}) fast.add(seconds);
  EXPECT_EQ(fast.seconds(), 2.0);
}

// The search's region decides, not its past: on the H200 Jacobi 3D 512^3's compiles near its best took about 2 s while
// the median of all its compiles said 0.15-0.7 s, and 1,406 of 3,436 evaluations were compiles stopped at the floor.
TEST(CompileDeadline, FollowsTheLatestCompilesIntoARegionOfLargerKernels) {
  CompileDeadline deadline(6, 2, 120, 8, 4);
  for (int k = 0; k < 100; ++k) deadline.add(0.15);
  EXPECT_EQ(deadline.seconds(), 2.0);
  deadline.add(2.0);  // stopped at the floor: counts with it
  deadline.add(2.0);
  EXPECT_EQ(deadline.seconds(), 6 * 2.0) << "half of the latest 4 compiles reached the deadline";
  for (const double seconds : {1.5, 1.5, 1.5}) deadline.add(seconds);
  EXPECT_EQ(deadline.seconds(), 6 * 1.5);
  for (int k = 0; k < 4; ++k) deadline.add(0.1);
  EXPECT_EQ(deadline.seconds(), 2.0) << "back in fast kernels, a 2 s compile is an outlier again";
}

// However slow the region, no compile gets more than a seed's first build may take.
TEST(CompileDeadline, NeverPastItsCap) {
  CompileDeadline deadline(6, 2, 120, 1, 4);
  for (int k = 0; k < 4; ++k) deadline.add(30);
  EXPECT_EQ(deadline.seconds(), 120.0);
}

// A seed (the default start: the baseline the run must not end behind) keeps the first build's deadline: on the
// 16-core Xeon PRL's CPU default compiled for 15 s beside 15 other builds while the median said 2.5 s.
TEST(CompileDeadline, SeedsKeepTheFirstBuildsDeadlineWhateverTheMedian) {
  CompileDeadline deadline(6, 2, 120, 2);
  EXPECT_EQ(deadline.seconds_for(true, 120), 120.0);
  EXPECT_EQ(deadline.seconds_for(false, 120), std::nullopt);
  deadline.add(2.5);
  deadline.add(2.5);
  EXPECT_EQ(deadline.seconds_for(false, 120), 15.0);
  EXPECT_EQ(deadline.seconds_for(true, 120), 120.0);
}

// The seeds a run knows: added (again) by the serving loop of an MPI rank while its compile threads look them up.
TEST(SeedConfigurations, HoldsWhatWasAddedOnceAndNothingElse) {
  auto parameters = std::make_shared<const std::vector<Parameter>>(
      std::vector<Parameter>{Parameter::integer("A", Range::interval(1, 8))});
  const Configuration one(parameters, {1}), two(parameters, {2});
  SeedConfigurations seeds;
  EXPECT_FALSE(seeds.contains(one));
  seeds.add(one);
  seeds.add(one);
  EXPECT_TRUE(seeds.contains(one));
  EXPECT_FALSE(seeds.contains(two));
}

// A compile that started before the median was known is judged by it once it is (on the H200 one such compile of
// MCC held every evaluation behind it for 40 of 45 s).
TEST(CompileDeadline, ACompileRunningWhenTheMedianBecomesKnownIsJudgedByIt) {
  CompileDeadline deadline(4, 2, 120, 2);
  EXPECT_FALSE(deadline.passed(100)) << "no deadline before two compiles have finished";
  deadline.add(1);
  deadline.add(1.5);
  EXPECT_FALSE(deadline.passed(6));
  EXPECT_TRUE(deadline.passed(6.1));
}

}  // namespace
}  // namespace mdh::tuner
