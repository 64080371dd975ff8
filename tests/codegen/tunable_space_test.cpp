// The tuning space: parameter names, exact counting against brute force, uniform sampling, exact local memory.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "codegen/kernel_config.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tuning_space.h"
#include "tests/codegen/codegen_test_support.h"

namespace mdh {
namespace {

using testing::bind_app;

DeviceLimits roomy() {
  DeviceLimits l;
  l.max_work_group_size = 1024;
  l.max_work_item_sizes = {1024, 1024, 64};
  l.local_mem_bytes = 64 * 1024;
  return l;
}

// A small space: dot K=4 with the orders fixed; every other family free.
TuningSpace small_dot_space(const BoundMdh& bound) {
  TuningSpace s = make_tuning_space(bound, roomy());
  for (const char* fixed : {"ORDER_OCL_G_k", "ORDER_OCL_L_k"}) s.restrict_to(fixed, {0});
  return s;
}

TEST(TuningSpace, ParametersOfGemm) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  const TuningSpace s = make_tuning_space(bound, roomy());
  std::vector<std::string> names;
  for (const auto& p : s.parameters) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "LT_SIZE_i",     "PT_SIZE_i",     "NUM_WI_i",      "NUM_WG_i",      "LT_SIZE_j",
                       "PT_SIZE_j",     "NUM_WI_j",      "NUM_WG_j",      "LT_SIZE_k",     "PT_SIZE_k",
                       "NUM_WI_k",      "NUM_WG_k",      "ORDER_OCL_G_i", "ORDER_OCL_G_j", "ORDER_OCL_G_k",
                       "ORDER_OCL_L_i", "ORDER_OCL_L_j", "ORDER_OCL_L_k", "LOOP_ORDER_G",  "LOOP_ORDER_L",
                       "LOOP_ORDER_P",  "MEM_INP_L_A",   "MEM_INP_L_B",   "MEM_INP_P_A",   "MEM_INP_P_B",
                       "BUF_ORDER_L_A", "BUF_ORDER_L_B", "BUF_ORDER_P_A", "BUF_ORDER_P_B", "MEM_RES_P",
                       "MEM_RES_L",     "CMB_RES"}));
  EXPECT_EQ(s.parameters[s.find("LOOP_ORDER_L")].value_names.at(3), "j,k,i");
  // Every constraint reads only parameters declared at or before the one it is attached to.
  for (const auto& c : s.constraints)
    for (int r : c.reads) EXPECT_LE(r, c.last_read()) << c.description;
}

TEST(TuningSpace, PermutationRanks) {
  for (int n = 1; n <= 5; ++n) {
    int64_t count = 1;
    for (int k = 2; k <= n; ++k) count *= k;
    for (int64_t r = 0; r < count; ++r) EXPECT_EQ(permutation_rank(permutation_from_rank(r, n)), r);
  }
  EXPECT_EQ(permutation_from_rank(5, 3), (std::vector<int>{2, 1, 0}));
}

TEST(TuningSpace, ExactCountMatchesBruteForce) {
  const BoundMdh bound = bind_app("apps/dot.mdh", "K=4");
  const TuningSpace s = small_dot_space(bound);
  // Brute force: every point of the product of the ranges, checked with first_violation.
  int64_t valid = 0;
  Assignment a(s.parameters.size());
  std::function<void(size_t)> visit = [&](size_t k) {
    if (k == a.size()) {
      valid += !first_violation(s, a).has_value();
      return;
    }
    for (int64_t i = 0; i < s.parameters[k].range_size(); ++i) {
      a[k] = s.parameters[k].value_at(i);
      visit(k + 1);
    }
  };
  visit(0);
  const SpaceSize size = count_valid_configurations(s);
  EXPECT_TRUE(size.exact);
  EXPECT_EQ(size.count, static_cast<double>(valid));
  EXPECT_GT(valid, 20);
}

TEST(TuningSpace, RandomValidAssignmentsAreValidAndUniform) {
  const BoundMdh bound = bind_app("apps/dot.mdh", "K=4");
  const TuningSpace s = small_dot_space(bound);
  std::map<Assignment, int> seen;
  for_each_valid_assignment(s, [&](const Assignment& a) { seen[a] = 0; });
  const int per_config = 100;
  const int draws = per_config * static_cast<int>(seen.size());
  std::mt19937_64 rng(12345);
  for (int k = 0; k < draws; ++k) {
    const Assignment a = random_valid_assignment(s, rng);
    ASSERT_FALSE(first_violation(s, a).has_value());
    ASSERT_TRUE(seen.count(a)) << "drawn an assignment the enumeration does not know";
    ++seen[a];
  }
  // Each count is binomial(draws, 1/n): mean 100, standard deviation about 10; 6 sigma bounds.
  for (const auto& [a, count] : seen) {
    EXPECT_GT(count, per_config - 60);
    EXPECT_LT(count, per_config + 60);
  }
}

TEST(TuningSpace, EstimateAgreesWithTheExactCount) {
  const BoundMdh bound = bind_app("apps/dot.mdh", "K=12");
  const TuningSpace s = make_tuning_space(bound, roomy());
  const SpaceSize exact = count_valid_configurations(s);
  ASSERT_TRUE(exact.exact);
  const SpaceSize estimate = count_valid_configurations(s, 100, 20'000);  // budget too small to enumerate
  EXPECT_FALSE(estimate.exact);
  EXPECT_NEAR(estimate.count / exact.count, 1.0, 0.1) << estimate.method;
}

TEST(TuningSpace, LocalMemoryIsExact) {
  const BoundMdh gemm = bind_app("apps/gemm.mdh", "I=64,J=64,K=64");
  KernelConfig c = default_config(gemm, roomy());
  c.local_tile_size = {16, 8, 4};
  c.private_tile_size = {2, 2, 2};
  c.num_wi = {4, 4, 2};
  c.num_wg = {4, 8, 1};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};      // 16x4 + 4x8 floats
  c.input_memory[static_cast<int>(Layer::Private)] = {Memory::Local, Memory::None};     // 2x2 floats x 32 WIs
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;                    // 8x4 slots x 32 WIs
  c.result_memory[static_cast<int>(Layer::Local)] = Memory::Local;                      // 8x4 slots x 16 leaders
  const TunableGeometry g = tunable_geometry(gemm, c);
  EXPECT_EQ(g.result_slots, 4 * 2);  // i: 2 steps x PT 2, j: 1 step x PT 2
  EXPECT_EQ(g.local_memory_bytes, 4u * (16 * 4 + 4 * 8 + 2 * 2 * 32 + g.result_slots * 32 + g.result_slots * 16));

  const BoundMdh gaussian = bind_app("apps/gaussian.mdh", "I=64,J=64");
  KernelConfig h = default_config(gaussian, roomy());
  h.local_tile_size = {8, 16};
  h.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local};
  EXPECT_EQ(tunable_geometry(gaussian, h).local_memory_bytes, 4u * (8 + 4) * (16 + 4));  // the halo of 2 each side
}

TEST(TuningSpace, DeviceLimitsBoundTheSpace) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=64,K=64");
  DeviceLimits tiny = roomy();
  tiny.local_mem_bytes = 1024;
  KernelConfig c = default_config(bound, roomy());
  c.local_tile_size = {16, 16, 16};
  c.num_wi = {4, 4, 1};
  c.num_wg = {4, 4, 4};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};  // 2 KiB of tiles
  EXPECT_NO_THROW(check_config(bound, c, roomy()));
  try {
    check_config(bound, c, tiny);
    FAIL() << "accepted 2 KiB of local memory on a 1 KiB device";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("violates local memory <= 1024 bytes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mdh
