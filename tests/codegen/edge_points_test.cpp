// EDGE_POINTS `computed` acts only where some `++` dimension has edge tiles it applies to (ParameterFamily::effect):
// elsewhere it generates the guarded kernel byte for byte, so the space holds only `guarded` there (GEMM 1024^3 no
// longer searches every configuration twice) and a configuration read with `computed` takes `guarded`.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/emitter/tunable_emitter.h"
#include "codegen/input_packing.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tuning_space.h"
#include "pipeline/tuning_search_space.h"
#include "support/error.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

int64_t dims_computed_whole(const BoundMdh& bound, KernelConfig config) {
  set_label(config, "EDGE_POINTS", "computed");
  const std::vector<bool> dims = tunable_geometry(bound, config).edge_points_computed;
  return std::count(dims.begin(), dims.end(), true);
}

// The kernel text of the configuration with EDGE_POINTS `label`, from the emitter itself: generate_tunable_kernel
// refuses `computed` where it has no effect, which is the claim under test.
std::string kernel_with(const BoundMdh& bound, KernelConfig config, const std::string& label,
                        const DeviceLimits& limits) {
  set_label(config, "EDGE_POINTS", label);
  return emitter::TunableEmitter(packed_view(bound, config), config, limits, PreambleOptions{}).emit().source;
}

// The valid configurations of GEMM's space with every parameter at the default's value except the four sizes of
// dimension i (on their lattices) and EDGE_POINTS (`edge_points`): few enough to count exactly.
int64_t count_with_i_sizes_free(const BoundMdh& bound, const DeviceLimits& limits,
                                const std::vector<int64_t>& edge_points) {
  TuningSpace space = make_tuning_space(bound, limits);
  const Assignment fixed = assignment_from_config(space, default_config(bound, limits));
  for (size_t k = 0; k < space.parameters.size(); ++k) {
    const TuningParameter& p = space.parameters[k];
    const bool i_size = p.family->scope == FamilyScope::dimension && p.family->grouped_by_dimension && p.ref.index == 0;
    if (p.family->name == "EDGE_POINTS")
      space.restrict_to(p.name, edge_points);
    else if (!i_size)
      space.restrict_to(p.name, {fixed[k]});
  }
  return testing::for_each_valid_assignment(space, [](const Assignment&) {});
}

TEST(EdgePoints, SpaceOffersComputedOnlyWhereTilesLeaveEdges) {
  const DeviceLimits gpu = testing::h200_device_limits();
  // At 1024^3 every size on the lattices divides the extent: `computed` would only repeat `guarded`.
  const BoundMdh divisible = testing::bind_app("apps/gemm.mdh", "I=1024,J=1024,K=1024");
  const int64_t guarded = count_with_i_sizes_free(divisible, gpu, {0});
  EXPECT_GT(guarded, 100);
  EXPECT_EQ(count_with_i_sizes_free(divisible, gpu, {0, 1}), guarded);
  // At 1000^3 the default's tiles of j leave edges, and many of i's do: both values are offered.
  const BoundMdh odd = testing::bind_app("apps/gemm.mdh", "I=1000,J=1000,K=1000");
  const int64_t odd_guarded = count_with_i_sizes_free(odd, gpu, {0});
  const int64_t odd_both = count_with_i_sizes_free(odd, gpu, {0, 1});
  std::cout << "GEMM 1024^3, H200, sizes of i free: " << guarded << " configurations; 1000^3: " << odd_both
            << ", of which guarded " << odd_guarded << "\n";
  EXPECT_GT(odd_both, odd_guarded);
  EXPECT_LE(odd_both, 2 * odd_guarded);

  // The whole default spaces, sampled: no draw at 1024^3 computes edge points, on the GPU or on PoCL; at 1000^3
  // some do on the GPU (few on PoCL, whose draws seldom cache every input that moves with a dimension), and each of
  // those computes a dimension whole.
  constexpr int kDraws = 300;
  const std::pair<const char*, DeviceLimits> devices[] = {{"GPU", gpu}, {"PoCL", testing::first_device_limits()}};
  for (const auto& [device, limits] : devices)
    for (const BoundMdh* bound : {&divisible, &odd}) {
      const TuningSpace space = make_tuning_space(*bound, limits);
      const tuner::SearchSpace search = make_search_space(space, 1);
      tuner::Rng rng(7);
      int computed = 0;
      for (int k = 0; k < kDraws; ++k) {
        const KernelConfig c = config_from_assignment(*bound, space, search.configuration(search.sample(rng)).values());
        if (!has_label(c, "EDGE_POINTS", "computed")) continue;
        ++computed;
        EXPECT_GT(dims_computed_whole(*bound, c), 0);
      }
      std::cout << device << ", extents " << bound->dim_extents[0] << ": " << computed << " of " << kDraws
                << " draws compute edge points\n";
      if (bound == &divisible) {
        EXPECT_EQ(computed, 0);
      }
      if (bound == &odd && std::string(device) == "GPU") {
        EXPECT_GT(computed, 0);
      }
    }
}

// The claim the constraint rests on: `computed` changes the kernel exactly where some dimension's edge tiles run
// whole, over the property tests' draws (tiny sizes with primes: edges everywhere, some of them computed) and the
// defaults of every app at the golden test's sizes (13, and powers of two without edges) on a GPU and on PoCL.
TEST(EdgePoints, ComputedIsTheGuardedKernelWhereNoEdgeTileRunsWhole) {
  int same = 0, different = 0;
  auto check = [&](const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits,
                   const std::string& where) {
    if (!find_family("EDGE_POINTS")->has_member(bound, 0)) return;
    const bool acts = dims_computed_whole(bound, config) > 0;
    const bool equal = kernel_with(bound, config, "guarded", limits) == kernel_with(bound, config, "computed", limits);
    EXPECT_EQ(equal, !acts) << where;
    ++(equal ? same : different);
  };
  for (const testing::PropertyCase& c : testing::property_cases())
    testing::for_each_property_configuration(
        c, 12, testing::kPropertySeed, [&](const BoundMdh& bound, size_t, int index, const KernelConfig& config) {
          check(bound, config, testing::first_device_limits(), c.name + " #" + std::to_string(index));
        });
  for (const char* spec : {"apps/gemm.mdh", "apps/gemm_nt.mdh", "apps/gemv.mdh", "apps/dot.mdh", "apps/mcc.mdh",
                           "apps/tc/abcdef-gdab-efgc.mdh"})
    for (const bool small : {true, false}) {
      const auto mdh = parse_spec(testing::read_source_file(spec), spec);
      const int64_t value = small ? 13 : int64_t{1} << (24 / static_cast<int>(mdh->sizes.size()));
      std::string sizes;
      for (const SizeSymbol& s : mdh->sizes) sizes += (sizes.empty() ? "" : ",") + s.name + "=" + std::to_string(value);
      const BoundMdh bound = testing::bind_app(spec, sizes);
      for (const DeviceLimits& limits : {testing::h200_device_limits(), testing::first_device_vector_limits()})
        check(bound, default_config(bound, limits), limits, std::string(spec) + " " + sizes + " default");
    }
  std::cout << "EDGE_POINTS computed: the guarded kernel in " << same << " configurations, another in " << different
            << "\n";
  EXPECT_GT(same, 20);
  EXPECT_GT(different, 20);
}

// Stored configurations name `computed` where it has no effect (defaults and results written before the
// constraint): they read as `guarded`, the same kernel, and stay usable; a typed configuration that sets it there is
// outside the space.
TEST(EdgePoints, ComputedWithoutEffectReadsAsGuarded) {
  const DeviceLimits gpu = testing::h200_device_limits();
  for (const char* sizes : {"I=1024,J=1024,K=1024", "I=1000,J=1000,K=1000"}) {
    const BoundMdh bound = testing::bind_app("apps/gemm.mdh", sizes);
    const KernelConfig standard = default_config(bound, gpu);
    const bool edges = dims_computed_whole(bound, standard) > 0;
    EXPECT_EQ(edges, std::string(sizes) != "I=1024,J=1024,K=1024");
    EXPECT_EQ(has_label(standard, "EDGE_POINTS", "computed"), edges) << sizes;
    nlohmann::json stored = config_to_json(bound, standard);
    stored["EDGE_POINTS"] = "computed";
    const KernelConfig read = config_from_json(bound, stored);
    EXPECT_EQ(label_of(read, "EDGE_POINTS"), edges ? "computed" : "guarded") << sizes;
    EXPECT_NO_THROW(check_config(bound, read, gpu));
    KernelConfig typed = standard;
    set_label(typed, "EDGE_POINTS", "computed");
    if (edges) continue;
    try {
      check_config(bound, typed, gpu);
      ADD_FAILURE() << "check_config accepted EDGE_POINTS computed at " << sizes;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("EDGE_POINTS = guarded unless `++` dimensions whose edge tiles"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace mdh
