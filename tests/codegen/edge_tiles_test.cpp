// Edge tiles of the GPU defaults: the tiles that the default chooses at a size, run at sizes 1 to 3 before and past
// their multiples in every dimension (the interior full-tile code and the guarded edge code side by side), against
// the reference on PoCL; and whether the property tests' random draws reach the private copies that edge steps make
// of whole boxes.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

// The H200's limits without its driver's inline PTX, so that its defaults build on PoCL.
DeviceLimits gpu_limits_for_pocl() {
  DeviceLimits limits = testing::h200_device_limits();
  limits.nvidia_driver = false;
  return limits;
}

// The size binding that gives the dimensions these extents (each dimension's extent one size symbol, as in apps/).
std::string size_binding(const BoundMdh& bound, const std::vector<int64_t>& extents) {
  std::string text;
  for (size_t d = 0; d < extents.size(); ++d)
    text += (d ? "," : "") + bound.mdh->dims[d].extent.symbol_name() + "=" + std::to_string(extents[d]);
  return text;
}

// Empty when the tunable kernel of `config` matches the reference on seeded inputs, else what went wrong.
std::string mismatch(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits) {
  return testing::mismatch_with_reference(bound, config, "-cl-opt-disable", limits, 11);
}

// For each md_hom, the default's tiles at `sizes`; then, one dimension at a time, that dimension's extent set to two
// (or more, for short tiles) local tiles plus `offset` for each offset (the other extents as given) with the same
// tiles, the work-groups following from the new extent. Dimensions of one-index tiles have no edges and are skipped.
TEST(EdgeTiles, GpuDefaultTilesOneToThreeBesideTheirMultiples) {
  const DeviceLimits limits = gpu_limits_for_pocl();
  struct Case {
    const char* app;
    const char* sizes;
    std::vector<int64_t> offsets;
  };
  const std::vector<int64_t> all = {-3, -2, -1, 1, 2, 3};
  for (const Case& k :
       std::vector<Case>{{"apps/gemm.mdh", "I=256,J=256,K=64", all},
                         {"apps/gemv.mdh", "I=64,K=2048", all},
                         {"apps/gaussian.mdh", "I=64,J=128", all},
                         {"apps/jacobi3d.mdh", "I=16,J=32,K=128", all},
                         {"apps/tc/abcdef-gdab-efgc.mdh", "A=8,B=16,C=4,D=4,E=24,F=16,G=24", {-1, 3}}}) {
    const BoundMdh base = testing::bind_app(k.app, k.sizes);
    const KernelConfig tiles = default_config(base, limits);
    int runs = 0;
    for (size_t d = 0; d < base.dim_extents.size(); ++d) {
      const int64_t tile = tiles.local_tile_size[d];
      if (tile == 1) continue;
      for (int64_t offset : k.offsets) {
        int64_t multiple = 2;  // of the tile: at least one full tile before the edge
        while (multiple * tile + offset < tile) ++multiple;
        std::vector<int64_t> extents = base.dim_extents;
        extents[d] = multiple * tile + offset;
        const BoundMdh bound = testing::bind_app(k.app, size_binding(base, extents));
        KernelConfig c = tiles;
        if (bound.mdh->dims[d].combine.is_concat() || c.num_wg[d] > 1) c.num_wg[d] = (extents[d] + tile - 1) / tile;
        const std::string where = std::string(k.app) + " " + size_binding(base, extents);
        try {
          check_config(bound, c, limits);
        } catch (const std::exception& e) {
          ADD_FAILURE() << where << ": the default's tiles are not valid here: " << e.what();
          continue;
        }
        EXPECT_EQ(mismatch(bound, c, limits), "") << where;
        ++runs;
      }
    }
    EXPECT_GT(runs, 0) << k.app << ": the default has no tiles longer than one index";
  }
}

// The H200 default of GEMM at sizes off its tile multiples keeps the work-groups of 1024^3 (1000 = 8 x 125 once
// halved them to 8 x 8 work-items), pipelines its reduction tiles and is assembled at the driver's own level: its
// register tiles' private copies in edge steps are whole, not the guarded shape that level 1 works around.
TEST(EdgeTiles, GpuGemmDefaultOffTileMultiplesKeepsItsShapeLevelAndPipeline) {
  const DeviceLimits h200 = testing::h200_device_limits();
  const KernelConfig cubed = default_config(testing::bind_app("apps/gemm.mdh", "I=1024,J=1024,K=1024"), h200);
  for (const char* sizes : {"I=1000,J=1000,K=1000", "I=1008,J=1008,K=1008", "I=2000,J=1500,K=700"}) {
    const BoundMdh bound = testing::bind_app("apps/gemm.mdh", sizes);
    const KernelConfig c = default_config(bound, h200);
    EXPECT_EQ(c.num_wi, cubed.num_wi) << sizes;
    EXPECT_EQ(c.double_buffer, DoubleBuffer::on) << sizes;
    EXPECT_EQ(tunable_geometry(bound, c).prefetch_dimension, 2) << sizes;
    EXPECT_EQ(generate_tunable_kernel(bound, c, h200).build_options, "-cl-std=CL1.2") << sizes;
  }
}

// The property tests draw configurations whose private caches, filled from local caches, are copied whole in private
// steps that are not always full (private_copy_unguarded), and others whose copies stay guarded there.
TEST(EdgeTiles, PropertyDrawsReachWholeAndGuardedPrivateCopiesInEdgeSteps) {
  int whole = 0, guarded = 0;
  for (const testing::PropertyCase& c : testing::property_cases())
    testing::for_each_property_configuration(
        c, testing::kPropertyConfigurations, testing::kPropertySeed,
        [&](const BoundMdh& bound, size_t, int, const KernelConfig& config) {
          const TunableGeometry g = tunable_geometry(bound, config);
          for (size_t a = 0; a < bound.inputs.size(); ++a) {
            if (config.input_memory[static_cast<int>(Layer::Local)][a] == Memory::None ||
                config.input_memory[static_cast<int>(Layer::Private)][a] == Memory::None)
              continue;
            bool edge_steps = false;
            for (size_t d = 0; d < g.step_fullness.size(); ++d)
              edge_steps = edge_steps ||
                           (moves_with(bound.inputs[a], static_cast<int>(d)) && g.step_fullness[d] != Fullness::Always);
            if (!edge_steps) continue;
            ++(private_copy_unguarded(bound, config, static_cast<int>(a)) ? whole : guarded);
          }
        });
  std::cout << "private caches filled from local caches in steps not always full: " << whole << " copied whole, "
            << guarded << " guarded\n";
  EXPECT_GT(whole, 0);
  EXPECT_GT(guarded, 0);
}

}  // namespace
}  // namespace mdh
