// WG_COMBINE: a reduction split over work-groups finished by a second kernel (kernel) or in the same kernel by the
// last work-group to store its partial results (last) or to add them into accumulators (atomic;
// KernelConfig::work_group_combine). That `last` and `atomic` make one kernel and zeroed scratch buffers, that they
// compute what the reference computes on PoCL for every md_hom of the property tests that reduces (commutative, not
// commutative, struct results, several `++` tiles per work-group; for `atomic`: + on float and int results), that
// they leave their scratch at zero, and where the family and its values exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/parameter_families.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

// Draws 40 configurations of each case (the contractions left out: slow to build, nothing new for this family),
// sets WG_COMBINE to `combine` where `applies` to the md_hom, and hands `check` the first four of each case whose
// reductions are split over work-groups and that generate, with a label naming them for messages.
using FinishedInOneKernel =
    std::function<void(const BoundMdh& bound, const KernelConfig& config, const TunableGeometry& g,
                       const LaunchPlan& plan, const std::string& where)>;
void for_each_finished_in_one_kernel(const std::vector<testing::PropertyCase>& cases, uint64_t seed,
                                     WorkGroupCombine combine, const std::function<bool(const Mdh&)>& applies,
                                     const FinishedInOneKernel& check) {
  const DeviceLimits limits = testing::first_device_limits();
  for (const testing::PropertyCase& c : cases) {
    if (c.name.rfind("tc_", 0) == 0) continue;
    int here = 0;
    testing::for_each_property_configuration(
        c, 40, seed, [&](const BoundMdh& bound, size_t size_index, int index, const KernelConfig& drawn) {
          if (!applies(*bound.mdh) || here >= 4) return;
          KernelConfig config = drawn;
          config.work_group_combine = combine;
          // Packed inputs' copy kernels would precede the one kernel these tests count (input_packing_test.cpp).
          for (int a : find_family("PACK_INP")->members(bound)) set_label(config, "PACK_INP", "spec", a);
          const TunableGeometry g = tunable_geometry(bound, config);
          if (!g.combines_work_groups()) return;
          LaunchPlan plan;
          try {
            plan = generate_tunable_kernel(bound, config, limits);
          } catch (const UserError&) {
            return;  // the finishing work-group's local memory does not fit beside this configuration's
          }
          ++here;
          check(bound, config, g, plan,
                c.name + " " + c.sizes[size_index] + " #" + std::to_string(index) + ": " +
                    config_to_json(bound, config).dump());
        });
  }
}

// Draws configurations of each reducing md_hom and runs those whose reductions are split over work-groups with
// both values: the same result as the reference, one kernel instead of two, a count per work-group of the `++`
// dimensions. The property tests draw the family at random too; this one runs each such configuration with `last`.
TEST(WgCombine, LastWorkGroupFoldsAsTheSecondKernelDoes) {
  const DeviceLimits limits = testing::first_device_limits();
  int folded = 0, not_commutative = 0, struct_results = 0, several_tiles = 0;
  for_each_finished_in_one_kernel(
      testing::property_cases(), 20261127, WorkGroupCombine::last,
      [](const Mdh& mdh) { return !mdh.reduction_dims().empty(); },
      [&](const BoundMdh& bound, const KernelConfig& drawn, const TunableGeometry& g, const LaunchPlan& plan,
          const std::string& where) {
        const Mdh& mdh = *bound.mdh;
        ASSERT_EQ(plan.kernels.size(), 1u) << where;
        const auto counts =
            std::find_if(plan.scratch.begin(), plan.scratch.end(), [](const ScratchBuffer& s) { return s.zeroed; });
        ASSERT_NE(counts, plan.scratch.end()) << where;
        EXPECT_EQ(counts->bytes, static_cast<uint64_t>(g.concat_work_groups) * 4) << where;
        EXPECT_EQ(
            std::count_if(plan.scratch.begin(), plan.scratch.end(), [](const ScratchBuffer& s) { return s.zeroed; }), 1)
            << where;
        KernelConfig config = drawn;
        config.work_group_combine = WorkGroupCombine::kernel;
        EXPECT_EQ(generate_tunable_kernel(bound, config, limits).kernels.size(), 2u) << where;

        const std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 3);
        // run_plan_with_scratch also fails where the counts are not zero after the launch.
        const testing::RunResult run = testing::run_plan_with_scratch(bound, plan, buffers);
        ASSERT_EQ(run.error, "") << where;
        EXPECT_EQ(testing::compare_outputs(bound, testing::reference_output(bound, buffers), run.output), std::nullopt)
            << where;
        ++folded;
        not_commutative += !mdh.dims[mdh.reduction_dims().front()].combine.is_commutative();
        struct_results += mdh.result_type().is_struct();
        for (int d : g.concat_dims) several_tiles += g.tiles_per_wg[d] > 1;
      });
  std::cout << "WG_COMBINE last: " << folded << " configurations (" << not_commutative << " not commutative, "
            << struct_results << " struct results, " << several_tiles << " with several `++` tiles per work-group)\n";
  EXPECT_GE(folded, 10);
  EXPECT_GT(not_commutative, 0);
  EXPECT_GT(struct_results, 0);
  EXPECT_GT(several_tiles, 0);
}

// `atomic` for every reducing md_hom of the property tests that adds float results, and for integer ones: the same
// result as the reference, one kernel, no partial results, and two zeroed buffers (the counts, and the
// accumulators, one per output point) that the kernel leaves at zero (run_plan_with_scratch fails otherwise).
TEST(WgCombine, AtomicAccumulatorsSumAsTheSecondKernelDoes) {
  std::vector<testing::PropertyCase> cases = testing::property_cases();
  cases.push_back({"idot",
                   "idot.mdh",
                   "md_hom idot\nsize K\ninput x : int[K]\ninput y : int[K]\noutput r : int[1]\n"
                   "view (k < K) : x[k], y[k] -> r[0]\nscalar (a, b) = a * b\ncombine (+)\n",
                   {"K=1", "K=29", "K=64"}});
  cases.push_back({"uintgemv",
                   "uintgemv.mdh",
                   "md_hom uintgemv\nsize I, K\ninput A : uint[I][K]\ninput x : uint[K]\noutput y : uint[I]\n"
                   "view (i < I, k < K) : A[i][k], x[k] -> y[i]\nscalar (a, b) = a * b\ncombine (++, +)\n",
                   {"I=5,K=17", "I=12,K=9"}});
  int added = 0, integer = 0, several_points = 0, several_tiles = 0;
  for_each_finished_in_one_kernel(
      cases, 20261128, WorkGroupCombine::atomic, work_group_combine_atomic_applies,
      [&](const BoundMdh& bound, const KernelConfig&, const TunableGeometry& g, const LaunchPlan& plan,
          const std::string& where) {
        ASSERT_EQ(plan.kernels.size(), 1u) << where;
        EXPECT_EQ(testing::occurrences(plan.source, "partials"), 0u) << where;
        std::vector<uint64_t> zeroed;
        for (const ScratchBuffer& s : plan.scratch)
          if (s.zeroed) zeroed.push_back(s.bytes);
        const uint64_t point_bytes = static_cast<uint64_t>(g.output_points) * g.result_bytes;
        EXPECT_EQ(zeroed, (std::vector<uint64_t>{static_cast<uint64_t>(g.concat_work_groups) * 4, point_bytes}))
            << where;

        const std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 3);
        const testing::RunResult run = testing::run_plan_with_scratch(bound, plan, buffers);
        ASSERT_EQ(run.error, "") << where;
        EXPECT_EQ(testing::compare_outputs(bound, testing::reference_output(bound, buffers), run.output), std::nullopt)
            << where;
        ++added;
        integer += bound.mdh->result_type().scalar != ScalarType::Float;
        several_points += g.output_points > 1;
        for (int d : g.concat_dims) several_tiles += g.tiles_per_wg[d] > 1;
      });
  std::cout << "WG_COMBINE atomic: " << added << " configurations (" << integer << " integer, " << several_points
            << " with several output points, " << several_tiles << " with several `++` tiles per work-group)\n";
  EXPECT_GE(added, 10);
  EXPECT_GT(integer, 0);
  EXPECT_GT(several_points, 0);
  EXPECT_GT(several_tiles, 0);
}

// A work-group's last tiles may lie past the extent along two `++` dimensions at once (GEMM 11x4: 10 work-groups of
// two 1-row tiles along i, 3 of two 1-column tiles along j). The product of the two negative extents is positive, and
// an earlier generator's last work-group then folded (last) or copied (atomic) points outside C: here 256 guard bytes
// after C must stay as they were.
TEST(WgCombine, TheLastWorkGroupStaysInsideTheOutputWhereTilesLiePastTheExtent) {
  const DeviceLimits limits = testing::first_device_limits();
  const BoundMdh gemm = testing::bind_app("apps/gemm.mdh", "I=11,J=4,K=6");
  KernelConfig c = default_config(gemm, limits);
  c.num_wg = {10, 3, 2};
  c.num_wi = {1, 1, 1};
  c.local_tile_size = {1, 1, 3};
  c.private_tile_size = {1, 1, 1};
  for (WorkGroupCombine combine : {WorkGroupCombine::last, WorkGroupCombine::atomic}) {
    c.work_group_combine = combine;
    const std::string where = config_to_json(gemm, c).dump();
    const TunableGeometry g = tunable_geometry(gemm, c);
    ASSERT_EQ(g.tiles_per_wg[0], 2) << where;
    ASSERT_EQ(g.tiles_per_wg[1], 2) << where;
    std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(gemm, 3);
    const testing::Bytes expected = testing::reference_output(gemm, buffers);
    const size_t output_bytes = buffers.at("C").size();
    buffers.at("C").resize(output_bytes + 256, 0xAB);
    const testing::RunResult run =
        testing::run_plan_with_scratch(gemm, generate_tunable_kernel(gemm, c, limits), buffers);
    ASSERT_EQ(run.error, "") << where;
    ASSERT_EQ(run.output.size(), output_bytes + 256) << where;
    EXPECT_TRUE(std::all_of(run.output.begin() + static_cast<std::ptrdiff_t>(output_bytes), run.output.end(),
                            [](unsigned char b) { return b == 0xAB; }))
        << "the last work-group wrote past C: " << where;
    const testing::Bytes inside(run.output.begin(), run.output.begin() + static_cast<std::ptrdiff_t>(output_bytes));
    EXPECT_EQ(testing::compare_outputs(gemm, expected, inside), std::nullopt) << where;
  }
}

// Under NVIDIA's driver a float adds in the L2 with red.global.add.f32; elsewhere a compare-and-swap loop on its bits;
// integers with atomic_add everywhere.
TEST(WgCombine, AtomicAddsAsTheDeviceCan) {
  DeviceLimits limits = testing::first_device_limits();
  auto source = [&](const char* type, bool nvidia) {
    const BoundMdh dot =
        testing::bind_spec_text(std::string("md_hom dot\nsize K\ninput x : ") + type + "[K]\noutput r : " + type +
                                    "[1]\nview (k < K) : x[k] -> r[0]\nscalar (a) = a\ncombine (+)\n",
                                "dot.mdh", "K=4096");
    KernelConfig c = default_config(dot, limits);
    c.num_wg = {4};
    c.local_tile_size = {1024};
    c.work_group_combine = WorkGroupCombine::atomic;
    limits.nvidia_driver = nvidia;
    return generate_tunable_kernel(dot, c, limits).source;
  };
  const std::string nvidia = source("float", true), portable = source("float", false);
  EXPECT_EQ(testing::occurrences(nvidia,
                                 "asm volatile(\"red.global.add.f32 [%0], %1;\" :: \"l\"(p), \"f\"(v) : "
                                 "\"memory\");"),
            1u);
  EXPECT_EQ(testing::occurrences(nvidia, "atomic_cmpxchg"), 0u);
  EXPECT_EQ(testing::occurrences(portable, "seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + v));"),
            1u);
  EXPECT_EQ(testing::occurrences(portable, "red.global"), 0u);
  for (bool nv : {false, true}) {
    const std::string integer = source("int", nv);
    EXPECT_EQ(testing::occurrences(integer, "atomic_add(p, v);"), 1u);
    EXPECT_EQ(testing::occurrences(integer, "red.global"), 0u);
    EXPECT_EQ(testing::occurrences(integer, "atomic_cmpxchg"), 0u);
  }
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
  // `atomic` only where every reduction adds float, int or uint results: not for max, not for double.
  EXPECT_TRUE(work_group_combine_atomic_applies(*dot.mdh));
  for (const char* spec :
       {"md_hom m\nsize K\ninput x : float[K]\noutput r : float[1]\nview (k < K) : x[k] -> r[0]\nscalar (a) = a\n"
        "combine (max)\n",
        "md_hom m\nsize K\ninput x : double[K]\noutput r : double[1]\nview (k < K) : x[k] -> r[0]\nscalar (a) = a\n"
        "combine (+)\n"}) {
    const BoundMdh m = testing::bind_spec_text(spec, "m.mdh", "K=4096");
    EXPECT_FALSE(work_group_combine_atomic_applies(*m.mdh)) << spec;
    KernelConfig a = default_config(m, limits);
    a.num_wg = {4};
    a.local_tile_size = {1024};
    a.work_group_combine = WorkGroupCombine::atomic;
    try {
      generate_tunable_kernel(m, a, limits);
      ADD_FAILURE() << "WG_COMBINE atomic was accepted for " << spec;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("violates WG_COMBINE != atomic (WG_COMBINE = atomic)"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace mdh
