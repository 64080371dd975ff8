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

#include <algorithm>
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
  // The `++` dimensions' sizes and the OpenCL dimensions (families without a neutral value) as the comment above
  // says; the reduction dimension's sizes and the families it varies free; every other parameter at its neutral
  // value, so that a new family leaves the count alone.
  const std::vector<std::pair<std::string, int64_t>> fixed = {
      {"LT_SIZE_i", 2},     {"PT_SIZE_i", 1},     {"NUM_WI_i", 2},      {"NUM_WG_i", 2},      {"LT_SIZE_j", 3},
      {"PT_SIZE_j", 2},     {"NUM_WI_j", 2},      {"NUM_WG_j", 2},      {"ORDER_OCL_G_i", 1}, {"ORDER_OCL_G_j", 0},
      {"ORDER_OCL_G_k", 2}, {"ORDER_OCL_L_i", 1}, {"ORDER_OCL_L_j", 0}, {"ORDER_OCL_L_k", 2}};
  const std::vector<std::string> varied = {"LT_SIZE_k",   "PT_SIZE_k",  "NUM_WI_k",      "NUM_WG_k",
                                           "MEM_RES_P",   "MEM_RES_L",  "CMB_RES",       "CMB_WI",
                                           "OWNERSHIP_k", "WG_COMBINE", "WG_OWNERSHIP_k"};
  for (const auto& [name, value] : fixed) space.restrict_to(name, {value});
  for (const TuningParameter& p : std::vector<TuningParameter>(space.parameters)) {
    const bool named =
        std::find(varied.begin(), varied.end(), p.name) != varied.end() ||
        std::find_if(fixed.begin(), fixed.end(), [&](const auto& f) { return f.first == p.name; }) != fixed.end();
    if (!named) {
      ASSERT_TRUE(p.neutral.has_value()) << p.name << " has no neutral value: fix it here";
      space.restrict_to(p.name, {*p.neutral});
    }
  }
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
