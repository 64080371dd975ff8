// Targeted tests of the tunable kernel, one parameter family at a time, against the reference kernel on PoCL:
// caching on/off per layer and input, every result region and CMB_RES, every loop order and OpenCL mapping of a
// 3-D md_hom, reductions over several work-groups for every combine operator, and golden generated code.
#include "codegen/tunable_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/parameter_families.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tuning_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

using testing::bind_app;

const char* const kFast = "-cl-opt-disable";

// Runs `config` and the reference on seeded inputs; empty when they agree, else what went wrong.
std::string mismatch(const BoundMdh& bound, const KernelConfig& config, const std::string& build_options = kFast,
                     const DeviceLimits& limits = testing::first_device_limits()) {
  return testing::mismatch_with_reference(bound, config, build_options, limits, 7);
}

// A gemm config in which every layer has work: several work-groups and work-items per dimension, remainders
// everywhere (5 = 2+2+1 local tiles, 7 = 3+3+1, private tiles of 2 in local tiles of 3).
KernelConfig busy_gemm_config(const BoundMdh& bound) {
  KernelConfig c = default_config(bound, testing::first_device_limits());
  c.local_tile_size = {2, 3, 2};
  c.private_tile_size = {1, 2, 1};
  c.num_wi = {2, 2, 2};
  c.num_wg = {2, 2, 2};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.result_memory[static_cast<int>(Layer::Local)] = Memory::Private;
  c.combine_layer = Layer::Private;
  return c;
}

TEST(TunableKernel, DefaultConfigOfEveryShape) {
  for (const auto& [app, sizes] :
       std::vector<std::pair<const char*, const char*>>{{"apps/gemm.mdh", "I=13,J=7,K=5"},
                                                        {"apps/dot.mdh", "K=37"},
                                                        {"apps/gaussian.mdh", "I=9,J=20"},
                                                        {"apps/prl.mdh", "N=6,M=9"},
                                                        {"apps/mcc.mdh", "N=1,P=3,Q=3,K=4,C=3,R=2,S=2"}}) {
    const BoundMdh bound = bind_app(app, sizes);
    EXPECT_EQ(mismatch(bound, default_config(bound, testing::first_device_limits())), "") << app;
  }
}

// Every md_hom in apps/ with the default for PoCL's limits, its float vector width included: vector register
// tiles with private caches where inputs are shared (codegen/defaults/, tile_for_vectors), the plain default
// elsewhere. Sizes with short edge tiles and vectors that do not divide the rows; unoptimised, and optimised except
// the contractions (PoCL 3.1's optimiser aborts on some of them: tests/repro/pocl-parallel-region).
TEST(TunableKernel, DefaultConfigOfEveryAppWithTheDevicesVectorWidth) {
  const DeviceLimits limits = testing::first_device_vector_limits();
  const std::map<std::string, std::string> sizes{
      {"apps/gemm.mdh", "I=13,J=37,K=35"},
      {"apps/gemm_nt.mdh", "I=13,J=37,K=35"},
      {"apps/gemm_half.mdh", "I=13,J=37,K=35"},
      {"apps/gemm_bfloat16.mdh", "I=13,J=37,K=35"},
      {"apps/gemv.mdh", "I=37,K=70"},
      {"apps/dot.mdh", "K=1500"},  // long enough to share the reduction (two work-items of 32-element blocks)
      {"apps/gaussian.mdh", "I=9,J=20"},
      {"apps/jacobi3d.mdh", "I=5,J=6,K=7"},
      {"apps/mcc.mdh", "N=1,P=3,Q=5,K=20,C=19,R=2,S=3"},
      {"apps/prl.mdh", "N=40,M=9"},
      {"apps/prl_weights.mdh", "N=40,M=9"},
  };
  std::vector<std::string> apps;
  for (const char* folder : {"apps", "apps/tc"})
    for (const auto& entry : std::filesystem::directory_iterator(std::string(MDH_SOURCE_DIR) + "/" + folder))
      if (entry.path().extension() == ".mdh")
        apps.push_back(std::string(folder) + "/" + entry.path().filename().string());
  std::sort(apps.begin(), apps.end());
  int vector_tiles = 0;
  for (const std::string& app : apps) {
    const bool contraction = app.rfind("apps/tc/", 0) == 0;
    ASSERT_TRUE(contraction || sizes.count(app)) << app << ": add its sizes to this test";
    const BoundMdh bound = bind_app(app, contraction ? "A=3,B=2,C=5,D=4,E=6,F=17,G=7" : sizes.at(app));
    const KernelConfig c = default_config(bound, limits);
    const auto& cached = c.input_memory[static_cast<int>(Layer::Private)];
    vector_tiles += std::count(cached.begin(), cached.end(), Memory::Private) > 0;
    EXPECT_EQ(mismatch(bound, c), "") << app;
    if (!contraction) {
      EXPECT_EQ(mismatch(bound, c, ""), "") << app << " (optimised)";
    }
  }
  // GEMM, GEMM_NT, GEMV, MCC, PRL and the 9 contractions share inputs; DOT caches its blocks of the shared
  // reduction (kCpuReductionWorkItems); the two stencils cache nothing.
  EXPECT_EQ(vector_tiles, static_cast<int>(apps.size()) - 2);
  // On PoCL (AVX-512 or AVX2) GEMM's private caches are copied in vectors.
  const BoundMdh gemm = bind_app("apps/gemm.mdh", "I=13,J=37,K=35");
  EXPECT_GT(default_config(gemm, limits).vector_width_of(1), 1);
}

// On a device with dedicated local memory the default caches shared inputs locally, with strided register tiles
// (codegen/defaults/, tile_for_reuse): correct on full and edge tiles, prime extents and a reduction of 1 too.
TEST(TunableKernel, DefaultConfigWithDedicatedLocalMemory) {
  DeviceLimits limits = testing::first_device_limits();
  limits.local_memory_dedicated = true;
  const int local = static_cast<int>(Layer::Local);
  struct Case {
    const char* app;
    const char* sizes;
    bool cached;  // whether the default caches an input (work-items along two dimensions sharing one)
  };
  for (const Case& k : std::vector<Case>{{"apps/gemm.mdh", "I=64,J=64,K=32", true},
                                         {"apps/gemm.mdh", "I=67,J=45,K=33", true},
                                         {"apps/gemm.mdh", "I=37,J=1,K=1", false},
                                         {"apps/tc/abcdef-geab-dfgc.mdh", "A=3,B=2,C=5,D=4,E=6,F=17,G=7", true},
                                         {"apps/tc/abcdef-gdab-efgc.mdh", "A=2,B=3,C=2,D=3,E=24,F=16,G=24", true},
                                         {"apps/mcc.mdh", "N=1,P=3,Q=5,K=20,C=9,R=2,S=3", true},
                                         {"apps/prl.mdh", "N=40,M=9", false},
                                         // The volume-stencil shape with vector stores, its edge tiles partial
                                         // along all three dimensions.
                                         {"apps/jacobi3d.mdh", "I=10,J=7,K=133", false}}) {
    const BoundMdh bound = bind_app(k.app, k.sizes);
    const KernelConfig c = default_config(bound, limits);
    EXPECT_EQ(std::count(c.input_memory[local].begin(), c.input_memory[local].end(), Memory::Local) > 0, k.cached)
        << k.app << " " << k.sizes << ": " << config_to_json(bound, c).dump();
    EXPECT_EQ(mismatch(bound, c), "") << k.app << " " << k.sizes;
    EXPECT_EQ(mismatch(bound, c, ""), "") << k.app << " " << k.sizes << " (optimised)";
  }
}

// The GPU defaults of small outputs (codegen/defaults/, share_reduction_per_point, split_reduction_over_work_groups),
// derived from H200-like limits and run on PoCL: a reduction shared by a work-group's work-items through a tree in
// local memory (GEMM 10x500x64, GEMV with a short row, whose last work-item's block is short), that and a split over
// work-groups folded by a second kernel (GEMM 4x4x4096), and register tiles with the reduction split over
// work-groups (MCC with 25,088 points). Unoptimised and optimised.
TEST(TunableKernel, DefaultConfigOfSmallOutputsForTheH200) {
  for (const auto& [app, sizes] :
       std::vector<std::pair<const char*, const char*>>{{"apps/gemm.mdh", "I=10,J=500,K=64"},
                                                        {"apps/gemm.mdh", "I=4,J=4,K=4096"},
                                                        {"apps/gemv.mdh", "I=37,K=70"},
                                                        {"apps/mcc.mdh", "N=1,P=7,Q=7,K=512,C=64,R=3,S=3"}}) {
    const BoundMdh bound = bind_app(app, sizes);
    const KernelConfig c = default_config(bound, testing::h200_device_limits());
    int64_t split = 1;
    for (int r : bound.mdh->reduction_dims()) split *= c.num_wi[r] * c.num_wg[r];
    EXPECT_GT(split, 1) << app << " " << sizes << ": the default does not split the reduction";
    EXPECT_EQ(mismatch(bound, c), "") << app << " " << sizes;
    EXPECT_EQ(mismatch(bound, c, ""), "") << app << " " << sizes << " (optimised)";
  }
}

// The GPU default of a contraction, derived from H200-like limits and run on PoCL: its copies into local memory move
// float4 (codegen/defaults/, kGpuVectorBytes) into double-buffered tiles. Unoptimised and optimised.
TEST(TunableKernel, DefaultConfigOfAContractionForTheH200) {
  const BoundMdh bound = bind_app("apps/tc/abcdef-gdab-efgc.mdh", "A=8,B=16,C=4,D=4,E=24,F=16,G=24");
  const KernelConfig c = default_config(bound, testing::h200_device_limits());
  const nlohmann::json j = config_to_json(bound, c);
  EXPECT_EQ(j["VECTOR_WIDTH_TA"], 4);
  EXPECT_EQ(j["DOUBLE_BUFFER"], "on");
  EXPECT_EQ(mismatch(bound, c), "");
  EXPECT_EQ(mismatch(bound, c, ""), "") << "(optimised)";
}

// DOUBLE_BUFFER pipelines the innermost reduction tile loop with several tiles: GEMM (k, full tiles, one and
// several k tiles per work-group, strided and block ownership, a private cache filled from the local one), a
// contraction whose cached TB is stored f-innermost, and MCC whose innermost reduction loops (r, s) have one tile
// each so that the c loop is pipelined; a user operator (PRL). Unoptimised and optimised builds. Both ways: the
// registers stored into the one local tile (on), and into the tile not being read (local: an odd number of k tiles
// in the second case, so the last tile is read from the first local tile; in the first case several tiles of i and
// j per work-group, so that the next `++` tile starts while the first local tile may still be read).
TEST(TunableKernel, DoubleBufferingAlongTheInnermostReductionWithSeveralTiles) {
  DeviceLimits limits = testing::first_device_limits();
  limits.local_memory_dedicated = true;
  const int local = static_cast<int>(Layer::Local), priv = static_cast<int>(Layer::Private);
  struct Case {
    const char* app;
    const char* sizes;
    std::function<void(KernelConfig&)> adjust;
  };
  const std::vector<Case> cases{
      // The whole of k in one work-group: the default splits this small output's k over the VM's compute units.
      {"apps/gemm.mdh", "I=64,J=32,K=64", [](KernelConfig& c) { c.num_wg[2] = 1; }},
      {"apps/gemm.mdh", "I=64,J=32,K=24",
       [](KernelConfig& c) {
         // every tile of i and j in one work-group (two of each), 3 k tiles each
         c.num_wg = {1, 1, 1};
         c.local_tile_size = {c.local_tile_size[0] / 2, c.local_tile_size[1] / 2, 8};
         c.num_wi = {c.local_tile_size[0] / c.private_tile_size[0], c.local_tile_size[1] / c.private_tile_size[1], 1};
       }},
      {"apps/gemm.mdh", "I=32,J=32,K=48",
       [](KernelConfig& c) {
         c.num_wg = {1, 1, 3};  // k split over 3 work-groups (a second kernel combines them), 2 tiles each
         c.local_tile_size[2] = 8;
       }},
      {"apps/gemm.mdh", "I=32,J=32,K=32",
       [&](KernelConfig& c) {
         c.num_wg[2] = 1;  // as above
         c.ownership = {Ownership::block, Ownership::block, Ownership::block};
         c.input_memory[priv][0] = Memory::Private;  // filled from the local cache
       }},
      {"apps/tc/abcdef-geab-dfgc.mdh", "A=2,B=2,C=2,D=2,E=16,F=16,G=24", [](KernelConfig&) {}},
      {"apps/mcc.mdh", "N=1,P=4,Q=4,K=32,C=32,R=3,S=3", [](KernelConfig&) {}},
  };
  for (const Case& k : cases)
    for (DoubleBuffer mode : {DoubleBuffer::on, DoubleBuffer::local}) {
      const BoundMdh bound = bind_app(k.app, k.sizes);
      KernelConfig c = default_config(bound, limits);
      k.adjust(c);
      c.double_buffer = mode;
      const std::string name = std::string(k.app) + " " + k.sizes + (mode == DoubleBuffer::on ? " on" : " local");
      const TunableGeometry g = tunable_geometry(bound, c);
      ASSERT_GE(g.prefetch_dimension, 0) << name << ": " << config_to_json(bound, c).dump();
      EXPECT_TRUE(std::count(c.input_memory[local].begin(), c.input_memory[local].end(), Memory::Local) > 0);
      EXPECT_NO_THROW(check_config(bound, c, limits)) << name;
      EXPECT_EQ(mismatch(bound, c), "") << name;
      EXPECT_EQ(mismatch(bound, c, ""), "") << name << " (optimised)";
    }
}

// DOUBLE_BUFFER local keeps its barriers out of conditionals: with the first tile stored inside `if (t_j == 0)` and
// the next ones inside `if (t_j + 1 < TILES_PER_WG_j)`, PoCL 3.1 crashed (exit 139) running this PRL configuration
// (drawn by the optimised property test): a user operator, a's cache and private tiles in local memory, the
// reduction over 3 work-groups of two tiles each, the last ones partial or empty.
TEST(TunableKernel, TwoLocalTilesKeepBarriersOutOfConditionals) {
  const BoundMdh bound = bind_app("apps/prl.mdh", "N=3,M=17");
  const KernelConfig c = config_from_json(
      bound,
      nlohmann::json::parse(
          R"({"CMB_RES": "P", "CMB_WI": "serial", "DOUBLE_BUFFER": "local", "LOOP_ORDER_G": ["i", "j"], "LOOP_ORDER_L": ["i", "j"], "LOOP_ORDER_P": ["j", "i"], "LT_SIZE_i": 3, "LT_SIZE_j": 4, "MEM_INP_L_a": "local", "MEM_INP_L_b": "none", "MEM_INP_P_a": "local", "MEM_INP_P_b": "private", "MEM_RES_L": "local", "MEM_RES_P": "local", "NUM_WG_i": 1, "NUM_WG_j": 3, "NUM_WI_i": 1, "NUM_WI_j": 2, "ORDER_OCL_G_i": 0, "ORDER_OCL_G_j": 0, "ORDER_OCL_L_i": 1, "ORDER_OCL_L_j": 2, "OWNERSHIP_i": "block", "OWNERSHIP_j": "block", "PT_SIZE_i": 1, "PT_SIZE_j": 1, "UNROLL_STEPS": "off", "WG_SWIZZLE_i": 1, "mdh_config": 2})"));
  ASSERT_EQ(c.double_buffer, DoubleBuffer::local);
  ASSERT_GE(tunable_geometry(bound, c).prefetch_dimension, 0);
  EXPECT_EQ(mismatch(bound, c), "");
  EXPECT_EQ(mismatch(bound, c, ""), "") << "optimised";
}

// UNROLL_STEPS unrolls exactly the loops of more than one private step, and the results stay those of the reference
// (GEMM with several steps along k, MCC, a contraction; unoptimised and optimised builds). Where every dimension
// has one step, "on" generates the kernel of "off" byte for byte, so that the binary cache compiles it once.
TEST(TunableKernel, UnrolledPrivateStepsComputeTheSameResults) {
  DeviceLimits limits = testing::first_device_limits();
  limits.local_memory_dedicated = true;
  struct Case {
    const char* app;
    const char* sizes;
    std::function<void(KernelConfig&)> adjust;
  };
  const std::vector<Case> cases{
      {"apps/gemm.mdh", "I=32,J=32,K=64",
       [](KernelConfig& c) {
         c.local_tile_size[2] = 16;
         c.private_tile_size[2] = 2;  // 8 steps along k
       }},
      {"apps/mcc.mdh", "N=1,P=4,Q=4,K=32,C=32,R=3,S=3", [](KernelConfig&) {}},
      {"apps/tc/abcdef-geab-dfgc.mdh", "A=2,B=2,C=2,D=2,E=16,F=16,G=24", [](KernelConfig&) {}},
  };
  for (const Case& k : cases) {
    const BoundMdh bound = bind_app(k.app, k.sizes);
    KernelConfig c = default_config(bound, limits);
    k.adjust(c);
    const TunableGeometry g = tunable_geometry(bound, c);
    c.unroll_steps = UnrollSteps::off;
    const std::string off = generate_tunable_kernel(bound, c, limits).source;
    c.unroll_steps = UnrollSteps::on;
    const std::string on = generate_tunable_kernel(bound, c, limits).source;
    int unrolled = 0, several = 0;
    for (size_t d = 0; d < g.private_steps.size(); ++d) {
      const std::string loop = "for (int ps_" + bound.mdh->dims[d].name + " = 0;";
      const size_t at = on.find(loop);
      ASSERT_NE(at, std::string::npos) << k.app << ": " << loop;
      const bool pragma = on.rfind("#pragma unroll", at) != std::string::npos &&
                          on.find_first_not_of(" \n", on.rfind("#pragma unroll", at) + 14) == at;
      EXPECT_EQ(pragma, g.private_steps[d] > 1) << k.app << ": " << loop;
      unrolled += pragma;
      several += g.private_steps[d] > 1;
    }
    EXPECT_EQ(unrolled, several) << k.app;
    if (several == 0) {
      EXPECT_EQ(on, off) << k.app;
    }
    EXPECT_EQ(mismatch(bound, c), "") << k.app << " " << k.sizes;
    EXPECT_EQ(mismatch(bound, c, ""), "") << k.app << " " << k.sizes << " (optimised)";
  }
}

// UNROLL_TILES makes the innermost reduction tile loop with several tiles take up to 8 of them per iteration (the
// largest divisor of its trip count), one block of code per tile, with and without DOUBLE_BUFFER, also where the
// last tile is short (DOT 1000: guarded code in the copies); the other tile loops stay loops, and the results stay
// those of the reference (unoptimised and optimised builds). Where the sizes give no such loop, or only a prime
// number of tiles above 8, "on" generates the kernel of "off" byte for byte.
TEST(TunableKernel, UnrolledReductionTileLoopComputesTheSameResults) {
  DeviceLimits limits = testing::first_device_limits();
  limits.local_memory_dedicated = true;
  struct Case {
    const char* app;
    const char* sizes;
    std::function<void(KernelConfig&)> adjust;
    int dimension;   // expected TunableGeometry::innermost_reduction_tile_loop
    int64_t copies;  // expected TunableGeometry::tile_loop_unroll
  };
  const std::vector<Case> cases{
      {"apps/gemm.mdh", "I=32,J=32,K=64",
       [](KernelConfig& c) {
         c.num_wg[2] = 1;
         c.local_tile_size[2] = 16;  // 4 tiles along k
         c.double_buffer = DoubleBuffer::off;
       },
       2, 4},
      {"apps/gemm.mdh", "I=32,J=32,K=64",
       [](KernelConfig& c) {
         c.num_wg[2] = 1;
         c.local_tile_size[2] = 16;
         c.double_buffer = DoubleBuffer::local;
       },
       2, 4},
      {"apps/gemm.mdh", "I=16,J=16,K=480",
       [](KernelConfig& c) {
         c.num_wg[2] = 1;
         c.local_tile_size[2] = 8;  // 60 tiles: 6 per iteration
         c.private_tile_size[2] = std::min<int64_t>(c.private_tile_size[2], 8);
       },
       2, 6},
      {"apps/dot.mdh", "K=1000",
       [](KernelConfig& c) {
         c.num_wg[0] = 2;
         c.num_wi[0] = 4;
         c.local_tile_size[0] = 64;  // 16 tiles, 8 per work-group, the last one short
         c.private_tile_size[0] = 4;
       },
       0, 8},
      {"apps/tc/abcdef-gdab-efgc.mdh", "A=2,B=2,C=2,D=2,E=2,F=2,G=24",
       [](KernelConfig& c) {
         const int g = 6;  // dimension g, the contraction's reduction
         c.num_wg[g] = 1;
         c.local_tile_size[g] = 4;  // 6 tiles along g
         c.private_tile_size[g] = std::min<int64_t>(c.private_tile_size[g], 4);
       },
       6, 6},
      // 11 tiles, a prime above 8: nothing to unroll by.
      {"apps/dot.mdh", "K=1000",
       [](KernelConfig& c) {
         c.num_wg[0] = 1;
         c.num_wi[0] = 4;
         c.local_tile_size[0] = 91;
         c.private_tile_size[0] = 4;
       },
       0, 1},
      // One tile per work-group along k: no loop to unroll.
      {"apps/gemm.mdh", "I=32,J=32,K=64",
       [](KernelConfig& c) {
         c.num_wg[2] = 1;
         c.local_tile_size[2] = 64;
       },
       -1, 1},
  };
  for (const Case& k : cases) {
    const BoundMdh bound = bind_app(k.app, k.sizes);
    KernelConfig c = default_config(bound, limits);
    k.adjust(c);
    c.unroll_tiles = UnrollTiles::off;
    ASSERT_NO_THROW(check_config(bound, c, limits)) << k.app;
    const TunableGeometry g = tunable_geometry(bound, c);
    ASSERT_EQ(g.innermost_reduction_tile_loop, k.dimension) << k.app;
    ASSERT_EQ(g.tile_loop_unroll, k.copies) << k.app;
    const std::string off = generate_tunable_kernel(bound, c, limits).source;
    c.unroll_tiles = UnrollTiles::on;
    ASSERT_NO_THROW(check_config(bound, c, limits)) << k.app;
    const std::string on = generate_tunable_kernel(bound, c, limits).source;
    if (k.copies == 1) {
      EXPECT_EQ(on, off) << k.app;
      continue;
    }
    for (size_t d = 0; d < bound.mdh->dims.size(); ++d) {
      const std::string n = bound.mdh->dims[d].name;
      const bool loop = on.find("for (int t_" + n + " = 0;") != std::string::npos;
      EXPECT_EQ(loop, static_cast<int>(d) != k.dimension) << k.app << ": dimension " << n;
    }
    const std::string n = bound.mdh->dims[k.dimension].name, u = std::to_string(k.copies);
    EXPECT_NE(on.find("for (int tu_" + n + " = 0; tu_" + n + " < TILES_PER_WG_" + n + " / " + u + "; ++tu_" + n + ")"),
              std::string::npos)
        << k.app;
    for (int64_t copy = 0; copy <= k.copies; ++copy) {
      const std::string tile = "const int t_" + n + " = tu_" + n + "*" + u + " + " + std::to_string(copy) + ";";
      const size_t at = on.find(tile);
      if (copy == k.copies) {
        EXPECT_EQ(at, std::string::npos) << k.app << ": " << tile;
        continue;
      }
      ASSERT_NE(at, std::string::npos) << k.app << ": " << tile;
      EXPECT_EQ(on.find(tile, at + 1), std::string::npos) << k.app << ": " << tile << " twice";
    }
    EXPECT_NE(on.find("//   UNROLL_TILES: the loop over local tiles along " + n + " unrolled by " + u),
              std::string::npos)
        << k.app;
    EXPECT_EQ(mismatch(bound, c), "") << k.app << " " << k.sizes;
    EXPECT_EQ(mismatch(bound, c, ""), "") << k.app << " " << k.sizes << " (optimised)";
  }
}

// DOUBLE_BUFFER local: two tiles per local cache, counted in the local memory, and in the pipelined loop one
// barrier per tile (after the stores into the tile not being read) where "on" has two (before and after its stores).
TEST(TunableKernel, TwoLocalTilesNeedOneBarrierPerTile) {
  DeviceLimits limits = testing::first_device_limits();
  limits.local_memory_dedicated = true;
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=32,K=64");
  KernelConfig c = default_config(bound, limits);
  c.num_wg[2] = 1;  // the whole of k in one work-group: the default splits this small output's k over the VM's cores
  c.local_pad = {0, 0};  // unpadded arrays: CACHE_L_A_SIZE elements per tile
  c.double_buffer = DoubleBuffer::on;
  const TunableGeometry on = tunable_geometry(bound, c);
  const std::string on_source = generate_tunable_kernel(bound, c, limits).source;
  c.double_buffer = DoubleBuffer::local;
  const TunableGeometry two = tunable_geometry(bound, c);
  const std::string two_source = generate_tunable_kernel(bound, c, limits).source;
  ASSERT_GE(two.prefetch_dimension, 0);
  EXPECT_EQ(two.local_memory_bytes, 2 * on.local_memory_bytes);
  EXPECT_EQ(two.private_memory_bytes, on.private_memory_bytes);
  EXPECT_NE(two_source.find("__local float cache_l_A_tiles[2 * CACHE_L_A_SIZE]"), std::string::npos);
  EXPECT_NE(two_source.find("cache_l_B = cache_l_B_tiles + ((t_k + 1) & 1)*CACHE_L_B_SIZE;"), std::string::npos);
  // The barriers of the pipelined loop: every one in the code after the loop opens, but the one that ends each
  // tile of the `++` dimensions.
  auto barriers_in_k_loop = [](const std::string& source) {
    const size_t from = source.find("for (int t_k = 0;");
    int n = 0;
    for (size_t at = source.find("barrier(", from); at != std::string::npos; at = source.find("barrier(", at + 1)) ++n;
    return n - 1;
  };
  EXPECT_EQ(barriers_in_k_loop(on_source), 2);
  EXPECT_EQ(barriers_in_k_loop(two_source), 1);
  // The first tile is stored before the loop, and no barrier is inside a conditional (PoCL 3.1 crashed on one).
  EXPECT_LT(two_source.find("// Double buffering: the first tile into the first local tiles."),
            two_source.find("for (int t_k = 0;"));
  EXPECT_EQ(two_source.find("if (t_k == 0)"), std::string::npos);
}

// LOCAL_PAD: each row of a local cache is PAD elements longer, in its strides, its array and the local memory
// count; float4 stores into rows padded by 4 stay aligned, by 1 or 2 go through vstore4, and reads of a private
// cache from a padded cache through vload4 likewise; every variant verifies, with both caches transposed or not,
// with two local tiles, and at sizes whose edge tiles are copied element by element.
// STORE_WIDTH: full tiles write a work-item's consecutive results along the output's unit-stride dimension with one
// vstoreN each, where the width divides its run of them (a block's private tile, a strided run); edge tiles, runs
// the width does not divide, and a dimension that is not the output's innermost store element by element.
TEST(TunableKernel, ResultsAreStoredInVectorsWhereTheWidthDividesTheRun) {
  const DeviceLimits limits = testing::first_device_limits();
  for (const char* sizes : {"I=16,J=64,K=8", "I=19,J=61,K=8"}) {
    const BoundMdh bound = bind_app("apps/gemm.mdh", sizes);
    KernelConfig c = default_config(bound, limits);
    c.num_wg = {2, 2, 1};
    c.num_wi = {2, 4, 1};
    c.local_tile_size = {8, 32, 8};
    c.private_tile_size = {4, 8, 2};
    c.ownership = {Ownership::block, Ownership::block, Ownership::block};
    c.strided_run = {1, 1, 1};
    c.result_memory = {Memory::Global, Memory::Private, Memory::Private};
    c.combine_layer = Layer::Private;
    for (const auto& [ownership, run, width, vectors] :
         std::vector<std::tuple<Ownership, int64_t, int64_t, bool>>{{Ownership::block, 1, 4, true},
                                                                    {Ownership::block, 1, 8, true},
                                                                    {Ownership::block, 1, 16, false},
                                                                    {Ownership::strided, 4, 4, true},
                                                                    {Ownership::strided, 2, 4, false}}) {
      c.ownership[1] = ownership;
      c.strided_run[1] = run;
      c.store_width = width;
      SCOPED_TRACE(std::string(sizes) + (ownership == Ownership::block ? ", block" : ", strided runs of ") +
                   (ownership == Ownership::block ? "" : std::to_string(run)) + ", width " + std::to_string(width));
      ASSERT_NO_THROW(check_config(bound, c, limits));
      const std::string source = generate_tunable_kernel(bound, c, limits).source;
      const std::string store = "vstore" + std::to_string(width) + "((float" + std::to_string(width) + ")(";
      EXPECT_EQ(source.find(store) != std::string::npos, vectors);
      // A -D value that would break the vectors is refused.
      EXPECT_EQ(source.find("#if PT_SIZE_j % " + std::to_string(width) +
                            " != 0\n#error \"result stores generated for "
                            "STORE_WIDTH = " +
                            std::to_string(width)) != std::string::npos,
                vectors);
      EXPECT_EQ(mismatch(bound, c), "");
    }
    EXPECT_EQ(mismatch(bound, c, ""), "") << "optimised";
  }
  // GEMM's output C[i][j]: j is its unit-stride dimension. A struct result (PRL's match) has no vectors.
  EXPECT_EQ(store_dimension(bind_app("apps/gemm.mdh", "I=16,J=64,K=8")), 1);
  EXPECT_EQ(store_dimension(bind_app("apps/prl.mdh", "N=40,M=9")), -1);
  EXPECT_EQ(find_family("STORE_WIDTH")->members(bind_app("apps/prl.mdh", "N=40,M=9")).size(), 0u);
}

TEST(TunableKernel, PaddedLocalRowsKeepResultsAndAlignment) {
  DeviceLimits limits = testing::first_device_limits();
  limits.local_memory_dedicated = true;
  for (const char* sizes : {"I=64,J=32,K=64", "I=67,J=29,K=61"}) {
    const BoundMdh bound = bind_app("apps/gemm.mdh", sizes);
    KernelConfig c = default_config(bound, limits);
    c.local_tile_size = {16, 16, 16};
    c.private_tile_size = {2, 4, 4};
    c.num_wi = {8, 4, 1};
    c.num_wg = {2, 2, 1};
    c.ownership = {Ownership::block, Ownership::block, Ownership::block};
    c.strided_run = {1, 1, 1};
    const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
    c.input_memory[l] = {Memory::Local, Memory::Local};
    c.input_memory[p] = {Memory::Private, Memory::Private};
    c.result_memory[p] = Memory::Private;
    c.result_memory[l] = Memory::Private;
    c.combine_layer = Layer::Private;
    c.vector_width = {4, 4};
    c.local_pad = {0, 0};
    const int64_t unpadded = static_cast<int64_t>(tunable_geometry(bound, c).local_memory_bytes);
    for (const std::vector<int>& a_order : {std::vector<int>{0, 1}, std::vector<int>{1, 0}})
      for (int64_t pad : {1, 2, 4}) {
        c.cache_dim_order[l][0] = a_order;
        c.local_pad = {pad, 4};
        SCOPED_TRACE(std::string(sizes) + ", A's order " + std::to_string(a_order[0]) + std::to_string(a_order[1]) +
                     ", pad " + std::to_string(pad));
        ASSERT_NO_THROW(check_config(bound, c, limits));
        // A: 16 x 16 in either order, B: 16 x 16; each row gains its pad.
        EXPECT_EQ(static_cast<int64_t>(tunable_geometry(bound, c).local_memory_bytes),
                  unpadded + (16 * pad + 16 * 4) * 4);
        const std::string source = generate_tunable_kernel(bound, c, limits).source;
        const std::string inner = std::to_string(a_order[1]), outer = std::to_string(a_order[0]);
        EXPECT_NE(source.find("#define CACHE_L_A_ROW (CACHE_L_A_EXTENT_" + inner + " + CACHE_L_A_PAD)"),
                  std::string::npos);
        EXPECT_NE(source.find("#define CACHE_L_A_STRIDE_" + outer + " (CACHE_L_A_ROW)"), std::string::npos);
        EXPECT_NE(source.find("__local float cache_l_A[CACHE_L_A_ALLOCATED]"), std::string::npos);
        EXPECT_NE(
            source.find("LOCAL_PAD (elements after each row of the local cache): A " + std::to_string(pad) + ", B 4"),
            std::string::npos);
        // B keeps k innermost and rows of whole float4s: aligned stores. A's vector stores (k innermost) are aligned
        // only with a pad of whole vectors.
        EXPECT_NE(source.find("*(__local float4*)(cache_l_B + "), std::string::npos);
        if (a_order[1] == 1) {
          EXPECT_EQ(source.find("vstore4(") != std::string::npos, pad % 4 != 0);
          // The private copy reads float4s along the padded rows: aligned ones only with a pad of whole vectors.
          const size_t at = source.find("VECTOR_WIDTH: A 4 (");
          ASSERT_NE(at, std::string::npos);
          EXPECT_NE(source.substr(at, source.find('\n', at) - at).find(pad % 4 == 0 ? "P aligned" : "P vloadN"),
                    std::string::npos);
        }
        EXPECT_EQ(mismatch(bound, c), "");
        c.double_buffer = DoubleBuffer::local;
        EXPECT_EQ(mismatch(bound, c), "") << "two local tiles";
        c.double_buffer = DoubleBuffer::off;
      }
    EXPECT_EQ(mismatch(bound, c, ""), "") << "optimised";
  }
  // Only a cache in local memory has rows to pad.
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=32,K=64");
  KernelConfig c = default_config(bound, limits);
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::None, Memory::Local};
  c.cache_dim_order[static_cast<int>(Layer::Local)][0] = {0, 1};
  c.local_pad = {0, 2};
  EXPECT_NO_THROW(check_config(bound, c, limits));
  c.local_pad = {2, 0};
  try {
    check_config(bound, c, limits);
    FAIL() << "accepted a pad of a cache that is not in local memory";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("violates LOCAL_PAD_A = 0 unless MEM_INP_L_A = local"), std::string::npos)
        << e.what();
  }
}

// A fused multiply-add rounds once: with x = y = (1 + 2^-12, 1) and a fold that starts from -1 (the first pair),
// fma(x1, y1, -1) = 2^-11 + 2^-24 exactly, while a separate multiply rounds (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 to
// 1 + 2^-11 (a tie, to even) and the sum is 2^-11. The multiply is the scalar function's and the add the combine
// operator's, two functions of the kernel: contraction within one expression (OpenCL's FP_CONTRACT) does not join
// them, so without the tunable kernel's fast contraction on CPUs PoCL (LLVM) multiplies and adds separately.
TEST(TunableKernel, MultiplyOfTheScalarFunctionFusesWithTheCombineOperatorsAdd) {
  const BoundMdh bound = bind_app("apps/dot.mdh", "K=2");
  const DeviceLimits limits = testing::first_device_limits();
  KernelConfig c = default_config(bound, limits);
  c.num_wg = {1};
  c.num_wi = {1};
  c.local_tile_size = {2};
  c.private_tile_size = {2};
  const float near_one = 1.0f + 0x1p-12f;
  std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 1);
  const auto fill = [&](const std::string& name, std::vector<float> values) {
    testing::Bytes& bytes = buffers.at(name);
    ASSERT_EQ(bytes.size(), values.size() * sizeof(float)) << name;
    std::memcpy(bytes.data(), values.data(), bytes.size());
  };
  fill("x", {-1.0f, near_one});
  fill("y", {1.0f, near_one});
  const LaunchPlan plan = generate_tunable_kernel(bound, c, limits);
  EXPECT_NE(plan.source.find("#pragma clang fp contract(fast)"), std::string::npos);
  // Not for GPUs (dedicated local memory): NVIDIA's compiler fuses them anyway and made slower PTX with the pragma.
  DeviceLimits gpu = limits;
  gpu.local_memory_dedicated = true;
  EXPECT_EQ(generate_tunable_kernel(bound, c, gpu).source.find("#pragma clang fp contract"), std::string::npos);
  const testing::RunResult run = testing::run_plan_with_scratch(bound, plan, buffers);  // optimised
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.output.size(), sizeof(float));
  float result = 0;
  std::memcpy(&result, run.output.data(), sizeof result);
  EXPECT_EQ(result, 0x1p-11f + 0x1p-24f) << "not fused: " << result;
}

// WG_SWIZZLE maps the work-group ids onto themselves, one to one: groups that divide a dimension's work-groups, a
// last group with fewer, all of them in one group, two swizzled dimensions, work-groups along a reduction (a second
// kernel combines them), and OpenCL dimension 1 shared by two md_hom dimensions (MCC: p and q). A tile missed or
// taken twice leaves NaNs or doubled values in the output.
TEST(TunableKernel, SwizzledWorkGroupsCoverEveryTileOnce) {
  const DeviceLimits limits = testing::first_device_limits();
  struct Case {
    const char* app;
    const char* sizes;
    std::function<void(KernelConfig&)> shape;
    std::vector<std::vector<int64_t>> swizzles;  // per dimension
  };
  const std::vector<Case> cases{
      {"apps/gemm.mdh",
       "I=80,J=48,K=32",
       [](KernelConfig& c) {
         c.local_tile_size = {16, 16, 32};
         c.private_tile_size = {2, 2, 4};
         c.num_wi = {8, 8, 1};
         c.num_wg = {5, 3, 1};
       },
       {{2, 1}, {3, 1}, {4, 1}, {5, 1}, {1, 2}, {1, 3}, {2, 2}}},
      {"apps/gemm.mdh",
       "I=32,J=24,K=48",
       [](KernelConfig& c) {
         c.local_tile_size = {8, 8, 8};
         c.private_tile_size = {1, 1, 1};
         c.num_wi = {4, 4, 1};
         c.num_wg = {4, 3, 2};
       },
       {{2, 1}, {1, 2}, {4, 3}}},
      {"apps/mcc.mdh",
       "N=1,P=4,Q=4,K=8,C=4,R=2,S=2",
       [](KernelConfig& c) {
         c.local_tile_size = {1, 2, 2, 4, 4, 2, 2};
         c.private_tile_size = {1, 1, 1, 1, 1, 1, 1};
         c.num_wi = {1, 2, 2, 4, 1, 1, 1};
         c.num_wg = {1, 2, 2, 2, 1, 1, 1};
         c.ocl_dim[0] = {2, 1, 1, 0, 2, 2, 2};  // p and q share OpenCL dimension 1
       },
       {{1, 2, 1, 1}, {1, 1, 2, 1}, {1, 1, 1, 2}, {1, 2, 2, 2}}},
  };
  for (const Case& k : cases) {
    const BoundMdh bound = bind_app(k.app, k.sizes);
    KernelConfig c = default_config(bound, limits);
    k.shape(c);
    for (const std::vector<int64_t>& swizzle : k.swizzles) {
      for (size_t d = 0; d < swizzle.size(); ++d) c.family_values.at({"WG_SWIZZLE", static_cast<int>(d)}) = swizzle[d];
      const std::string where = std::string(k.app) + " " + config_to_json(bound, c).dump();
      ASSERT_NO_THROW(check_config(bound, c, limits)) << where;
      EXPECT_NE(generate_tunable_kernel(bound, c, limits).source.find("wg_sw_rest"), std::string::npos) << where;
      EXPECT_EQ(mismatch(bound, c), "") << where;
      EXPECT_EQ(mismatch(bound, c, ""), "") << where << " (optimised)";
    }
  }
}

// DOT's reduction in `work_groups` work-groups of 8 work-items, local tiles of `tile`, private tiles of 2: the
// strided work-group tiles of StridedWorkGroupTilesCoverEveryTileOnce and UnrolledStridedTileLoopTestsItsLastTileAlone.
std::function<void(KernelConfig&)> dot_tiles(int64_t work_groups, int64_t tile) {
  return [work_groups, tile](KernelConfig& c) {
    c.num_wg = {work_groups};
    c.num_wi = {8};
    c.local_tile_size = {tile};
    c.private_tile_size = {2};
  };
}

// WG_OWNERSHIP strided: work-group g takes local tiles g, g + NUM_WG, ... of a reduction dimension. Sizes that
// fill every tile, that leave the last tile short, and NUM_WG that does not divide the tiles (empty tiles past the
// end); each way the work-groups combine (a second kernel, the last work-group, atomic adds); DOUBLE_BUFFER, whose
// prefetch of the next tile steps NUM_WG tiles; UNROLL_TILES. A tile missed or taken twice changes the sums.
TEST(TunableKernel, StridedWorkGroupTilesCoverEveryTileOnce) {
  const DeviceLimits limits = testing::first_device_limits();
  const int l = static_cast<int>(Layer::Local);
  struct Case {
    const char* app;
    const char* sizes;
    std::function<void(KernelConfig&)> shape;
  };
  const std::vector<Case> cases{
      {"apps/dot.mdh", "K=1536", dot_tiles(4, 64)},  // 24 tiles, 6 per work-group: all full
      {"apps/dot.mdh", "K=1531", dot_tiles(4, 64)},  // the last tile short
      {"apps/dot.mdh", "K=1531", dot_tiles(5, 64)},  // 24 tiles over 5 work-groups: 6 each, 6 empty ones
      {"apps/dot.mdh", "K=1009", dot_tiles(3, 32)},  // a prime
      {"apps/gemv.mdh", "I=6,K=200",
       [](KernelConfig& c) {
         c.num_wg = {2, 3};
         c.num_wi = {2, 4};
         c.local_tile_size = {3, 16};
         c.private_tile_size = {1, 2};
       }},
      {"apps/gemm.mdh", "I=8,J=8,K=96",
       [](KernelConfig& c) {
         c.num_wg = {2, 2, 3};
         c.num_wi = {2, 2, 2};
         c.local_tile_size = {4, 4, 8};
         c.private_tile_size = {2, 2, 1};
       }},
  };
  int pipelined = 0;
  for (const Case& k : cases) {
    const BoundMdh bound = bind_app(k.app, k.sizes);
    const int reduction = bound.mdh->reduction_dims().front();
    // Each way to combine, each DOUBLE_BUFFER and UNROLL_TILES at least once, not every product (CI time).
    const std::tuple<WorkGroupCombine, DoubleBuffer, UnrollTiles> shapes[] = {
        {WorkGroupCombine::kernel, DoubleBuffer::off, UnrollTiles::off},
        {WorkGroupCombine::last, DoubleBuffer::on, UnrollTiles::off},
        {WorkGroupCombine::atomic, DoubleBuffer::local, UnrollTiles::on},
        {WorkGroupCombine::atomic, DoubleBuffer::off, UnrollTiles::on},
        {WorkGroupCombine::last, DoubleBuffer::local, UnrollTiles::off}};
    for (const auto& [combine, buffer, unroll] : shapes) {
      KernelConfig c = default_config(bound, limits);
      k.shape(c);
      c.work_group_combine = combine;
      c.double_buffer = buffer;
      c.unroll_tiles = unroll;
      for (auto& memory : c.input_memory[l]) memory = Memory::Local;      // the caches DOUBLE_BUFFER pipelines
      c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;  // work-items share the reduction
      c.work_group_ownership.assign(bound.mdh->dims.size(), Ownership::block);
      c.work_group_ownership.at(reduction) = Ownership::strided;
      const std::string where = std::string(k.app) + " " + k.sizes + " " + config_to_json(bound, c).dump();
      ASSERT_NO_THROW(check_config(bound, c, limits)) << where;
      const std::string source = generate_tunable_kernel(bound, c, limits).source;
      EXPECT_NE(source.find("WG_OWNERSHIP strided"), std::string::npos) << where;
      pipelined += tunable_geometry(bound, c).prefetch_dimension == reduction && buffer != DoubleBuffer::off;
      EXPECT_EQ(mismatch(bound, c), "") << where;
      EXPECT_EQ(mismatch(bound, c, ""), "") << where << " (optimised)";
    }
  }
  EXPECT_GT(pipelined, 0);
}

// UNROLL_TILES with strided work-group tiles that are sometimes full: a work-group's tiles before its last one are
// full, so the groups of tiles before the last run without tests (in a loop where there are several groups), and
// the last tile alone chooses between full and guarded code. Short last tiles (tile + 1, primes) and empty ones
// (tiles that NUM_WG does not divide), every way to combine the work-items (CMB_RES) and the work-groups, unoptimised
// and optimised.
TEST(TunableKernel, UnrolledStridedTileLoopTestsItsLastTileAlone) {
  const DeviceLimits limits = testing::first_device_limits();
  struct Case {
    const char* app;
    const char* sizes;
    std::function<void(KernelConfig&)> shape;
    int64_t groups;  // TILES_PER_WG / tile_loop_unroll along the reduction
  };
  const std::vector<Case> cases{
      {"apps/dot.mdh", "K=1531", dot_tiles(4, 64), 1},  // 24 tiles, 6 per work-group, the last one short
      {"apps/dot.mdh", "K=1531", dot_tiles(5, 64), 1},  // 24 tiles over 5 work-groups of 5: one empty
      {"apps/dot.mdh", "K=3067", dot_tiles(2, 64), 3},  // a prime: 48 tiles, 24 per work-group in 3 groups of 8
      {"apps/dot.mdh", "K=3073", dot_tiles(2, 64), 5},  // 49 tiles, the last holding one element, one empty
      {"apps/gemv.mdh", "I=6,K=400",
       [](KernelConfig& c) {
         c.num_wg = {2, 3};
         c.num_wi = {3, 4};
         c.local_tile_size = {3, 16};  // 25 tiles along k over 3 work-groups: 9 each in 3 groups of 3, 2 empty
         c.private_tile_size = {1, 2};
       },
       3},
      {"apps/gemm.mdh", "I=8,J=8,K=199",
       [](KernelConfig& c) {
         c.num_wg = {2, 2, 3};
         c.num_wi = {2, 2, 2};
         c.local_tile_size = {4, 4, 8};  // 25 tiles along k, the last short
         c.private_tile_size = {2, 2, 1};
       },
       3},
  };
  const std::tuple<WorkGroupCombine, Layer> shapes[] = {{WorkGroupCombine::atomic, Layer::Global},
                                                        {WorkGroupCombine::last, Layer::Local},
                                                        {WorkGroupCombine::kernel, Layer::Private}};
  for (const Case& k : cases) {
    const BoundMdh bound = bind_app(k.app, k.sizes);
    const int reduction = bound.mdh->reduction_dims().front();
    const std::string n = bound.mdh->dims[reduction].name;
    for (const auto& [combine, layer] : shapes) {
      KernelConfig c = default_config(bound, limits);
      k.shape(c);
      c.work_group_combine = combine;
      c.combine_layer = layer;
      c.double_buffer = DoubleBuffer::off;
      c.unroll_tiles = UnrollTiles::on;
      c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;  // work-items share the reduction
      c.work_group_ownership.assign(bound.mdh->dims.size(), Ownership::block);
      c.work_group_ownership.at(reduction) = Ownership::strided;
      const std::string where = std::string(k.app) + " " + k.sizes + " " + config_to_json(bound, c).dump();
      ASSERT_NO_THROW(check_config(bound, c, limits)) << where;
      const TunableGeometry g = tunable_geometry(bound, c);
      ASSERT_EQ(g.peeled_tile_loop, reduction) << where;
      ASSERT_EQ(g.tiles_per_wg[reduction] / g.tile_loop_unroll, k.groups) << where;
      const std::string source = generate_tunable_kernel(bound, c, limits).source,
                        u = std::to_string(g.tile_loop_unroll);
      EXPECT_NE(source.find("its last tile alone tested for fullness"), std::string::npos) << where;
      EXPECT_EQ(source.find("for (int t_" + n + " = 0;"), std::string::npos) << where;
      const size_t loop = source.find("for (int tu_" + n + " = 0; tu_" + n + " < TILES_PER_WG_" + n + " / " + u +
                                      " - 1; ++tu_" + n + ")"),
                   last = source.find("const int tu_" + n + " = TILES_PER_WG_" + n + " / " + u + " - 1;");
      ASSERT_NE(last, std::string::npos) << where;
      EXPECT_EQ(loop != std::string::npos, k.groups > 1) << where;
      // The copies of the tiles before the last one read their tile's end nowhere but where they define it (no
      // test, no guard); the last tile's copy does.
      const auto count = [](const std::string& text, const std::string& what) {
        size_t found = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
        return found;
      };
      const size_t first_tile = source.find("const int t_" + n + " = tu_" + n + "*" + u + " + 0;"),
                   last_tile = source.find("const int t_" + n + " = tu_" + n + "*" + u + " + " +
                                               std::to_string(g.tile_loop_unroll - 1) + ";",
                                           last);
      ASSERT_LT(first_tile, last_tile) << where;
      const std::string before = source.substr(first_tile, last_tile - first_tile),
                        after = source.substr(last_tile, source.find("// Results of this local tile", last_tile));
      const std::string end = "tile_end_" + n, defined = "const int tile_end_" + n + " = ";
      EXPECT_EQ(count(before, end), count(before, defined)) << where;
      EXPECT_EQ(count(before, defined),
                static_cast<size_t>(g.tiles_per_wg[reduction] > g.tile_loop_unroll ? 2 * g.tile_loop_unroll - 1
                                                                                   : g.tile_loop_unroll - 1))
          << where;
      EXPECT_GT(count(after, end), count(after, defined)) << where;
      EXPECT_EQ(mismatch(bound, c), "") << where;
      EXPECT_EQ(mismatch(bound, c, ""), "") << where << " (optimised)";
    }
  }
}

// CMB_WI shuffle folds each point's partial results in sub-groups, then across them. PoCL runs the rounds through
// memory at any sub-group width (DeviceLimits::subgroup_width), so the widths here (2-16) reach every arrangement the
// constraint allows: several points per sub-group, one point per sub-group, several sub-groups per point (a second
// level), and the reduction's work-items not innermost in the hardware's order (ORDER_OCL_L), where a sub-group's
// positions are other work-items' partial results. matrix_chain's operator does not commute and its result is a struct:
// a round that folded out of order would show. CMB_RES P (per step) and L (all slots), MEM_RES P local and global,
// unoptimised and optimised.
TEST(TunableKernel, ShuffleCombineFoldsEverySegmentInOrder) {
  const int p = static_cast<int>(Layer::Private);
  struct Case {
    std::string text, file, sizes;  // a spec's text (empty: file is an app)
    int64_t width;
    std::function<void(KernelConfig&)> shape;
  };
  std::string chain_text, chain_file;
  for (const testing::PropertyCase& c : testing::property_cases())
    if (c.name == "matrix_chain") chain_text = c.text, chain_file = c.file;
  ASSERT_FALSE(chain_text.empty());
  const auto dot = [](int64_t work_items) {
    return [work_items](KernelConfig& c) {
      c.num_wg = {3};
      c.num_wi = {work_items};
      c.local_tile_size = {64};
      c.private_tile_size = {2};
    };
  };
  const auto gemv = [](bool reduction_innermost) {
    return [reduction_innermost](KernelConfig& c) {
      c.num_wg = {2, 2};
      c.num_wi = {2, 4};
      c.local_tile_size = {3, 40};
      c.private_tile_size = {1, 2};
      c.ocl_dim[1] = reduction_innermost ? std::vector<int>{1, 0} : std::vector<int>{0, 1};
    };
  };
  const std::vector<Case> cases{
      {"", "apps/dot.mdh", "K=1531", 8, dot(8)},           // one segment of 8: one level
      {"", "apps/dot.mdh", "K=1531", 4, dot(8)},           // two sub-groups per point: a second level of 2
      {"", "apps/dot.mdh", "K=1009", 4, dot(16)},          // four sub-groups per point, a prime extent
      {"", "apps/dot.mdh", "K=1531", 2, dot(4)},           // the narrowest sub-groups, two levels
      {"", "apps/gemv.mdh", "I=6,K=200", 8, gemv(true)},   // two points per sub-group
      {"", "apps/gemv.mdh", "I=6,K=200", 8, gemv(false)},  // k outer in the hardware's order
      {"", "apps/gemv.mdh", "I=6,K=200", 2, gemv(false)},  // and two levels
      {"", "apps/gemm.mdh", "I=8,J=6,K=37", 16,
       [](KernelConfig& c) {
         c.num_wg = {2, 1, 2};
         c.num_wi = {2, 2, 4};
         c.local_tile_size = {4, 6, 10};
         c.private_tile_size = {2, 3, 1};
         c.ocl_dim[1] = {1, 0, 2};  // k the slowest in the hardware's order; one sub-group holds all 4 points
       }},
      {chain_text, chain_file, "N=3,M=37", 4,
       [](KernelConfig& c) {
         c.num_wg = {1, 2};
         c.num_wi = {2, 8};
         c.local_tile_size = {3, 8};  // CMB_RES L in order: the work-items' steps cover the tile
         c.private_tile_size = {1, 1};
         c.ocl_dim[1] = {0, 1};
       }},
  };
  int levels_of_two = 0;
  for (const Case& k : cases) {
    const BoundMdh bound =
        k.text.empty() ? bind_app(k.file, k.sizes) : testing::bind_spec_text(k.text, k.file, k.sizes);
    DeviceLimits limits = testing::first_device_limits();
    limits.subgroup_width = k.width;
    for (const Layer combine_layer : {Layer::Private, Layer::Local})
      for (const Memory partials : {Memory::Local, Memory::Global}) {
        KernelConfig c = default_config(bound, limits);
        k.shape(c);
        c.combine_layer = combine_layer;
        c.result_memory[p] = partials;
        c.work_item_combine = WorkItemCombine::shuffle;
        const std::string where = k.file + " " + k.sizes + ", sub-groups of " + std::to_string(k.width) + ": " +
                                  config_to_json(bound, c).dump();
        ASSERT_NO_THROW(check_config(bound, c, limits)) << where;
        const std::string source = generate_tunable_kernel(bound, c, limits).source;
        EXPECT_NE(source.find("CMB_WI: shuffle in sub-groups of " + std::to_string(k.width) + " (through memory)"),
                  std::string::npos)
            << where;
        levels_of_two += source.find("wi_hw*" + std::to_string(k.width)) != std::string::npos;
        EXPECT_EQ(mismatch(bound, c, kFast, limits), "") << where;
        EXPECT_EQ(mismatch(bound, c, "", limits), "") << where << " (optimised)";
      }
  }
  EXPECT_GT(levels_of_two, 0);
}

// CMB_WI shuffle exists only where sub-groups are whole and hold whole segments of a point's work-items, and under
// NVIDIA's driver it exchanges registers (shfl.sync) instead of going through memory.
TEST(TunableKernel, ShuffleCombineNeedsWholeAlignedSegments) {
  DeviceLimits limits = testing::first_device_limits();
  limits.subgroup_width = 8;
  const BoundMdh dot = bind_app("apps/dot.mdh", "K=1536");
  KernelConfig c = default_config(dot, limits);
  c.num_wg = {4};
  c.num_wi = {12};  // 12 work-items: neither within nor whole sub-groups of 8
  c.local_tile_size = {96};
  c.private_tile_size = {2};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.work_item_combine = WorkItemCombine::shuffle;
  try {
    check_config(dot, c, limits);
    ADD_FAILURE() << "12 work-items accepted in sub-groups of 8";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: config: violates CMB_WI != shuffle unless (NUM_WI_k is a multiple of 8 (sub-group width) and "
              "(8 (sub-group width) is a multiple of NUM_WI_k or (NUM_WI_k is a multiple of 8 (sub-group width) and "
              "64 (its square) is a multiple of NUM_WI_k))) (CMB_WI = shuffle, NUM_WI_k = 12)");
  }
  limits.subgroup_width = 1;  // no sub-groups: no shuffle
  c.num_wi = {8};
  c.local_tile_size = {64};
  EXPECT_THROW(check_config(dot, c, limits), UserError);
  // Under NVIDIA's driver: shfl.sync word by word, no barrier between the rounds.
  limits.simd_width = 32;
  limits.warp_size = 32;
  limits.subgroup_width = 32;
  limits.nvidia_driver = true;
  c.num_wg = {3};
  c.num_wi = {256};
  c.local_tile_size = {512};
  ASSERT_NO_THROW(check_config(dot, c, limits));
  const std::string source = generate_tunable_kernel(dot, c, limits).source;
  EXPECT_NE(source.find("CMB_WI: shuffle in sub-groups of 32 (shfl.sync)"), std::string::npos);
  EXPECT_NE(source.find("shfl.sync.down.b32 %0, %1, %2, 31, 0xffffffff;"), std::string::npos);
  EXPECT_NE(source.find("mdh_shuffle_down(v, 16)"), std::string::npos);
  EXPECT_NE(source.find("mdh_shuffle_down(v, 4)"), std::string::npos);  // level 2: 256 / 32 = 8 sub-groups
  EXPECT_EQ(source.find("mdh_shuffle_down(v, 8)", source.find("wi_hw*32")), std::string::npos);
}

// WG_OWNERSHIP exists on reduction dimensions whose operator commutes, and is strided only where a work-group owns
// several tiles.
TEST(TunableKernel, WorkGroupOwnershipExistsOnCommutingReductionsWithSeveralTilesPerWorkGroup) {
  const DeviceLimits limits = testing::first_device_limits();
  const BoundMdh gemm = bind_app("apps/gemm.mdh", "I=8,J=8,K=96");
  const TuningSpace space = make_tuning_space(gemm, limits);
  EXPECT_GE(space.find("WG_OWNERSHIP_k"), 0);
  EXPECT_LT(space.find("WG_OWNERSHIP_i"), 0);
  EXPECT_LT(space.find("WG_OWNERSHIP_j"), 0);
  for (const testing::PropertyCase& c : testing::property_cases())
    if (c.name == "matrix_chain") {
      const BoundMdh chain = testing::bind_spec_text(c.text, c.file, c.sizes.front());
      for (const TuningParameter& p : make_tuning_space(chain, limits).parameters)
        EXPECT_EQ(p.name.rfind("WG_OWNERSHIP", 0), std::string::npos) << p.name;
    }
  const BoundMdh dot = bind_app("apps/dot.mdh", "K=1536");
  KernelConfig c = default_config(dot, limits);
  c.num_wg = {4};
  c.num_wi = {8};
  c.local_tile_size = {384};  // one tile per work-group
  c.private_tile_size = {2};
  c.work_group_ownership = {Ownership::strided};
  try {
    check_config(dot, c, limits);
    ADD_FAILURE() << "one tile per work-group accepted with strided tiles";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: config: violates WG_OWNERSHIP_k = block unless (NUM_WG_k >= 2 and ceil(ceil(1536 / LT_SIZE_k) / "
              "NUM_WG_k) >= 2) (WG_OWNERSHIP_k = strided, NUM_WG_k = 4, LT_SIZE_k = 384)");
  }
}

// Sizes around the tile sizes (tile - 1, tile, tile + 1, a prime, 1) make every dimension's tiles always full,
// sometimes full (decided per tile or step) or never full, in every combination over i, j and k; with steps that
// divide the local tiles and steps that do not (the last step of a full tile is short). Built unoptimised and
// optimised: the unguarded and guarded copies are where optimisers reorder and if-convert. The work-items combine
// after each step (CMB_RES P: barriers in the step loops, so a test per step) or after the local tile (CMB_RES L:
// where steps divide the tiles, one test per tile for all steps).
TEST(TunableKernel, FullAndEdgeTilesAroundTileMultiples) {
  const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
  struct Shape {
    std::vector<int64_t> num_wg, num_wi, local_tile, private_tile;
  };
  const std::vector<Shape> shapes = {
      {{2, 1, 2}, {2, 2, 2}, {4, 6, 2}, {2, 3, 1}},  // steps of 4, 6, 2 fill the local tiles
      {{1, 2, 1}, {2, 2, 1}, {6, 4, 5}, {2, 1, 2}},  // steps of 4, 2, 2 in tiles of 6, 4, 5: the last step is short
  };
  const std::vector<std::string> sizes = {"I=8,J=6,K=4",  "I=7,J=12,K=5", "I=9,J=13,K=3",
                                          "I=1,J=5,K=11", "I=12,J=7,K=1", "I=3,J=8,K=10"};
  int tested_per_tile = 0, tested_per_step = 0, computed_edges = 0;
  for (const Shape& shape : shapes)
    for (const std::string& size : sizes) {
      const BoundMdh bound = bind_app("apps/gemm.mdh", size);
      KernelConfig c = default_config(bound, testing::first_device_limits());
      c.num_wg = shape.num_wg;
      c.num_wi = shape.num_wi;
      // The shape's values where the space allows them (tiles no larger than the extent, no idle work-items or
      // work-groups), else the largest it allows.
      for (int d = 0; d < 3; ++d) {
        const int64_t n = bound.dim_extents[d];
        c.local_tile_size[d] = std::min(shape.local_tile[d], n);
        c.private_tile_size[d] = std::min(shape.private_tile[d], c.local_tile_size[d]);
        const int64_t per_tile = (c.local_tile_size[d] + c.private_tile_size[d] - 1) / c.private_tile_size[d];
        c.num_wi[d] = std::min(shape.num_wi[d], per_tile);
        c.num_wg[d] = std::min(shape.num_wg[d], (n + c.local_tile_size[d] - 1) / c.local_tile_size[d]);
      }
      c.input_memory[l] = {Memory::Local, Memory::Local};
      c.input_memory[p] = {Memory::Private, Memory::Private};
      c.result_memory[p] = Memory::Local;
      for (Layer combine : {Layer::Private, Layer::Local})
        for (const char* edge_points : {"guarded", "computed"}) {
          if (combine == Layer::Local && c.num_wi[2] < 2) continue;  // CMB_RES L: work-items that share a reduction
          c.combine_layer = combine;
          set_label(c, "EDGE_POINTS", edge_points);
          reset_values_without_effect(bound, c);  // `computed` with no edge tile it applies to: the guarded kernel
          const TunableGeometry g = tunable_geometry(bound, c);
          const std::string source = generate_tunable_kernel(bound, c, testing::first_device_limits()).source;
          const size_t steps = source.find("// Local layer: this work-item's private tiles of the local tile.");
          ASSERT_NE(steps, std::string::npos);
          // The line after the comment: the per-tile test, or the first step loop. With EDGE_POINTS computed the
          // test leaves out the dimensions whose edge tiles run the full tiles' code, and is gone without others.
          bool tested = false;
          for (size_t d = 0; d < g.step_fullness.size(); ++d)
            tested = tested || (g.step_fullness[d] == Fullness::Sometimes && !g.edge_points_computed[d]);
          const std::string next = source.substr(source.find('\n', steps) + 1, 200);
          EXPECT_EQ(next.find("if (tile_end_") < next.find('\n'), g.tiles_decide_steps && tested)
              << size << " " << edge_points << "\n"
              << next;
          tested_per_tile += g.tiles_decide_steps && tested;
          computed_edges += std::count(g.edge_points_computed.begin(), g.edge_points_computed.end(), true) > 0;
          tested_per_step += !g.tiles_decide_steps &&
                             std::count(g.step_fullness.begin(), g.step_fullness.end(), Fullness::Sometimes) > 0;
          for (const char* options : {kFast, ""})
            EXPECT_EQ(mismatch(bound, c, options), "")
                << size << " " << options << " CMB_RES " << static_cast<int>(combine) << " " << edge_points;
        }
    }
  EXPECT_GT(tested_per_tile, 0);
  EXPECT_GT(tested_per_step, 0);
  EXPECT_GT(computed_edges, 0);
}

TEST(TunableKernel, InputCachingPerLayerAndBuffer) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=5,J=7,K=3");
  const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
  for (Memory a_local : {Memory::None, Memory::Local})
    for (Memory b_local : {Memory::None, Memory::Local})
      for (Memory a_private : {Memory::None, Memory::Private, Memory::Local})
        for (Memory b_private : {Memory::None, Memory::Private, Memory::Local}) {
          KernelConfig c = busy_gemm_config(bound);
          c.input_memory[l] = {a_local, b_local};
          c.input_memory[p] = {a_private, b_private};
          // Cached copies transposed where cached: BUF_ORDER is exercised along with the caches.
          if (a_local != Memory::None) c.cache_dim_order[l][0] = {1, 0};
          if (b_private != Memory::None) c.cache_dim_order[p][1] = {1, 0};
          EXPECT_EQ(mismatch(bound, c), "");
        }
}

// NVIDIA's PTX assembler miscompiles some kernels whose private caches are filled from local caches by guarded
// copies (see nvidia_build_options in codegen/tunable_kernel.cpp): those, and only those, are assembled at level 1;
// edge steps whose private tiles lie inside the local cache copy them whole, unguarded.
TEST(TunableKernel, NvidiaAssemblesGuardedPrivateCopiesFromLocalCachesAtLevelOne) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=5,J=7,K=3");
  const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
  DeviceLimits nvidia = testing::first_device_limits();
  nvidia.nvidia_driver = true;
  DeviceLimits other = nvidia;
  other.nvidia_driver = false;
  KernelConfig c = busy_gemm_config(bound);
  c.input_memory[l] = {Memory::None, Memory::Local};
  c.input_memory[p] = {Memory::Private, Memory::Private};  // B's private cache is filled from its local cache
  EXPECT_EQ(generate_tunable_kernel(bound, c, nvidia).build_options, "-cl-std=CL1.2 -cl-nv-opt-level=1");
  EXPECT_EQ(generate_tunable_kernel(bound, c, other).build_options, "-cl-std=CL1.2");
  c.input_memory[p] = {Memory::Local, Memory::None};  // A's private cache comes from global memory
  EXPECT_EQ(generate_tunable_kernel(bound, c, nvidia).build_options, "-cl-std=CL1.2");
  // Every private step full (2 work-items x 2 elements divide every tile): no guard, the driver's own level.
  const BoundMdh full = bind_app("apps/gemm.mdh", "I=8,J=8,K=4");
  KernelConfig f = busy_gemm_config(full);
  f.local_tile_size = {4, 4, 4};
  f.private_tile_size = {2, 2, 2};
  f.num_wg = {2, 2, 1};
  f.input_memory[l] = {Memory::Local, Memory::Local};
  f.input_memory[p] = {Memory::Private, Memory::Private};
  EXPECT_EQ(generate_tunable_kernel(full, f, nvidia).build_options, "-cl-std=CL1.2");
  EXPECT_EQ(mismatch(full, f), "");
  f.local_tile_size = {4, 4, 3};  // K = 4 in tiles of 3: the second reduction step is short, its copy guarded
  EXPECT_EQ(generate_tunable_kernel(full, f, nvidia).build_options, "-cl-std=CL1.2 -cl-nv-opt-level=1");
  // Edge tiles whose steps divide the tile (I = 9 in tiles of 4, steps of 4): the edge steps copy whole private
  // tiles (private_copy_unguarded), no guard, the driver's own level.
  const BoundMdh edges = bind_app("apps/gemm.mdh", "I=9,J=8,K=4");
  KernelConfig e = f;
  e.local_tile_size = {4, 4, 4};
  e.num_wg = {3, 2, 1};
  EXPECT_EQ(generate_tunable_kernel(edges, e, nvidia).build_options, "-cl-std=CL1.2");
  EXPECT_EQ(mismatch(edges, e), "");
}

// Work-items that share a reduction exchange partial results through res_p between barriers. Declared restrict,
// NVIDIA's compiler kept a work-item's own slot across the barrier after the leader had reset it (3 of 5,000 GPU
// soak configurations added partial results twice; PoCL gave the right result): no restrict where it is shared.
TEST(TunableKernel, SharedGlobalPartialResultsAreNotRestrict) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=5,J=7,K=3");
  KernelConfig c = busy_gemm_config(bound);
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Global;
  const std::string shared = generate_tunable_kernel(bound, c, testing::first_device_limits()).source;
  EXPECT_NE(shared.find("__global float* res_p"), std::string::npos);
  EXPECT_EQ(shared.find("restrict res_p"), std::string::npos);
  c.num_wi[2] = 1;  // no shared reduction: each work-item's res_p slots are its own
  const std::string own = generate_tunable_kernel(bound, c, testing::first_device_limits()).source;
  EXPECT_NE(own.find("__global float* restrict res_p"), std::string::npos);
}

TEST(TunableKernel, WindowCachingIncludesTheHalo) {
  const BoundMdh bound = bind_app("apps/gaussian.mdh", "I=7,J=11");
  const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
  for (Memory local : {Memory::None, Memory::Local})
    for (Memory priv : {Memory::None, Memory::Private, Memory::Local})
      for (bool transposed : {false, true}) {
        KernelConfig c = default_config(bound, testing::first_device_limits());
        c.local_tile_size = {3, 4};
        c.private_tile_size = {2, 1};
        c.num_wi = {2, 3};
        c.num_wg = {2, 2};
        c.input_memory[l] = {local};
        c.input_memory[p] = {priv};
        if (transposed && local != Memory::None) c.cache_dim_order[l][0] = {1, 0};
        if (transposed && priv != Memory::None) c.cache_dim_order[p][0] = {1, 0};
        EXPECT_EQ(mismatch(bound, c), "");
      }
}

// VECTOR_WIDTH: full boxes of the caches move vectors along the buffer's unit-stride dimension; one aligned vector
// access where the tile sizes, the view's offset and the row length prove every vector's start aligned, vloadN (the
// element's alignment) where they do not, element by element in edge tiles and where the width does not divide a
// row of the box. Each shape runs against the reference, unoptimised and optimised.
KernelConfig vector_config(const BoundMdh& bound, std::vector<int64_t> local_tile, std::vector<int64_t> private_tile,
                           std::vector<int64_t> num_wi, int64_t width) {
  KernelConfig c = default_config(bound, testing::first_device_limits());
  const size_t dims = bound.dim_extents.size();
  c.local_tile_size = local_tile;
  c.private_tile_size = private_tile;
  c.num_wi = num_wi;
  for (size_t d = 0; d < dims; ++d) {
    c.num_wg[d] = (bound.dim_extents[d] + local_tile[d] - 1) / local_tile[d];
    c.ownership[d] = Ownership::block;
  }
  const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
  const size_t inputs = bound.inputs.size();
  c.input_memory[l] = std::vector<Memory>(inputs, Memory::Local);
  c.input_memory[p] = std::vector<Memory>(inputs, Memory::Private);
  c.vector_width = std::vector<int64_t>(inputs, width);
  c.double_buffer = DoubleBuffer::off;
  return c;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TunableKernel, VectorCopiesAlignedWhereProvenElseVloadAndElementsAtEdges) {
  const DeviceLimits limits = testing::first_device_limits();
  auto check = [&](const BoundMdh& bound, const KernelConfig& c, const std::vector<std::string>& present,
                   const std::vector<std::string>& absent) {
    const std::string source = generate_tunable_kernel(bound, c, limits).source;
    for (const std::string& part : present) EXPECT_TRUE(contains(source, part)) << part;
    for (const std::string& part : absent) EXPECT_FALSE(contains(source, part)) << part;
    for (const char* options : {kFast, ""}) EXPECT_EQ(mismatch(bound, c, options), "") << options;
  };
  {  // Full tiles everywhere and rows of 64: every load aligned (from global memory and from the local caches).
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=64,K=64");
    const KernelConfig c = vector_config(bound, {16, 16, 16}, {4, 4, 4}, {4, 4, 1}, 4);
    check(bound, c,
          {"VECTOR_WIDTH: A 4 (L aligned, P aligned), B 4 (L aligned, P aligned)", "*(__global const float4*)(A + ",
           "*(__local const float4*)(cache_l_B + ", "*(__local float4*)(cache_l_A + ",
           "cache_l_A[CACHE_L_A_SIZE] __attribute__((aligned(16)))"},
          {"vload4"});
  }
  {  // Rows of A hold K = 30 floats: its vectors start unaligned (vload4); the k tiles 16 + 14 end in an edge tile,
     // copied element by element.
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=32,J=32,K=30");
    const KernelConfig c = vector_config(bound, {16, 16, 16}, {4, 4, 4}, {4, 4, 1}, 4);
    check(bound, c,
          {"VECTOR_WIDTH: A 4 (L vloadN, P aligned)", "vload4(0, A + ", "*(__global const float4*)(B + ",
           "cache_l_A[(b_0)*CACHE_L_A_STRIDE_0 + (b_1)*CACHE_L_A_STRIDE_1] = A["},
          {});
  }
  {  // A view's offset: x[i + 1] starts every tile one element past a multiple of the width.
    const BoundMdh bound = testing::bind_spec_text(
        "md_hom shift\nsize N\ninput x : float[N+1]\noutput r : float[N]\nview (i < N) : x[i + 1] -> r[i]\n"
        "scalar (a) = a\ncombine (++)\n",
        "shift.mdh", "N=64");
    const KernelConfig c = vector_config(bound, {16}, {8}, {2}, 8);
    check(bound, c, {"VECTOR_WIDTH: x 8 (L vloadN, P aligned)", "vload8(0, x + "}, {"(__global const float8*)"});
  }
  {  // A stencil's halo: rows of J + 4 = 17, boxes of LT + 4 = 16 (edge tiles: 13 = 12 + 1); the private cache
     // (rows of PT + 4 = 8) reads the local one aligned, or element by element where that is transposed.
    const BoundMdh bound = bind_app("apps/gaussian.mdh", "I=13,J=13");
    KernelConfig c = vector_config(bound, {4, 12}, {2, 4}, {2, 3}, 4);
    check(bound, c, {"VECTOR_WIDTH: img 4 (L vloadN, P aligned)", "vload4(0, img + "}, {});
    c.cache_dim_order[static_cast<int>(Layer::Local)][0] = {1, 0};
    check(bound, c, {"VECTOR_WIDTH: img 4 (L vloadN)", "cache_l_img[(b_0)*CACHE_L_img_STRIDE_0 + (b_1 + 3)*"}, {});
  }
  {  // Widths 8 and 16 (AVX-512), with double buffering: the prefetch registers hold vectors.
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=64,K=64");
    for (int64_t width : {8, 16}) {
      KernelConfig c = vector_config(bound, {16, 16, 16}, {4, 4, 16}, {4, 4, 1}, width);
      c.input_memory[static_cast<int>(Layer::Private)] = {Memory::None, Memory::None};
      c.num_wg[2] = 1;  // the work-group's 4 tiles along k: the next one loads while this one is computed
      c.double_buffer = DoubleBuffer::on;
      const std::string w = std::to_string(width);
      check(bound, c, {"float" + w + " pf_A[", "*(__global const float" + w + "*)(B + "}, {"vload"});
    }
  }
}

TEST(TunableKernel, EveryResultRegionAndCombineLayer) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=5,J=7,K=3");
  for (Memory private_results : {Memory::Local, Memory::Global})
    for (Memory local_results : {Memory::Private, Memory::Local, Memory::Global})
      for (Layer combine : {Layer::Private, Layer::Local, Layer::Global}) {
        KernelConfig c = busy_gemm_config(bound);
        c.result_memory[static_cast<int>(Layer::Private)] = private_results;
        c.result_memory[static_cast<int>(Layer::Local)] = local_results;
        c.combine_layer = combine;
        EXPECT_EQ(mismatch(bound, c), "");
      }
  // Without work-items sharing a reduction, results may stay private.
  KernelConfig c = busy_gemm_config(bound);
  c.num_wi[2] = 1;
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Private;
  EXPECT_EQ(mismatch(bound, c), "");
}

TEST(TunableKernel, EveryLoopOrderAndOpenClMapping) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=5,J=7,K=3");
  const std::vector<std::vector<int>> permutations = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const auto& order : permutations) {
    KernelConfig c = busy_gemm_config(bound);
    c.loop_order[static_cast<int>(Layer::Local)] = order;
    c.loop_order[static_cast<int>(Layer::Private)] = order;
    if (order[2] == 2) c.loop_order[static_cast<int>(Layer::Global)] = order;  // `++` dimensions first
    c.ocl_dim[0] = order;  // a permutation of the OpenCL dimensions for the work-group ids
    c.ocl_dim[1] = {order[2], order[0], order[1]};
    EXPECT_EQ(mismatch(bound, c), "");
  }
  // Several md_hom dimensions sharing one OpenCL dimension, for both ids.
  for (const std::vector<int>& shared : std::vector<std::vector<int>>{{0, 0, 0}, {1, 1, 0}, {2, 0, 2}}) {
    KernelConfig c = busy_gemm_config(bound);
    c.ocl_dim[0] = shared;
    c.ocl_dim[1] = shared;
    EXPECT_EQ(mismatch(bound, c), "");
  }
}

TEST(TunableKernel, SevenDimensionsShareThreeOpenClDimensions) {
  const BoundMdh bound = bind_app("apps/mcc.mdh", "N=2,P=3,Q=2,K=3,C=3,R=2,S=2");
  KernelConfig c = default_config(bound, testing::first_device_limits());
  c.num_wg = {2, 2, 1, 2, 2, 1, 1};
  c.num_wi = {1, 2, 2, 1, 1, 2, 1};
  c.local_tile_size = {1, 2, 2, 2, 2, 2, 2};
  c.private_tile_size = {1, 1, 1, 1, 2, 1, 2};
  c.ocl_dim[0] = {0, 1, 2, 0, 1, 2, 0};
  c.ocl_dim[1] = {2, 1, 0, 2, 1, 0, 2};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  EXPECT_EQ(mismatch(bound, c), "");
}

// A reduction over the rows of x with operator `op` on element type `type`.
BoundMdh row_reduction(const std::string& type, const std::string& op, const std::string& sizes) {
  const std::string text = "md_hom red\nsize N K\ninput x : " + type + "[N][K]\noutput r : " + type +
                           "[N]\nview (i < N, k < K) : x[i][k] -> r[i]\nscalar (a) = a\ncombine (++, " + op + ")\n";
  return testing::bind_spec_text(text, "red.mdh", sizes);
}

TEST(TunableKernel, ReductionOverSeveralWorkGroupsForEveryOperator) {
  std::vector<BoundMdh> cases;
  for (const char* type : {"float", "int"})
    for (const char* op : {"+", "*", "max", "min"}) cases.push_back(row_reduction(type, op, "N=3,K=7"));
  cases.push_back(bind_app("apps/prl.mdh", "N=4,M=13"));  // best_of: a user operator on a struct
  for (const BoundMdh& bound : cases) {
    for (int64_t wg : {2, 3, 4}) {
      KernelConfig c = default_config(bound, testing::first_device_limits());
      c.local_tile_size = {2, 2};
      c.private_tile_size = {1, 1};
      c.num_wi = {1, 2};
      c.num_wg = {2, wg};
      c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
      EXPECT_EQ(mismatch(bound, c), "") << bound.mdh->dims[1].combine.user_name << " with " << wg << " work-groups";
    }
  }
}

TEST(TunableKernel, NonCommutativeOperatorKeepsIndexOrder) {
  // Rows of 2x2 matrices multiplied in index order: any reordering changes the product.
  const std::string text =
      "md_hom chain\nsize N M\ntype mat2 { float a; float b; float c; float d; }\ninput X : mat2[N][M]\n"
      "output Y : mat2[N]\noperator matmul(mat2 p, mat2 q) = (mat2){p.a*q.a + p.b*q.c, p.a*q.b + p.b*q.d, "
      "p.c*q.a + p.d*q.c, p.c*q.b + p.d*q.d} identity (mat2){1.0f, 0.0f, 0.0f, 1.0f}\n"
      "view (i < N, j < M) : X[i][j] -> Y[i]\nscalar (x) = x\ncombine (++, matmul)\n";
  const BoundMdh bound = testing::bind_spec_text(text, "chain.mdh", "N=2,M=13");
  for (Layer combine : {Layer::Private, Layer::Local}) {
    KernelConfig c = default_config(bound, testing::first_device_limits());
    c.local_tile_size = {1, 6};
    c.private_tile_size = {1, 2};
    c.num_wi = {1, 3};
    c.num_wg = {2, 2};
    c.result_memory[static_cast<int>(Layer::Private)] = Memory::Global;
    c.combine_layer = combine;  // L is allowed here: one private step per local tile (3 * 2 >= 6)
    EXPECT_EQ(mismatch(bound, c), "");
  }
  // Per work-item partials across several steps would be out of order: the space refuses them.
  KernelConfig c = default_config(bound, testing::first_device_limits());
  c.local_tile_size = {1, 8};
  c.private_tile_size = {1, 2};
  c.num_wi = {1, 2};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.combine_layer = Layer::Global;
  EXPECT_THROW(check_config(bound, c, testing::first_device_limits()), UserError);
}

TEST(TunableKernel, SeveralReductionOperatorsAreRefused) {
  const std::string text =
      "md_hom mixed\nsize N K\ninput x : float[N][K]\noutput r : float[1]\n"
      "view (i < N, k < K) : x[i][k] -> r[0]\nscalar (a) = a\ncombine (max, +)\n";
  const BoundMdh bound = testing::bind_spec_text(text, "mixed.mdh", "N=3,K=4");
  try {
    make_tuning_space(bound, testing::first_device_limits());
    FAIL() << "accepted (max, +)";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "mixed.mdh:7:15: error: the tunable kernel combines several reduction dimensions only when they share "
              "one built-in operator (+, *, max or min); dimension 'k' differs");
  }
}

// ------------------------------------------------------------------ golden code

void expect_golden(const std::string& actual, const std::string& golden_name) {
  const std::string relative = "tests/codegen/golden/" + golden_name;
  const char* update = std::getenv("MDH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(std::string(MDH_SOURCE_DIR) + "/" + relative, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(actual, testing::read_source_file(relative))
      << "generated code differs from " << relative << " (MDH_UPDATE_GOLDEN=1 rewrites it after an intended change)";
}

TEST(TunableKernelGolden, GemmWithCachesAndWorkItemReduction) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=48,K=32");
  KernelConfig c = default_config(bound, DeviceLimits{});
  c.num_wg = {4, 3, 2};
  c.num_wi = {4, 4, 2};
  c.local_tile_size = {16, 16, 8};
  c.private_tile_size = {4, 4, 2};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};
  c.input_memory[static_cast<int>(Layer::Private)] = {Memory::None, Memory::Private};
  c.cache_dim_order[static_cast<int>(Layer::Local)][0] = {1, 0};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.combine_layer = Layer::Local;
  const LaunchPlan plan = generate_tunable_kernel(bound, c, DeviceLimits{});
  expect_golden(plan.source, "gemm_tunable.cl");
  EXPECT_EQ(
      launch_to_json(plan).dump(),
      R"({"build_options":"-cl-std=CL1.2","kernels":[{"args":[{"kind":"buffer","name":"A"},{"kind":"buffer","name":"B"},{"kind":"scratch","scratch":0}],"global_size":[12,16,4],"local_size":[4,4,2],"name":"gemm_tunable","work_dims":3},{"args":[{"kind":"scratch","scratch":0},{"kind":"buffer","name":"C"}],"global_size":[3072],"local_size":null,"name":"gemm_combine_wg","work_dims":1}],"scratch":[{"bytes":24576,"purpose":"partial results of the work-groups along the reduction dimensions"}]})");
}

// The configuration of GemmWithCachesAndWorkItemReduction on sizes that leave edge tiles along i (63 = 3*16 + 15):
// A's local cache, the private steps and the write-back decide per tile between unguarded and guarded code; the
// steps (16 along i, dividing LT_SIZE_i) with one test outside all step loops, the loops of j and k (always full)
// never guarded; B's local cache needs no test.
TEST(TunableKernelGolden, GemmWithEdgeTiles) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=63,J=48,K=32");
  KernelConfig c = default_config(bound, DeviceLimits{});
  c.num_wg = {4, 3, 2};
  c.num_wi = {4, 4, 2};
  c.local_tile_size = {16, 16, 8};
  c.private_tile_size = {4, 4, 2};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};
  c.input_memory[static_cast<int>(Layer::Private)] = {Memory::None, Memory::Private};
  c.cache_dim_order[static_cast<int>(Layer::Local)][0] = {1, 0};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.combine_layer = Layer::Local;
  set_label(c, "EDGE_POINTS", "guarded");  // the guarded edge code this golden shows; `computed` has no such branch
  expect_golden(generate_tunable_kernel(bound, c, DeviceLimits{}).source, "gemm_tunable_edges.cl");
}

TEST(TunableKernelGolden, GaussianWithHaloCache) {
  const BoundMdh bound = bind_app("apps/gaussian.mdh", "I=224,J=224");
  KernelConfig c = default_config(bound, DeviceLimits{});
  c.num_wg = {14, 7};
  c.num_wi = {8, 16};
  c.local_tile_size = {16, 32};
  c.private_tile_size = {2, 2};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local};
  const LaunchPlan plan = generate_tunable_kernel(bound, c, DeviceLimits{});
  expect_golden(plan.source, "gaussian_tunable.cl");
  EXPECT_EQ(plan.kernels.size(), 1u);
  EXPECT_EQ(plan.kernels[0].global_size, (std::array<uint64_t, 3>{112, 112, 1}));
}

// Strided ownership along i and j (each work-item takes every NUM_WI-th element of a step, in the element loops
// and in the write-back), and the work-items sharing k combine in a tree of two rounds (NUM_WI_k = 4).
TEST(TunableKernelGolden, GemmWithStridedOwnershipAndTreeCombine) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=48,K=32");
  KernelConfig c = default_config(bound, DeviceLimits{});
  c.num_wg = {4, 3, 1};
  c.num_wi = {4, 4, 4};
  c.local_tile_size = {16, 16, 32};
  c.private_tile_size = {4, 4, 2};
  c.ownership = {Ownership::strided, Ownership::strided, Ownership::strided};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.combine_layer = Layer::Local;
  c.work_item_combine = WorkItemCombine::tree;
  expect_golden(generate_tunable_kernel(bound, c, DeviceLimits{}).source, "gemm_tunable_strided_tree.cl");
}

// DOUBLE_BUFFER on the default GEMM shape of a GPU (strided 4x4 register tiles, both inputs cached): registers
// receive the first k tile before the k loop, each tile stores them into the caches and loads the next.
TEST(TunableKernelGolden, GemmWithDoubleBuffering) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=64,K=64");
  KernelConfig c = default_config(bound, DeviceLimits{});
  c.num_wg = {1, 1, 1};
  c.num_wi = {16, 16, 1};
  c.local_tile_size = {64, 64, 16};
  c.private_tile_size = {4, 4, 4};
  c.ownership = {Ownership::strided, Ownership::strided, Ownership::block};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};
  c.double_buffer = DoubleBuffer::on;
  expect_golden(generate_tunable_kernel(bound, c, DeviceLimits{}).source, "gemm_tunable_double_buffer.cl");
}

// DOT's default at 2^20: 256 work-items share the reduction and combine in a tree of 8 rounds; the partial results
// of the 64 work-groups are combined by the second kernel with one work-group of 64 for the single output point.
TEST(TunableKernelGolden, DotWithTreeCombineAndParallelSecondKernel) {
  const BoundMdh bound = bind_app("apps/dot.mdh", "K=1048576");
  const KernelConfig c = default_config(bound, DeviceLimits{});
  EXPECT_EQ(c.work_item_combine, WorkItemCombine::tree);
  const LaunchPlan plan = generate_tunable_kernel(bound, c, DeviceLimits{});
  expect_golden(plan.source, "dot_tunable_tree.cl");
  ASSERT_EQ(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[1].global_size, (std::array<uint64_t, 3>{64, 1, 1}));
  EXPECT_EQ(plan.kernels[1].local_size, (std::array<uint64_t, 3>{64, 1, 1}));
}

}  // namespace
}  // namespace mdh
