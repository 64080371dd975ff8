// VECTOR_LANES: the private element loop computes consecutive results of the output's unit-stride dimension as one
// OpenCL vector (KernelConfig::vector_lanes). Which md_homs allow it, where a configuration uses it, that the kernels
// compute what the reference computes on PoCL (full and edge steps, inputs read through or cached), and that the
// CPU default takes it for GEMM.
#include "codegen/vector_lanes.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/parameter_families.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

using testing::bind_app;
using testing::bind_spec_text;

// The first mismatch against the reference kernel on PoCL, "" where there is none.
std::string mismatch(const BoundMdh& bound, const KernelConfig& config, const std::string& build_options) {
  return testing::mismatch_with_reference(bound, config, build_options, testing::first_device_limits(), 7);
}

std::string gemm_with_scalar(const std::string& scalar) {
  return "md_hom g\nsize I J K\ninput A : float[I][K]\ninput B : float[K][J]\noutput C : float[I][J]\n"
         "view (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]\nscalar (a, b) " +
         scalar + "\ncombine (++, ++, +)\n";
}

TEST(VectorLanes, ExistsWhereTheOutputsUnitStrideDimensionCanBeComputedLaneByLane) {
  const char* sizes = "I=8,J=16,K=4";
  EXPECT_EQ(vector_lanes_dimension(bind_app("apps/gemm.mdh", sizes)), 1);  // C[i][j]: j
  // GEMV's A[i][k] moves with i in an index that is not its unit-stride one, B[j][k] in GEMM_NT and F[k][r][s][c] in
  // MCC likewise: their lanes come from a cache that keeps that index innermost.
  EXPECT_EQ(vector_lanes_dimension(bind_app("apps/gemv.mdh", "I=8,K=4")), 0);
  EXPECT_EQ(vector_lanes_dimension(bind_app("apps/gemm_nt.mdh", sizes)), 1);
  EXPECT_EQ(vector_lanes_dimension(bind_app("apps/mcc.mdh", "N=1,P=2,Q=2,K=8,C=2,R=1,S=1")), 3);
  // An input that moves with the lanes through two indices (a diagonal) has no consecutive lanes anywhere.
  EXPECT_EQ(vector_lanes_dimension(bind_spec_text("md_hom d\nsize I J\ninput A : float[I][I]\noutput C : float[I]\n"
                                                  "view (i < I, j < J) : A[i][i] -> C[i]\nscalar (a) = a\n"
                                                  "combine (++, +)\n",
                                                  "d.mdh", "I=8,J=2")),
            -1);
  EXPECT_EQ(vector_lanes_dimension(bind_app("apps/gaussian.mdh", "I=8,J=8")), -1);  // a window
  EXPECT_EQ(vector_lanes_dimension(bind_app("apps/prl.mdh", "N=4,M=3")), -1);       // a struct result
  EXPECT_EQ(find_family("VECTOR_LANES")->members(bind_app("apps/gemv.mdh", "I=8,K=4")).size(), 1u);
  EXPECT_EQ(find_family("VECTOR_LANES")->members(bind_app("apps/gaussian.mdh", "I=8,J=8")).size(), 0u);
  // f must mean the same on vectors: arithmetic and built-ins on its arguments, nothing else.
  for (const auto& [scalar, lanewise] :
       std::vector<std::tuple<std::string, bool>>{{"= a * b", true},
                                                  {"= fma(a, 2.5e-1f, b) - (a / 3.0f)", true},
                                                  {"= a > b ? a : b", false},
                                                  {"= a * (float)i", false},
                                                  {"{ return a * b; }", false},
                                                  {"= my_helper(a) * b", false}}) {
    SCOPED_TRACE(scalar);
    const BoundMdh bound = bind_spec_text(gemm_with_scalar(scalar), "g.mdh", sizes);
    EXPECT_EQ(scalar_function_is_lanewise(*bound.mdh), lanewise);
    EXPECT_EQ(vector_lanes_dimension(bound), lanewise ? 1 : -1);
  }
}

// Full steps compute vectors where the innermost private loop runs along j with block ownership and every input
// that moves with j is read contiguously along it (from global memory, or from a cache that keeps j innermost); edge
// steps and every other configuration compute elements one by one. All of them verify.
TEST(VectorLanes, FullStepsComputeVectorsWhereTheConfigurationAllows) {
  const DeviceLimits limits = testing::first_device_limits();
  const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
  for (const char* sizes : {"I=16,J=64,K=8", "I=19,J=61,K=8"}) {
    const BoundMdh bound = bind_app("apps/gemm.mdh", sizes);
    KernelConfig base = default_config(bound, limits);
    base.num_wg = {2, 2, 1};
    base.num_wi = {2, 2, 1};
    base.local_tile_size = {8, 32, 8};
    base.private_tile_size = {4, 16, 2};
    base.ownership = {Ownership::block, Ownership::block, Ownership::block};
    base.strided_run = {1, 1, 1};
    base.result_memory = {Memory::Global, Memory::Private, Memory::Private};
    base.combine_layer = Layer::Private;
    base.loop_order[p] = {2, 0, 1};
    base.input_memory[l] = {Memory::None, Memory::None};
    base.input_memory[p] = {Memory::None, Memory::None};
    base.vector_width = {1, 1};
    struct Variant {
      std::string name;
      std::function<void(KernelConfig&)> change;
      bool vectors;
    };
    const std::vector<Variant> variants = {
        {"read through, 4 lanes", [](KernelConfig& c) { c.vector_lanes = 4; }, true},
        {"read through, 16 lanes", [](KernelConfig& c) { c.vector_lanes = 16; }, true},
        {"private caches",
         [&](KernelConfig& c) {
           c.vector_lanes = 8;
           c.input_memory[p] = {Memory::Private, Memory::Private};
         },
         true},
        {"local and private caches",
         [&](KernelConfig& c) {
           c.vector_lanes = 8;
           c.input_memory[l] = {Memory::Local, Memory::Local};
           c.input_memory[p] = {Memory::Private, Memory::Private};
         },
         true},
        {"B cached transposed",
         [&](KernelConfig& c) {
           c.vector_lanes = 8;
           c.input_memory[p] = {Memory::None, Memory::Private};
           c.cache_dim_order[p][1] = {1, 0};
         },
         false},
        {"j not innermost",
         [&](KernelConfig& c) {
           c.vector_lanes = 8;
           c.loop_order[p] = {2, 1, 0};
         },
         false},
        {"strided ownership",
         [](KernelConfig& c) {
           c.vector_lanes = 8;
           c.ownership[1] = Ownership::strided;
         },
         false},
        {"one lane", [](KernelConfig& c) { c.vector_lanes = 1; }, false},
    };
    for (const Variant& v : variants) {
      SCOPED_TRACE(std::string(sizes) + ", " + v.name);
      KernelConfig c = base;
      v.change(c);
      ASSERT_NO_THROW(check_config(bound, c, limits));
      const std::string source = generate_tunable_kernel(bound, c, limits).source;
      EXPECT_EQ(source.find("mdh_f_lanes(") != std::string::npos, v.vectors);
      EXPECT_EQ(source.find("#error \"element loop generated for VECTOR_LANES") != std::string::npos, v.vectors);
      EXPECT_EQ(mismatch(bound, c, "-cl-opt-disable"), "");
    }
  }
  // Lanes that do not divide the private tile compute elements one by one; a width OpenCL lacks is refused.
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=16,J=64,K=8");
  KernelConfig c = default_config(bound, limits);
  c.private_tile_size[1] = 4;
  c.local_tile_size[1] = 4;
  c.num_wi[1] = 1;
  c.num_wg[1] = 16;
  c.vector_lanes = 8;
  ASSERT_NO_THROW(check_config(bound, c, limits));
  EXPECT_EQ(generate_tunable_kernel(bound, c, limits).source.find("mdh_f_lanes("), std::string::npos);
  EXPECT_EQ(mismatch(bound, c, "-cl-opt-disable"), "");
  c.vector_lanes = 3;
  EXPECT_THROW(check_config(bound, c, limits), UserError);
}

// An input that moves with the lanes through an index other than its unit-stride one (GEMM_NT's B[j][k], GEMV's
// A[i][k], MCC's F[k][r][s][c]) gives vectors from a private or local cache that keeps that index innermost (a
// transposed copy); read from global memory, or cached in its own order, the element loop computes elements one by
// one. All of them verify, full and edge steps.
TEST(VectorLanes, AnInputMovingWithTheLanesInAnotherIndexGivesVectorsFromATransposedCache) {
  const DeviceLimits limits = testing::first_device_limits();
  const int l = static_cast<int>(Layer::Local), p = static_cast<int>(Layer::Private);
  struct Case {
    const char* spec;
    const char* sizes;
    int transposed;          // the input that moves with the lanes in another index
    std::vector<int> order;  // its cache order with that index innermost
  };
  for (const Case& m :
       {Case{"apps/gemm_nt.mdh", "I=16,J=64,K=8", 1, {1, 0}}, Case{"apps/gemm_nt.mdh", "I=9,J=40,K=5", 1, {1, 0}},
        Case{"apps/gemv.mdh", "I=64,K=12", 0, {1, 0}},
        Case{"apps/mcc.mdh", "N=1,P=3,Q=2,K=32,C=4,R=2,S=2", 1, {1, 2, 3, 0}}}) {
    const BoundMdh bound = bind_app(m.spec, m.sizes);
    const int d = vector_lanes_dimension(bound);
    ASSERT_GE(d, 0) << m.spec;
    const Mdh& mdh = *bound.mdh;
    // One work-group of one work-item per 32 elements of d (16 for GEMV), the lanes innermost in the element loop.
    KernelConfig base = default_config(bound, limits);
    for (size_t e = 0; e < mdh.dims.size(); ++e) {
      const int64_t extent = bound.dim_extents[e];
      const int64_t tile = static_cast<int>(e) == d ? std::min<int64_t>(extent, 16) : std::min<int64_t>(extent, 2);
      base.private_tile_size[e] = tile;
      base.local_tile_size[e] = tile;
      base.num_wi[e] = 1;
      base.num_wg[e] = mdh.dims[e].combine.is_concat() ? (extent + tile - 1) / tile : 1;
      base.ownership[e] = Ownership::block;
      base.strided_run[e] = 1;
    }
    base.loop_order[p] = mdh.reduction_dims();
    for (int e : mdh.concat_dims())
      if (e != d) base.loop_order[p].push_back(e);
    base.loop_order[p].push_back(d);
    for (auto& layer : base.input_memory) std::fill(layer.begin(), layer.end(), Memory::None);
    std::fill(base.vector_width.begin(), base.vector_width.end(), 1);
    base.vector_lanes = 8;
    struct Variant {
      std::string name;
      std::function<void(KernelConfig&)> change;
      bool vectors;
    };
    const std::vector<Variant> variants = {
        {"read from global memory", [](KernelConfig&) {}, false},
        {"cached privately, transposed",
         [&](KernelConfig& c) {
           c.input_memory[p][m.transposed] = Memory::Private;
           c.cache_dim_order[p][m.transposed] = m.order;
         },
         true},
        {"cached locally, transposed",
         [&](KernelConfig& c) {
           c.input_memory[l][m.transposed] = Memory::Local;
           c.cache_dim_order[l][m.transposed] = m.order;
         },
         true},
        {"cached privately in its own order",
         [&](KernelConfig& c) { c.input_memory[p][m.transposed] = Memory::Private; }, false},
    };
    for (const Variant& v : variants) {
      SCOPED_TRACE(std::string(m.spec) + " " + m.sizes + ", " + v.name);
      KernelConfig c = base;
      v.change(c);
      ASSERT_NO_THROW(check_config(bound, c, limits));
      const std::string source = generate_tunable_kernel(bound, c, limits).source;
      EXPECT_EQ(source.find("mdh_f_lanes(") != std::string::npos, v.vectors);
      EXPECT_EQ(mismatch(bound, c, "-cl-opt-disable"), "");
    }
  }
}

// Property test of the vector element loop: random valid configurations at sizes whose lanes extents hold whole
// vectors (the CI property sizes are primes, where lanes rarely apply), the first that compute lanes run against the
// reference on PoCL, optimised (the vector code is what the optimiser must keep right). GEMM reads its inputs along
// the lanes; GEMM_NT, GEMV and MCC compute lanes only from a transposed cache of one input.
TEST(VectorLanes, RandomConfigurationsThatComputeLanesMatchTheReference) {
  // MCC computes lanes in about one draw in 3,000, the rarest: it gets more draws.
  const std::vector<std::tuple<testing::PropertyCase, int, int>> cases = {
      {{"gemm_lanes", "apps/gemm.mdh", "", {"I=6,J=32,K=5", "I=5,J=48,K=7"}}, 12, 4000},
      {{"gemm_nt_lanes", "apps/gemm_nt.mdh", "", {"I=6,J=32,K=5", "I=5,J=48,K=7"}}, 4, 4000},
      {{"gemv_lanes", "apps/gemv.mdh", "", {"I=64,K=5", "I=48,K=9"}}, 4, 4000},
      {{"mcc_lanes", "apps/mcc.mdh", "", {"N=1,P=2,Q=3,K=32,C=3,R=2,S=2"}}, 4, 16000},
  };
  for (const auto& [property_case, wanted, draws] : cases) {
    SCOPED_TRACE(property_case.name);
    int runs = 0;
    testing::for_each_property_configuration(
        property_case, draws, 20261204, [&](const BoundMdh& bound, size_t, int, const KernelConfig& config) {
          if (runs >= wanted || config.vector_lanes == 1) return;
          const std::string source = generate_tunable_kernel(bound, config, testing::first_device_limits()).source;
          if (source.find("//   VECTOR_LANES: ") == std::string::npos) return;
          ++runs;
          EXPECT_EQ(mismatch(bound, config, ""), "");
        });
    EXPECT_EQ(runs, wanted);  // the draws hold that many
  }
}

// The CPU default computes GEMM's rows in vectors of the device's float width, read through, and verifies optimised;
// GPUs (dedicated local memory) keep one lane.
TEST(VectorLanes, CpuDefaultOfGemmComputesRowsInVectors) {
  const DeviceLimits limits = testing::first_device_vector_limits();
  if (limits.float_vector_width < 2 || limits.local_memory_dedicated) GTEST_SKIP() << "no CPU vector width";
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=128,K=32");
  const KernelConfig c = default_config(bound, limits);
  EXPECT_GT(c.vector_lanes, 1);
  EXPECT_EQ(c.private_tile_size[1] % c.vector_lanes, 0);
  EXPECT_NE(generate_tunable_kernel(bound, c, limits).source.find("mdh_f_lanes("), std::string::npos);
  EXPECT_EQ(mismatch(bound, c, ""), "");
  DeviceLimits gpu = limits;
  gpu.local_memory_dedicated = true;
  EXPECT_EQ(default_config(bound, gpu).vector_lanes, 1);
}

// Off the vector multiples the CPU default still computes in lanes: a dividing tile of half vectors (J = 1000: 40
// columns, lanes of 8 where the device's width is 16), or, where no such divisor exists and the edge is at most one
// tile in 32, tiles of whole vectors and a shorter one at the edge (J = 1030: 32 columns, the last 6 guarded).
TEST(VectorLanes, CpuDefaultOffTheVectorMultiplesComputesInLanes) {
  DeviceLimits limits = testing::first_device_vector_limits();
  if (limits.float_vector_width < 2 || limits.local_memory_dedicated) GTEST_SKIP() << "no CPU vector width";
  limits.float_vector_width = 16;
  const BoundMdh halves = bind_app("apps/gemm.mdh", "I=8,J=1000,K=8");
  const KernelConfig h = default_config(halves, limits);
  EXPECT_EQ(h.private_tile_size[1], 40);
  EXPECT_EQ(h.vector_lanes, 8);
  EXPECT_EQ(mismatch(halves, h, ""), "");
  const BoundMdh edge = bind_app("apps/gemm.mdh", "I=8,J=1030,K=8");
  const KernelConfig e = default_config(edge, limits);
  EXPECT_EQ(e.private_tile_size[1], 32);
  EXPECT_EQ(e.vector_lanes, 16);
  EXPECT_EQ(mismatch(edge, e, ""), "");
  // J = 500 would leave one edge tile in 16: computed element by element, in tiles that divide it.
  const BoundMdh short_row = bind_app("apps/gemm.mdh", "I=8,J=500,K=8");
  EXPECT_EQ(default_config(short_row, limits).vector_lanes, 1);
}

}  // namespace
}  // namespace mdh
