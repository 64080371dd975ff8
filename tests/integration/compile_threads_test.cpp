// The default number of compile workers of `mdh tune`: one per core this process may run on (one per two, rounded up,
// where the device is the host's CPU), shared by the tuning processes of one host, at least one.
#include <gtest/gtest.h>
#include <sched.h>

#include "pipeline/tune.h"

namespace mdh {
namespace {

// Restricts the calling thread to the first `cores` of the cores it may run on, and restores them when it ends.
class CoreRestriction {
 public:
  explicit CoreRestriction(int cores) {
    CPU_ZERO(&original_);
    EXPECT_EQ(::sched_getaffinity(0, sizeof original_, &original_), 0);
    cpu_set_t restricted;
    CPU_ZERO(&restricted);
    for (int cpu = 0, taken = 0; cpu < CPU_SETSIZE && taken < cores; ++cpu)
      if (CPU_ISSET(cpu, &original_)) {
        CPU_SET(cpu, &restricted);
        ++taken;
      }
    EXPECT_EQ(::sched_setaffinity(0, sizeof restricted, &restricted), 0);
  }
  ~CoreRestriction() { ::sched_setaffinity(0, sizeof original_, &original_); }

 private:
  cpu_set_t original_;
};

int available_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  EXPECT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  return CPU_COUNT(&allowed);
}

TEST(DefaultCompileThreads, OneCoreGetsOneWorkerWhateverTheProcessesOnItsHost) {
  CoreRestriction one(1);
  EXPECT_EQ(default_compile_threads(), 1u);
  EXPECT_EQ(default_compile_threads(4), 1u);
}

TEST(DefaultCompileThreads, TwoCoresGetTwoWorkersAndOneForEachOfTwoRanks) {
  if (available_cores() < 2) GTEST_SKIP() << "needs two cores";
  CoreRestriction two(2);
  EXPECT_EQ(default_compile_threads(), 2u);
  EXPECT_EQ(default_compile_threads(2), 1u);
  EXPECT_EQ(default_compile_threads(3), 1u);
}

// A CPU device runs the timed kernels on the same cores: half of them compile.
TEST(DefaultCompileThreads, AHostCpuDeviceGetsOneWorkerPerTwoCores) {
  const int cores = available_cores();
  EXPECT_EQ(default_compile_threads(1, true), static_cast<unsigned>((cores + 1) / 2));
  if (cores >= 2) {
    CoreRestriction two(2);
    EXPECT_EQ(default_compile_threads(1, true), 1u);
    EXPECT_EQ(default_compile_threads(2, true), 1u);
  }
}

TEST(DefaultCompileThreads, FollowTheCoresThisProcessMayRunOn) {
  const int cores = available_cores();
  EXPECT_EQ(default_compile_threads(), static_cast<unsigned>(cores));
  if (cores >= 2) {
    CoreRestriction fewer(cores / 2);
    EXPECT_EQ(default_compile_threads(), static_cast<unsigned>(cores / 2));
  }
}

}  // namespace
}  // namespace mdh
