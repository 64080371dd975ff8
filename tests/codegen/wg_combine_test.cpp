// WG_COMBINE: a reduction split over work-groups finished by a second kernel (kernel) or in the same kernel by the
// last work-group to store its partial results (last; KernelConfig::work_group_combine). That `last` makes one
// kernel and a zeroed count buffer, that it computes what the reference computes on PoCL for every md_hom of the
// property tests that reduces (commutative, not commutative, struct results, several `++` tiles per work-group),
// that it leaves its counts at zero, and where the family exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "codegen/kernel_config.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

// Draws configurations of each reducing md_hom and runs those whose reductions are split over work-groups with
// both values: the same result as the reference, one kernel instead of two, a count per work-group of the `++`
// dimensions. The property tests draw the family at random too; this one runs each such configuration with `last`.
TEST(WgCombine, LastWorkGroupFoldsAsTheSecondKernelDoes) {
  const DeviceLimits limits = testing::first_device_limits();
  int folded = 0, not_commutative = 0, struct_results = 0, several_tiles = 0;
  for (const testing::PropertyCase& c : testing::property_cases()) {
    if (c.name.rfind("tc_", 0) == 0) continue;  // the contractions: slow to build, nothing new for this family
    int here = 0;
    testing::for_each_property_configuration(
        c, 40, 20261127, [&](const BoundMdh& bound, size_t size_index, int index, const KernelConfig& drawn) {
          const Mdh& mdh = *bound.mdh;
          if (mdh.reduction_dims().empty() || here >= 4) return;
          KernelConfig config = drawn;
          config.work_group_combine = WorkGroupCombine::last;
          const TunableGeometry g = tunable_geometry(bound, config);
          if (!g.combines_work_groups()) return;
          LaunchPlan plan;
          try {
            plan = generate_tunable_kernel(bound, config, limits);
          } catch (const UserError&) {
            return;  // the fold's local memory does not fit beside this configuration's
          }
          ++here;
          const std::string where = c.name + " " + c.sizes[size_index] + " #" + std::to_string(index) + ": " +
                                    config_to_json(bound, config).dump();
          ASSERT_EQ(plan.kernels.size(), 1u) << where;
          const auto counts =
              std::find_if(plan.scratch.begin(), plan.scratch.end(), [](const ScratchBuffer& s) { return s.zeroed; });
          ASSERT_NE(counts, plan.scratch.end()) << where;
          EXPECT_EQ(counts->bytes, static_cast<uint64_t>(g.concat_work_groups) * 4) << where;
          EXPECT_EQ(
              std::count_if(plan.scratch.begin(), plan.scratch.end(), [](const ScratchBuffer& s) { return s.zeroed; }),
              1)
              << where;
          config.work_group_combine = WorkGroupCombine::kernel;
          EXPECT_EQ(generate_tunable_kernel(bound, config, limits).kernels.size(), 2u) << where;

          const std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 3);
          // run_plan_with_scratch also fails where the counts are not zero after the launch.
          const testing::RunResult run = testing::run_plan_with_scratch(bound, plan, buffers);
          ASSERT_EQ(run.error, "") << where;
          EXPECT_EQ(testing::compare_outputs(bound, testing::reference_output(bound, buffers), run.output),
                    std::nullopt)
              << where;
          ++folded;
          not_commutative += !mdh.dims[mdh.reduction_dims().front()].combine.is_commutative();
          struct_results += mdh.result_type().is_struct();
          for (int d : g.concat_dims) several_tiles += g.tiles_per_wg[d] > 1;
        });
  }
  std::cout << "WG_COMBINE last: " << folded << " configurations (" << not_commutative << " not commutative, "
            << struct_results << " struct results, " << several_tiles << " with several `++` tiles per work-group)\n";
  EXPECT_GE(folded, 10);
  EXPECT_GT(not_commutative, 0);
  EXPECT_GT(struct_results, 0);
  EXPECT_GT(several_tiles, 0);
}

// The partial results must reach every work-group before the count does. NVIDIA's OpenCL compiles mem_fence to
// the work-group's scope (membar.cta), so its kernels fence with membar.gl; other devices keep mem_fence.
TEST(WgCombine, TheFenceReachesTheWholeDevice) {
  const BoundMdh dot = testing::bind_spec_text(
      "md_hom dot\nsize K\ninput x : float[K]\noutput r : float[1]\nview (k < K) : x[k] -> r[0]\nscalar (a) = a\n"
      "combine (+)\n",
      "dot.mdh", "K=4096");
  DeviceLimits limits = testing::first_device_limits();
  KernelConfig c = default_config(dot, limits);
  c.num_wg = {4};
  c.local_tile_size = {1024};
  c.work_group_combine = WorkGroupCombine::last;
  limits.nvidia_driver = false;
  const std::string portable = generate_tunable_kernel(dot, c, limits).source;
  EXPECT_EQ(testing::occurrences(portable, "mem_fence(CLK_GLOBAL_MEM_FENCE);"), 2u);
  EXPECT_EQ(testing::occurrences(portable, "membar"), 0u);
  limits.nvidia_driver = true;
  const std::string nvidia = generate_tunable_kernel(dot, c, limits).source;
  EXPECT_EQ(testing::occurrences(nvidia, "asm volatile(\"membar.gl;\" ::: \"memory\");"), 2u);
  EXPECT_EQ(testing::occurrences(nvidia, "mem_fence(CLK_GLOBAL_MEM_FENCE)"), 0u);
}

TEST(WgCombine, ExistsWhereTheMdHomReducesAndOnlyWithWorkGroupsSharingAReduction) {
  const DeviceLimits limits = testing::first_device_limits();
  const BoundMdh map = testing::bind_spec_text(
      "md_hom m\nsize N\ninput x : float[N]\noutput y : float[N]\nview (i < N) : x[i] -> y[i]\nscalar (v) = v\n"
      "combine (++)\n",
      "m.mdh", "N=64");
  EXPECT_LT(make_tuning_space(map, limits).find("WG_COMBINE"), 0);
  const BoundMdh dot = testing::bind_spec_text(
      "md_hom dot\nsize K\ninput x : float[K]\noutput r : float[1]\nview (k < K) : x[k] -> r[0]\nscalar (a) = a\n"
      "combine (+)\n",
      "dot.mdh", "K=4096");
  EXPECT_GE(make_tuning_space(dot, limits).find("WG_COMBINE"), 0);
  // One work-group per reduction: nothing to fold, so `last` is not a second name for `kernel`.
  KernelConfig c = default_config(dot, limits);
  c.num_wg = {1};
  c.work_group_combine = WorkGroupCombine::last;
  try {
    generate_tunable_kernel(dot, c, limits);
    ADD_FAILURE() << "WG_COMBINE last with one work-group was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("violates WG_COMBINE = kernel unless NUM_WG_k >= 2 (WG_COMBINE = last, "
                                         "NUM_WG_k = 1)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mdh
