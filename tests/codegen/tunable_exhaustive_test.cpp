// Exhaustive tests: every valid configuration of a tiny space against the reference kernel on PoCL.
// CI: GEMM 5x7x3 with the `++` dimensions fixed (LT 2/3, PT 1/2, NUM_WI 2/2, NUM_WG 2/2), identity orders and
// no caching, the work-groups in their own order (WG_SWIZZLE 1: its own test covers it), the loops over private
// steps and over local tiles as they are (UNROLL_STEPS and UNROLL_TILES off: their own tests cover them), results
// stored one at a time (STORE_WIDTH 1: its own test covers it), and every valid value of the
// reduction dimension's LT_SIZE, PT_SIZE, NUM_WI, NUM_WG together with every MEM_RES, CMB_RES, CMB_WI, OWNERSHIP_k
// and WG_COMBINE (684 configurations; 477 before MEM_RES_P private joined shared reductions, 294 before WG_COMBINE
// `atomic`, 246 before WG_COMBINE, 120 before CMB_WI and OWNERSHIP). The soak label runs
// larger exhaustive spaces (tunable_soak_test.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codegen/config_json.h"
#include "codegen/kernel_config.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "pipeline/tuning_search_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

TEST(TunableExhaustive, Gemm5x7x3ReductionDimensionWithEveryResultRegion) {
  const BoundMdh bound = testing::bind_app("apps/gemm.mdh", "I=5,J=7,K=3");
  const DeviceLimits limits = testing::first_device_limits();
  TuningSpace space = make_tuning_space(bound, limits);
  const std::vector<std::pair<std::string, int64_t>> fixed = {
      {"LT_SIZE_i", 2},      {"PT_SIZE_i", 1},      {"NUM_WI_i", 2},      {"NUM_WG_i", 2},      {"LT_SIZE_j", 3},
      {"PT_SIZE_j", 2},      {"NUM_WI_j", 2},       {"NUM_WG_j", 2},      {"ORDER_OCL_G_i", 1}, {"ORDER_OCL_G_j", 0},
      {"ORDER_OCL_G_k", 2},  {"ORDER_OCL_L_i", 1},  {"ORDER_OCL_L_j", 0}, {"ORDER_OCL_L_k", 2}, {"LOOP_ORDER_G", 0},
      {"LOOP_ORDER_L", 0},   {"LOOP_ORDER_P", 0},   {"MEM_INP_L_A", 0},   {"MEM_INP_L_B", 0},   {"MEM_INP_P_A", 0},
      {"MEM_INP_P_B", 0},    {"OWNERSHIP_i", 0},    {"OWNERSHIP_j", 0},   {"WG_SWIZZLE_i", 1},  {"WG_SWIZZLE_j", 1},
      {"VECTOR_WIDTH_A", 1}, {"VECTOR_WIDTH_B", 1}, {"STRIDED_RUN_i", 1}, {"STRIDED_RUN_j", 1}, {"UNROLL_STEPS", 0},
      {"UNROLL_TILES", 0},   {"LOCAL_PAD_A", 0},    {"LOCAL_PAD_B", 0},   {"STORE_WIDTH", 1}};
  for (const auto& [name, value] : fixed) space.restrict_to(name, {value});
  const auto buffers = testing::seeded_buffers(bound, 3);
  const auto expected = testing::reference_output(bound, buffers);
  int64_t shuffles = 0, second_kernel_without_shuffle = 0;
  const int64_t visited = testing::for_each_valid_assignment(space, [&](const Assignment& a) {
    const KernelConfig c = config_from_assignment(bound, space, a);
    shuffles += c.work_item_combine == WorkItemCombine::shuffle;
    second_kernel_without_shuffle +=
        c.work_group_combine == WorkGroupCombine::kernel && c.work_item_combine != WorkItemCombine::shuffle;
    const auto run =
        testing::run_plan_with_scratch(bound, generate_tunable_kernel(bound, c, limits), buffers, "-cl-opt-disable");
    const std::string where = "config " + config_to_json(bound, c).dump();
    if (!run.error.empty()) {
      ADD_FAILURE() << where << "\n" << run.error;
      return;
    }
    if (auto why = testing::compare_outputs(bound, expected, run.output)) ADD_FAILURE() << where << "\n" << *why;
  });
  // Without CMB_WI shuffle: 357 finished by a second kernel; 69 (NUM_WG_k 2) by the last work-group, and 69 by the
  // last adding atomically. Of each, 3 have WG_OWNERSHIP_k strided (LT_SIZE_k 1, NUM_WG_k 2: work-group 0 takes
  // tiles 0 and 2, work-group 1 tile 1 and the empty tile 3). CMB_WI shuffle adds 189 (NUM_WI_k 2: segments of 2
  // in PoCL's sub-groups of 4, DeviceLimits::subgroup_width). Where NUM_WI_k is 2, MEM_RES_P may now be private
  // too (registers, copied into local memory for each combine).
  EXPECT_EQ(visited, 684);
  EXPECT_EQ(shuffles, 189);
  EXPECT_EQ(second_kernel_without_shuffle, 357);
  // The tuner counts the same space exactly where it is small enough to count eagerly: with one WG_COMBINE, and
  // without shuffle, whose constraint reads every dimension's NUM_WI and so multiplies the candidates.
  space.restrict_to("WG_COMBINE", {0});
  space.restrict_to("CMB_WI", {0, 1});
  const auto known = make_search_space(space, 1).known_valid_size();
  ASSERT_TRUE(known.has_value());
  EXPECT_EQ(known->str(), "357");
}

}  // namespace
}  // namespace mdh
