// The compile deadline follows the run's median compile, with a floor, once enough compiles have finished.
#include "tuner/compile_deadline.h"

#include <gtest/gtest.h>

namespace mdh::tuner {
namespace {

TEST(CompileDeadline, NoneUntilEnoughCompilesHaveFinished) {
  CompileDeadline deadline(4, 2, 3);
  EXPECT_EQ(deadline.seconds(), std::nullopt);
  deadline.add(1);
  deadline.add(1);
  EXPECT_EQ(deadline.seconds(), std::nullopt);
  deadline.add(1);
  EXPECT_EQ(deadline.seconds(), 4.0);
}

TEST(CompileDeadline, FollowsTheMedianNotTheSlowCompilesAndKeepsItsFloor) {
  CompileDeadline deadline(4, 2, 1);
  for (const double seconds : {0.5, 0.6, 30.0, 0.4, 60.0}) deadline.add(seconds);
  EXPECT_EQ(deadline.seconds(), 4 * 0.6);
  CompileDeadline fast(4, 2, 1);
  for (const double seconds : {0.01, 0.02, 0.03}) fast.add(seconds);
  EXPECT_EQ(fast.seconds(), 2.0);
}

// A compile that started before the median was known is judged by it once it is (on the H200 one such compile of
// MCC held every evaluation behind it for 40 of 45 s).
TEST(CompileDeadline, ACompileRunningWhenTheMedianBecomesKnownIsJudgedByIt) {
  CompileDeadline deadline(4, 2, 2);
  EXPECT_FALSE(deadline.passed(100)) << "no deadline before two compiles have finished";
  deadline.add(1);
  deadline.add(1.5);
  EXPECT_FALSE(deadline.passed(6));
  EXPECT_TRUE(deadline.passed(6.1));
}

}  // namespace
}  // namespace mdh::tuner
