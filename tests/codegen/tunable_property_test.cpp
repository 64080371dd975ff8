// CI property tests: 50 random valid configurations per md_hom against the reference kernel on PoCL, built with
// -cl-opt-disable to keep the suite fast (the soak run, tunable_soak_test.cpp, builds them as generated), and a
// few per md_hom built optimised.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>

#include "codegen/input_packing.h"
#include "codegen/parameter_families.h"
#include "codegen/tensor_core.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tunable_kernel.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh::testing {
namespace {

constexpr uint64_t kSeed = kPropertySeed;
constexpr int kConfigurations = kPropertyConfigurations;
// The tensor-core kernel's draws, chosen again as kSeed is when TensorCorePropertyCoverage fails.
constexpr uint64_t kTensorCoreSeed = 20261202;
constexpr int kTensorCoreConfigurations = 12;

// Each tensor-core case draws with a seed of its own: with one seed, the similar spaces of the cases draw alike.
uint64_t tensor_core_seed(const PropertyCase& c) {
  const std::vector<PropertyCase> cases = tensor_core_property_cases();
  for (size_t i = 0; i < cases.size(); ++i)
    if (cases[i].name == c.name) return kTensorCoreSeed + i;
  return kTensorCoreSeed;
}

class TunableProperty : public ::testing::TestWithParam<PropertyCase> {};

// MDH_TUNABLE_BUILD_OPTIONS replaces -cl-opt-disable (e.g. set it to " " to run these optimised).
TEST_P(TunableProperty, RandomValidConfigurationsMatchTheReference) {
  const char* options = std::getenv("MDH_TUNABLE_BUILD_OPTIONS");
  run_property_case(GetParam(), kConfigurations, kSeed, options ? options : "-cl-opt-disable");
}

INSTANTIATE_TEST_SUITE_P(AllMdHoms, TunableProperty, ::testing::ValuesIn(property_cases()),
                         [](const ::testing::TestParamInfo<PropertyCase>& info) { return info.param.name; });

// Optimised builds compile the peeled full-tile and edge-tile code differently from -cl-opt-disable (unrolling,
// if-conversion, PoCL's vectorised work-item loops), and optimisers have miscompiled this kernel before
// (tests/repro/). The contractions are left out: PoCL 3.1's compiler aborts the process on some of their optimised
// kernels (tests/repro/pocl-parallel-region), which would end the whole suite; the GPU soak builds them optimised.
class TunablePropertyOptimised : public ::testing::TestWithParam<PropertyCase> {};

TEST_P(TunablePropertyOptimised, RandomValidConfigurationsMatchTheReference) {
  run_property_case(GetParam(), 8, kSeed + 1, "");
}

std::vector<PropertyCase> cases_pocl_builds_optimised() {
  std::vector<PropertyCase> cases;
  for (const PropertyCase& c : property_cases())
    if (c.name.rfind("tc_", 0) != 0 && c.name != "contraction4") cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(MdHomsWithoutContractions, TunablePropertyOptimised,
                         ::testing::ValuesIn(cases_pocl_builds_optimised()),
                         [](const ::testing::TestParamInfo<PropertyCase>& info) { return info.param.name; });

// Kernels whose positions are `long` (needs_wide_indices: extents near 2^31, where the reference would run for
// seconds per configuration), drawn at the tiny sizes: every shape of tile code with 64-bit positions and size macros.
class TunablePropertyWideIndices : public ::testing::TestWithParam<PropertyCase> {};

TEST_P(TunablePropertyWideIndices, RandomValidConfigurationsMatchTheReference) {
  PreambleOptions wide;
  wide.wide_indices = true;
  run_property_case(GetParam(), 12, kSeed + 2, "-cl-opt-disable", wide);
}

INSTANTIATE_TEST_SUITE_P(AllMdHoms, TunablePropertyWideIndices, ::testing::ValuesIn(property_cases()),
                         [](const ::testing::TestParamInfo<PropertyCase>& info) { return info.param.name; });

// The tensor-core kernel in TF32 (its fragments exchanged through local memory on PoCL): random valid
// configurations of its families, full and edge tiles.
class TensorCoreProperty : public ::testing::TestWithParam<PropertyCase> {};

TEST_P(TensorCoreProperty, RandomValidConfigurationsMatchTheReference) {
  const char* options = std::getenv("MDH_TUNABLE_BUILD_OPTIONS");
  run_property_case(GetParam(), kTensorCoreConfigurations, tensor_core_seed(GetParam()),
                    options ? options : "-cl-opt-disable");
}

INSTANTIATE_TEST_SUITE_P(MatrixProductsInTf32, TensorCoreProperty, ::testing::ValuesIn(tensor_core_property_cases()),
                         [](const ::testing::TestParamInfo<PropertyCase>& info) { return info.param.name; });

// The tensor-core draws reach every pipeline (MMA_PREFETCH off, on, local; MMA_STAGES 2 to 4), paired fragment loads
// from a free-major tile (the float2 path) and the staged epilogue into C and into the splits' partial results.
TEST(TensorCorePropertyCoverage, EveryPipelineFragmentLoadAndEpilogueIsDrawn) {
  std::array<int, 3> prefetch{};
  std::array<int, 5> stages{};
  std::array<int, 2> staged{};  // [into C, into partial results]
  int paired_free_major = 0;
  const auto count = [&](const BoundMdh& bound, size_t, int, const KernelConfig& config) {
    const int64_t s = config.value("MMA_STAGES");
    ++stages[s];
    if (s == 1) ++prefetch[config.value("MMA_PREFETCH")];
    const TensorCoreRoles roles = *tensor_core_roles(bound);
    paired_free_major += config.value("MMA_FRAGMENT_LOADS") == 1 && (!roles.a_k_major || !roles.b_k_major);
    if (config.value("MMA_EPILOGUE") == 1) ++staged[config.value("MMA_SPLIT_K") > 1];
  };
  for (const PropertyCase& c : tensor_core_property_cases())
    for_each_property_configuration(c, kTensorCoreConfigurations, tensor_core_seed(c), count);
  for (int p = 0; p < 3; ++p) EXPECT_GT(prefetch[p], 0) << "MMA_PREFETCH " << p;
  for (int s = 2; s <= 4; ++s) EXPECT_GT(stages[s], 0) << "MMA_STAGES " << s;
  EXPECT_GT(paired_free_major, 0);
  EXPECT_GT(staged[0], 0);
  EXPECT_GT(staged[1], 0);
}

// The CI configurations reach every shape of tile code: unguarded only (tiles always full), a runtime choice per
// tile or step between unguarded and guarded code, and guarded only (never full), for local tiles (input caches),
// private steps (private caches and elements) and result write-back. Counts dimensions over all md_homs.
TEST(TunablePropertyCoverage, EveryShapeOfTileCodeIsDrawn) {
  // [local tiles, steps, result slots][Always, Sometimes, Never]
  std::array<std::array<int, 3>, 3> seen{};
  int swizzled = 0, double_buffered = 0, two_local_tiles = 0, unrolled_steps = 0, unrolled_tiles = 0, padded_rows = 0,
      inline_math = 0, inlined_f = 0, unrolled_f_loops = 0, last_group_folds = 0, atomic_adds = 0, strided_tiles = 0,
      strided_prefetch = 0, shuffles = 0, shuffle_levels_of_two = 0, vector_lanes = 0;  // families not about tiles
  // PACK_INP: configurations reading a packed copy, [of rank 2, of rank 3 or more (the copy kernel's third
  // NDRange dimension)].
  std::array<int, 2> packed{};
  // Configurations with private steps that are sometimes full: tested once per local tile, or once per step.
  int steps_tested_per_tile = 0, steps_tested_per_step = 0;
  // Of those tested once per tile: edge tiles that run the full tiles' code along some `++` dimension, computing
  // points past the extent (TunableGeometry::edge_points_computed), and those that run guarded code along all.
  int edge_points_computed = 0, edge_points_guarded = 0;
  // MEM_RES_P private where work-items share a reduction (partial results copied into local memory for each
  // combine), per CMB_WI [serial, tree, shuffle]; the end of a reduction combined once (CMB_RES G) whose last
  // work-group fold is counted in by work-item 0 alone, without a barrier.
  std::array<int, 3> staged_results{};
  int counted_in_by_work_item_0 = 0;
  // UNROLL_TILES with strided work-group tiles sometimes full, whose last tile alone is tested: [in a loop of groups
  // of full tiles and a last group, in one group]. The property sizes give few work-groups 9 tiles or more: the loop
  // is left to TunableKernel.UnrolledStridedTileLoopTestsItsLastTileAlone.
  std::array<int, 2> peeled_tile_loops{};
  // VECTOR_WIDTH: cached copies that move vectors, per layer [local, private], read aligned or through vloadN.
  std::array<std::array<int, 2>, 2> vector_copies{};
  for (const PropertyCase& c : property_cases())
    for_each_property_configuration(
        c, kConfigurations, kSeed, [&](const BoundMdh& bound, size_t, int, const KernelConfig& config) {
          const TunableGeometry g = tunable_geometry(bound, config);
          swizzled += std::any_of(config.family_values.begin(), config.family_values.end(),
                                  [](const auto& v) { return v.first.first == "WG_SWIZZLE" && v.second > 1; });
          double_buffered += config.double_buffer == DoubleBuffer::on && g.prefetch_dimension >= 0;
          two_local_tiles += config.double_buffer == DoubleBuffer::local && g.prefetch_dimension >= 0;
          unrolled_steps +=
              config.unroll_steps == UnrollSteps::on &&
              std::any_of(g.private_steps.begin(), g.private_steps.end(), [](int64_t n) { return n > 1; });
          unrolled_tiles += config.unroll_tiles == UnrollTiles::on && g.tile_loop_unroll > 1;
          padded_rows += std::any_of(g.cached_tiles.begin(), g.cached_tiles.end(),
                                     [](const CachedTile& t) { return t.row_pad > 0; });
          inline_math += has_label(config, "INLINE_MATH", "mdh");
          inlined_f += has_label(config, "F_INLINE", "inline");
          unrolled_f_loops += has_label(config, "F_INLINE", "unrolled");
          last_group_folds += g.folds_in_last_group() && !g.accumulates_atomically();
          atomic_adds += g.accumulates_atomically();
          if (g.stages_results) ++staged_results[static_cast<int>(config.work_item_combine)];
          counted_in_by_work_item_0 += g.folds_in_last_group() && g.only_first_work_item_stores();
          if (const int d = g.peeled_tile_loop; d >= 0) ++peeled_tile_loops[g.tiles_per_wg[d] == g.tile_loop_unroll];
          if (config.work_item_combine == WorkItemCombine::shuffle && g.combines_work_items()) {
            ++shuffles;
            shuffle_levels_of_two +=
                g.reduction_work_items > static_cast<int64_t>(first_device_limits().subgroup_width);
          }
          for (size_t d = 0; d < bound.mdh->dims.size(); ++d)
            if (config.work_group_ownership_of(static_cast<int>(d)) == Ownership::strided) {
              ++strided_tiles;
              strided_prefetch +=
                  g.prefetch_dimension == static_cast<int>(d) && config.double_buffer != DoubleBuffer::off;
            }
          // VECTOR_LANES that the kernel uses (its summary says so), not only drawn: rare at these prime sizes, so
          // VectorLanes.RandomConfigurationsThatComputeLanesMatchTheReference draws at sizes of whole vectors.
          if (config.vector_lanes > 1)
            vector_lanes +=
                generate_tunable_kernel(bound, config, first_device_limits()).source.find("//   VECTOR_LANES: ") !=
                std::string::npos;
          if (std::any_of(config.vector_width.begin(), config.vector_width.end(), [](int64_t w) { return w > 1; })) {
            // The kernel's summary says which copies move vectors and how they load them.
            const std::string source = generate_tunable_kernel(bound, config, first_device_limits()).source;
            const size_t at = source.find("//   VECTOR_WIDTH: ");
            const std::string summary = source.substr(at, source.find('\n', at) - at);
            for (int l = 0; l < 2; ++l)
              for (int aligned = 0; aligned < 2; ++aligned)
                vector_copies[l][aligned] += summary.find(std::string(l == 0 ? "L " : "P ") +
                                                          (aligned == 0 ? "aligned" : "vloadN")) != std::string::npos;
          }
          for (size_t a = 0; a < bound.inputs.size(); ++a)
            if (packs_input(config, static_cast<int>(a))) ++packed[bound.inputs[a].indices.size() > 2];
          if (std::count(g.step_fullness.begin(), g.step_fullness.end(), Fullness::Sometimes) > 0)
            ++(g.tiles_decide_steps ? steps_tested_per_tile : steps_tested_per_step);
          if (g.tiles_decide_steps)
            ++(std::count(g.edge_points_computed.begin(), g.edge_points_computed.end(), true) > 0
                   ? edge_points_computed
                   : edge_points_guarded);
          for (size_t d = 0; d < g.step_fullness.size(); ++d) {
            ++seen[0][static_cast<int>(g.local_tile_fullness[d])];
            ++seen[1][static_cast<int>(g.step_fullness[d])];
            if (bound.mdh->dims[d].combine.is_concat()) ++seen[2][static_cast<int>(g.tile_slots_fullness[d])];
          }
        });
  const char* kinds[] = {"local tiles", "private steps", "result slots"};
  for (int k = 0; k < 3; ++k) {
    std::cout << kinds[k] << ": always full " << seen[k][0] << ", sometimes " << seen[k][1] << ", never " << seen[k][2]
              << " dimensions\n";
    // LT_SIZE <= N in the space, so the first local tile is full: local tiles are never "never full".
    for (int f = 0; f < (k == 0 ? 2 : 3); ++f) EXPECT_GT(seen[k][f], 0) << kinds[k] << ", fullness " << f;
  }
  std::cout << "sometimes-full private steps tested once per local tile: " << steps_tested_per_tile
            << " configurations, once per step: " << steps_tested_per_step << "\n";
  EXPECT_GT(steps_tested_per_tile, 0);
  EXPECT_GT(steps_tested_per_step, 0);
  std::cout << "of those once per tile, edge points computed: " << edge_points_computed
            << " configurations, guarded: " << edge_points_guarded << "\n";
  EXPECT_GT(edge_points_computed, 0);
  EXPECT_GT(edge_points_guarded, 0);
  std::cout << "WG_SWIZZLE > 1: " << swizzled << " configurations; DOUBLE_BUFFER pipelining: " << double_buffered
            << " through registers, " << two_local_tiles << " with two local tiles; UNROLL_STEPS: " << unrolled_steps
            << "; UNROLL_TILES: " << unrolled_tiles << "; LOCAL_PAD > 0: " << padded_rows
            << "; INLINE_MATH mdh: " << inline_math << "; F_INLINE inline: " << inlined_f
            << ", unrolled: " << unrolled_f_loops << "; WG_COMBINE last: " << last_group_folds
            << ", atomic: " << atomic_adds << "; WG_OWNERSHIP strided: " << strided_tiles << " dimensions, "
            << strided_prefetch << " of them pipelined by DOUBLE_BUFFER; CMB_WI shuffle: " << shuffles << ", "
            << shuffle_levels_of_two << " of them across sub-groups too; VECTOR_LANES used: " << vector_lanes << "\n";
  const char* layers[] = {"local", "private"};
  for (int l = 0; l < 2; ++l) {
    std::cout << "VECTOR_WIDTH > 1, " << layers[l] << " caches: " << vector_copies[l][0] << " rows of whole vectors "
              << "aligned by the tile sizes, " << vector_copies[l][1] << " not provably aligned (vloadN)\n";
    for (int aligned = 0; aligned < 2; ++aligned) EXPECT_GT(vector_copies[l][aligned], 0) << layers[l];
  }
  std::cout << "PACK_INP moving_innermost: " << packed[0] << " inputs of rank 2, " << packed[1]
            << " of rank 3 or more\n";
  EXPECT_GT(packed[0], 0);
  EXPECT_GT(packed[1], 0);
  EXPECT_GT(swizzled, 0);
  EXPECT_GT(double_buffered, 0);
  EXPECT_GT(two_local_tiles, 0);
  EXPECT_GT(unrolled_steps, 0);
  EXPECT_GT(unrolled_tiles, 0);
  EXPECT_GT(padded_rows, 0);
  EXPECT_GT(inline_math, 0);
  EXPECT_GT(inlined_f, 0);
  EXPECT_GT(unrolled_f_loops, 0);
  EXPECT_GT(last_group_folds, 0);
  EXPECT_GT(atomic_adds, 0);
  EXPECT_GT(strided_tiles, 0);
  EXPECT_GT(strided_prefetch, 0);
  EXPECT_GT(shuffles, 0);
  EXPECT_GT(shuffle_levels_of_two, 0);
  std::cout << "MEM_RES_P private with shared reductions: " << staged_results[0] << " serial, " << staged_results[1]
            << " tree, " << staged_results[2]
            << " shuffle combines; counted in by work-item 0 alone: " << counted_in_by_work_item_0 << "\n";
  for (int k = 0; k < 3; ++k) EXPECT_GT(staged_results[k], 0) << "CMB_WI " << k;
  EXPECT_GT(counted_in_by_work_item_0, 0);
  std::cout << "unrolled tile loops whose last tile alone is tested: " << peeled_tile_loops[0]
            << " with a loop of groups, " << peeled_tile_loops[1] << " in one group\n";
  EXPECT_GT(peeled_tile_loops[1], 0);
}

}  // namespace
}  // namespace mdh::testing
