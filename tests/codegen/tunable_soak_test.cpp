// Soak runs of the tunable kernel (CTest label `soak`, not in CI): 1000 random valid configurations per md_hom,
// built as generated (optimised), and an exhaustive tiny GEMM over every family but the orders.
// Skipped unless MDH_SOAK=1. MDH_SOAK_BUILD_OPTIONS adds OpenCL build options: PoCL 3.1 (Debian 12) aborts in its own
// compiler (ParallelRegion.cc:346, "exit != NULL") on some optimised kernels, so there the soak runs with
// -cl-opt-disable, as CI does; PoCL 5 builds them optimised.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>

#include "codegen/config_json.h"
#include "codegen/kernel_config.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "pipeline/tuning_search_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"
#include "tuner/space/random.h"

namespace mdh::testing {
namespace {

bool soak_enabled() {
  const char* s = std::getenv("MDH_SOAK");
  return s && std::string(s) == "1";
}

class TunableSoak : public ::testing::TestWithParam<PropertyCase> {};

TEST_P(TunableSoak, ThousandRandomValidConfigurations) {
  if (!soak_enabled()) GTEST_SKIP() << "set MDH_SOAK=1 to run";
  const char* options = std::getenv("MDH_SOAK_BUILD_OPTIONS");
  run_property_case(GetParam(), 1000, 77001, options ? options : "");
}

INSTANTIATE_TEST_SUITE_P(AllMdHoms, TunableSoak, ::testing::ValuesIn(property_cases()),
                         [](const ::testing::TestParamInfo<PropertyCase>& info) { return info.param.name; });

// The tensor-core kernel in TF32: on an NVIDIA GPU of compute capability 8.0 or later its inline PTX (mma.sync,
// cp.async) as NVIDIA's compiler builds it, elsewhere the local-memory emulation built optimised.
INSTANTIATE_TEST_SUITE_P(MatrixProductsInTf32, TunableSoak, ::testing::ValuesIn(tensor_core_property_cases()),
                         [](const ::testing::TestParamInfo<PropertyCase>& info) { return "tf32_" + info.param.name; });

// CMB_WI shuffle with each point's work-items over several sub-groups (its second level), which the property sizes
// above are too small to draw on a GPU (more than 32 work-items along a reduction): random configurations of the
// tuner's lattices with the shuffle and more work-items per point than a sub-group, at sizes with room for them. Each
// md_hom's reduction is its last dimension; matrix_chain's operator does not commute and its result is a struct.
// One case per md_hom, so that a GPU runs them side by side.
struct ShuffleCase {
  std::string name, file, sizes;
};

void PrintTo(const ShuffleCase& c, std::ostream* out) {
  *out << c.name << " " << c.sizes;
}

class TunableSoakShuffle : public ::testing::TestWithParam<ShuffleCase> {};

TEST_P(TunableSoakShuffle, PointsOverSeveralSubgroups) {
  if (!soak_enabled()) GTEST_SKIP() << "set MDH_SOAK=1 to run";
  const char* options = std::getenv("MDH_SOAK_BUILD_OPTIONS");
  const DeviceLimits limits = first_device_limits();
  const ShuffleCase& k = GetParam();
  BoundMdh bound = bind_app("apps/dot.mdh", "K=1");
  if (k.name == "matrix_chain") {
    for (const PropertyCase& c : property_cases())
      if (c.name == "matrix_chain") bound = bind_spec_text(c.text, c.file, k.sizes);
  } else {
    bound = bind_app(k.file, k.sizes);
  }
  const int reduction = bound.mdh->reduction_dims().back();
  TuningSpace space = make_tuning_space(bound, limits);
  space.restrict_to("CMB_WI", {2});  // shuffle
  std::vector<int64_t> several;
  for (int64_t n = 2 * static_cast<int64_t>(limits.subgroup_width); n <= 1024; n *= 2) several.push_back(n);
  space.restrict_to("NUM_WI_" + bound.mdh->dims[reduction].name, several);
  const tuner::SearchSpace search = make_search_space(space, 1);
  const auto buffers = seeded_buffers(bound, 11);
  const auto expected = reference_output(bound, buffers);
  for (int drawn = 0; drawn < 100; ++drawn) {
    tuner::Rng rng(88001ull * 1'000'003 + static_cast<uint64_t>(drawn));
    const KernelConfig c = config_from_assignment(bound, space, search.configuration(search.sample(rng)).values());
    const std::string where = k.name + " " + k.sizes + ", config " + config_to_json(bound, c).dump();
    if (std::getenv("MDH_TUNABLE_VERBOSE")) std::cerr << where << std::endl;
    ASSERT_EQ(c.work_item_combine, WorkItemCombine::shuffle) << where;
    const auto run =
        run_plan_with_scratch(bound, generate_tunable_kernel(bound, c, limits), buffers, options ? options : "");
    if (!run.error.empty())
      ADD_FAILURE() << where << "\n" << run.error;
    else if (auto why = compare_outputs(bound, expected, run.output))
      ADD_FAILURE() << where << "\n" << *why;
  }
}

INSTANTIATE_TEST_SUITE_P(Reductions, TunableSoakShuffle,
                         ::testing::Values(ShuffleCase{"dot", "apps/dot.mdh", "K=4099"},
                                           ShuffleCase{"gemv", "apps/gemv.mdh", "I=3,K=2053"},
                                           ShuffleCase{"gemm", "apps/gemm.mdh", "I=2,J=3,K=1031"},
                                           ShuffleCase{"matrix_chain", "", "N=2,M=1500"}),
                         [](const ::testing::TestParamInfo<ShuffleCase>& info) { return info.param.name; });

TEST(TunableSoakExhaustive, Gemm2x3x2EveryFamilyButOrders) {
  if (!soak_enabled()) GTEST_SKIP() << "set MDH_SOAK=1 to run";
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=2,J=3,K=2");
  const DeviceLimits limits = first_device_limits();
  TuningSpace space = make_tuning_space(bound, limits);
  for (const auto& [name, value] : std::vector<std::pair<std::string, int64_t>>{{"ORDER_OCL_G_i", 1},
                                                                                {"ORDER_OCL_G_j", 0},
                                                                                {"ORDER_OCL_G_k", 2},
                                                                                {"ORDER_OCL_L_i", 1},
                                                                                {"ORDER_OCL_L_j", 0},
                                                                                {"ORDER_OCL_L_k", 2},
                                                                                {"LOOP_ORDER_G", 0},
                                                                                {"LOOP_ORDER_L", 0},
                                                                                {"LOOP_ORDER_P", 0}})
    space.restrict_to(name, {value});
  const auto buffers = seeded_buffers(bound, 5);
  const auto expected = reference_output(bound, buffers);
  const int64_t visited = for_each_valid_assignment(space, [&](const Assignment& a) {
    const KernelConfig c = config_from_assignment(bound, space, a);
    const auto run = run_plan_with_scratch(bound, generate_tunable_kernel(bound, c, limits), buffers);
    const std::string where = "config " + config_to_json(bound, c).dump();
    if (!run.error.empty())
      ADD_FAILURE() << where << "\n" << run.error;
    else if (auto why = compare_outputs(bound, expected, run.output))
      ADD_FAILURE() << where << "\n" << *why;
  });
  std::cout << "exhaustive: " << visited << " configurations\n";
}

}  // namespace
}  // namespace mdh::testing
