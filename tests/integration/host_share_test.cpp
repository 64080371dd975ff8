// The cores of a host shared by the mpirun ranks on it (pipeline/host_share.h): contiguous near-equal shares, and
// a rank pins itself only where mpirun left it unbound.
#include "pipeline/host_share.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <numeric>
#include <thread>

namespace mdh {
namespace {

std::vector<int> cpus(int first, int count) {
  std::vector<int> v(static_cast<size_t>(count));
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(HostShare, TwoRanksOf32CoresTakeAHalfEach) {
  EXPECT_EQ(host_share(cpus(0, 32), 0, 2), cpus(0, 16));
  EXPECT_EQ(host_share(cpus(0, 32), 1, 2), cpus(16, 16));
}

TEST(HostShare, TheFirstSharesTakeTheCoresThatDoNotDivide) {
  // 10 cores, 3 ranks: 4, 3, 3.
  EXPECT_EQ(host_share(cpus(0, 10), 0, 3), cpus(0, 4));
  EXPECT_EQ(host_share(cpus(0, 10), 1, 3), cpus(4, 3));
  EXPECT_EQ(host_share(cpus(0, 10), 2, 3), cpus(7, 3));
}

TEST(HostShare, SharesFollowTheAllowedCoresNotTheirNumbers) {
  const std::vector<int> allowed{0, 2, 4, 6, 9, 11};
  EXPECT_EQ(host_share(allowed, 1, 2), (std::vector<int>{6, 9, 11}));
}

TEST(HostShare, NoShareWhereRanksOutnumberCoresOrTheRankIsNotOne) {
  EXPECT_TRUE(host_share(cpus(0, 2), 0, 3).empty());  // CI's oversubscribed run: 3 ranks on 2 cores
  EXPECT_TRUE(host_share(cpus(0, 8), 2, 2).empty());
  EXPECT_TRUE(host_share(cpus(0, 8), -1, 2).empty());
  EXPECT_TRUE(host_share(cpus(0, 8), 0, 0).empty());
}

TEST(HostShare, CpuListsReadAsTasksetWritesThem) {
  EXPECT_EQ(cpu_list_text(cpus(0, 16)), "0-15");
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpu_list_text({5}), "5");
  EXPECT_EQ(cpu_list_text({}), "");
}

// The pinning itself runs on a thread of its own, whose affinity dies with it.
std::vector<int> affinity_of_this_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> v;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) v.push_back(cpu);
  return v;
}

TEST(HostShare, AnUnboundRankKeepsToItsShareAndABoundOneIsLeftAlone) {
  const std::vector<int> all = affinity_of_this_thread();
  if (all.size() < 2 || static_cast<long>(all.size()) != ::sysconf(_SC_NPROCESSORS_ONLN))
    GTEST_SKIP() << "needs two cores and no binding of the test itself";
  std::thread([&] {
    const std::optional<std::string> note = keep_to_host_share(1, 2);
    ASSERT_TRUE(note.has_value());
    const std::vector<int> share = host_share(all, 1, 2);
    EXPECT_EQ(affinity_of_this_thread(), share);
    EXPECT_EQ(*note, "rank on host 1 of 2 keeps to cores " + cpu_list_text(share) + " (mpirun left the ranks unbound)");
    // Bound now: a second call (or a rank that mpirun bound) changes nothing.
    EXPECT_FALSE(keep_to_host_share(0, 2).has_value());
    EXPECT_EQ(affinity_of_this_thread(), share);
  }).join();
  std::thread([&] {
    EXPECT_FALSE(keep_to_host_share(0, 1).has_value());  // one rank on the host: nothing to share
    EXPECT_EQ(affinity_of_this_thread(), all);
  }).join();
}

TEST(HostShare, ARankBoundToOneCoreOfSeveralIsToldAndOthersAreNot) {
  const std::vector<int> all = affinity_of_this_thread();
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (all.size() < 2 || static_cast<long>(all.size()) != online) GTEST_SKIP() << "needs two cores, unbound";
  EXPECT_FALSE(single_core_binding_note(0, 1).has_value()) << "unbound";
  std::thread([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(all[1], &one);
    ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
    const std::optional<std::string> note = single_core_binding_note(0, 1);
    ASSERT_TRUE(note.has_value());
    EXPECT_EQ(note->rfind("rank on host 0 of 1 may run on core " + std::to_string(all[1]) + " only, of the host's " +
                              std::to_string(online) + ": mpirun bound it",
                          0),
              0u)
        << *note;
    // As many ranks as cores: one core each is the rank's fair share.
    EXPECT_FALSE(single_core_binding_note(0, static_cast<unsigned>(online)).has_value());
  }).join();
}

}  // namespace
}  // namespace mdh
