// KernelConfig: JSON round trip, pinned messages for malformed configs, the default config, check_config.
#include "codegen/kernel_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/parameter_families.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

using nlohmann::json;
using testing::bind_app;
using testing::h200_device_limits;

DeviceLimits small_gpu() {
  DeviceLimits l;
  l.max_work_group_size = 256;
  l.max_work_item_sizes = {256, 256, 64};
  l.local_mem_bytes = 48 * 1024;
  return l;
}

std::string error_of(const BoundMdh& bound, const json& j) {
  try {
    config_from_json(bound, j);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// The kernel indexes its buffers with `int`. On the H200 (largest allocation about 35 GB) this GEMM 4096^3
// configuration passed the allocation limit with 8.6 GB of per-work-group partial results, wrapped its indices and
// accessed memory out of bounds.
TEST(KernelConfig, ScratchBuffersStayWithinTheKernelsIntIndices) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=4096,J=4096,K=4096");
  DeviceLimits limits = h200_device_limits();
  limits.max_alloc_bytes = uint64_t{35} << 30;
  json j = config_to_json(bound, default_config(bound, limits));
  const json changes = {{"LT_SIZE_i", 32},        {"LT_SIZE_j", 8},         {"LT_SIZE_k", 32},
                        {"PT_SIZE_i", 4},         {"PT_SIZE_j", 4},         {"PT_SIZE_k", 1},
                        {"NUM_WI_i", 4},          {"NUM_WI_j", 2},          {"NUM_WI_k", 4},
                        {"NUM_WG_i", 128},        {"NUM_WG_j", 512},        {"NUM_WG_k", 128},
                        {"MEM_INP_L_A", "local"}, {"MEM_INP_L_B", "none"},  {"MEM_INP_P_A", "private"},
                        {"MEM_INP_P_B", "local"}, {"MEM_RES_L", "local"},   {"MEM_RES_P", "global"},
                        {"CMB_RES", "L"},         {"DOUBLE_BUFFER", "off"}, {"OWNERSHIP_i", "block"},
                        {"OWNERSHIP_j", "block"}, {"WG_SWIZZLE_i", 1},      {"WG_SWIZZLE_j", 1},
                        {"VECTOR_WIDTH_A", 1},    {"VECTOR_WIDTH_B", 1}};
  for (const auto& [key, value] : changes.items()) j[key] = value;
  std::string error = "no error";
  try {
    check_config(bound, config_from_json(bound, j), limits);
  } catch (const UserError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("violates largest scratch buffer bytes / element bytes <= 2147483647 (the kernel's int "
                       "indices)"),
            std::string::npos)
      << error;
  // The measured quantity's value stands beside the parameters, so that the violation can be read.
  EXPECT_NE(error.find("(largest scratch buffer bytes / element bytes = 8589934592, LT_SIZE_i = 32"), std::string::npos)
      << error;
}

TEST(KernelConfig, DefaultIsValidAndRoundTripsThroughJson) {
  for (const char* app : {"apps/gemm.mdh", "apps/gaussian.mdh", "apps/prl.mdh", "apps/mcc.mdh", "apps/dot.mdh"}) {
    const std::string sizes = std::string(app) == "apps/mcc.mdh"        ? "N=1,P=7,Q=7,K=64,C=32,R=3,S=3"
                              : std::string(app) == "apps/prl.mdh"      ? "N=100,M=50"
                              : std::string(app) == "apps/dot.mdh"      ? "K=1000"
                              : std::string(app) == "apps/gaussian.mdh" ? "I=224,J=224"
                                                                        : "I=64,J=48,K=32";
    const BoundMdh bound = bind_app(app, sizes);
    const KernelConfig c = default_config(bound, small_gpu());
    EXPECT_NO_THROW(check_config(bound, c, small_gpu())) << app;
    EXPECT_EQ(config_from_json(bound, config_to_json(bound, c)), c) << app;
  }
}

// Where work-items share inputs and local memory is dedicated, the default is a strided register tile with both
// inputs cached (codegen/defaults/, tile_for_reuse); the tiles shrink until every compute unit has a work-group.
// The register tiles are fed by vectors: runs of up to 4 elements per work-item, private caches filled from the
// local caches with vectors of a run, A's local cache transposed so that its runs (along i) are consecutive.
TEST(KernelConfig, DefaultTilesForReuseOnDedicatedLocalMemory) {
  const int local = static_cast<int>(Layer::Local);
  {
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=1024,J=1024,K=1024");
    const json j = config_to_json(bound, default_config(bound, h200_device_limits()));
    EXPECT_EQ(j["NUM_WI_i"], 16);
    EXPECT_EQ(j["NUM_WI_j"], 16);
    EXPECT_EQ(j["PT_SIZE_i"], 8);  // 8x8 leaves 64 work-groups for 132 compute units, 8x4 128 (of 256)
    EXPECT_EQ(j["PT_SIZE_j"], 4);
    EXPECT_EQ(j["PT_SIZE_k"], 4);
    EXPECT_EQ(j["LT_SIZE_i"], 128);
    EXPECT_EQ(j["LT_SIZE_j"], 64);
    EXPECT_EQ(j["LT_SIZE_k"], 16);
    EXPECT_EQ(j["NUM_WG_i"], 8);
    EXPECT_EQ(j["DOUBLE_BUFFER"], "on");
    EXPECT_EQ(j["OWNERSHIP_i"], "strided");
    EXPECT_EQ(j["OWNERSHIP_j"], "strided");
    EXPECT_EQ(j["OWNERSHIP_k"], "block");
    EXPECT_EQ(j["MEM_INP_L_A"], "local");
    EXPECT_EQ(j["MEM_INP_L_B"], "local");
    EXPECT_EQ(j["BUF_ORDER_L_A"].dump(), "[1,0]");
    EXPECT_EQ(j["BUF_ORDER_L_B"].dump(), "[0,1]");
    EXPECT_EQ(j["LOCAL_PAD_A"], 2);  // stored transposed: the copy's stores go down its columns
    EXPECT_EQ(j["LOCAL_PAD_B"], 0);  // stored as read
    EXPECT_EQ(j["STRIDED_RUN_i"], 4);
    EXPECT_EQ(j["STRIDED_RUN_j"], 2);  // two runs of 2 in a private tile of 4
    EXPECT_EQ(j["STRIDED_RUN_k"], 1);
    EXPECT_EQ(j["MEM_INP_P_A"], "private");
    EXPECT_EQ(j["MEM_INP_P_B"], "private");
    EXPECT_EQ(j["VECTOR_WIDTH_A"], 4);
    EXPECT_EQ(j["VECTOR_WIDTH_B"], 2);
    // 1024^2 points fill the H200 (132 x 1024 work-items): k is neither shared nor split.
    EXPECT_EQ(j["NUM_WI_k"], 1);
    EXPECT_EQ(j["NUM_WG_k"], 1);
    EXPECT_EQ(j["CMB_WI"], "serial");
    EXPECT_EQ(j["CMB_RES"], "P");
    // Large enough for 8x8 register tiles.
    const BoundMdh big = bind_app("apps/gemm.mdh", "I=4096,J=4096,K=4096");
    const json b = config_to_json(big, default_config(big, h200_device_limits()));
    EXPECT_EQ(b["PT_SIZE_i"], 8);
    EXPECT_EQ(b["PT_SIZE_j"], 8);
    EXPECT_EQ(b["STRIDED_RUN_j"], 4);
    EXPECT_EQ(b["VECTOR_WIDTH_B"], 4);
    // The same GEMM where local memory is global memory (PoCL on a CPU): the plain default.
    DeviceLimits cpu = h200_device_limits();
    cpu.local_memory_dedicated = false;
    const KernelConfig plain = default_config(bound, cpu);
    EXPECT_EQ(plain.input_memory[local], (std::vector<Memory>{Memory::None, Memory::None}));
    EXPECT_EQ(plain.private_tile_size, (std::vector<int64_t>{2, 2, 4}));
  }
  {
    // TB[d][f][g][c]: f, on OpenCL dimension 0, moves innermost in the copy; TA[g][e][a][b] does not read f.
    const BoundMdh bound = bind_app("apps/tc/abcdef-geab-dfgc.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24");
    const json j = config_to_json(bound, default_config(bound, h200_device_limits()));
    EXPECT_EQ(j["MEM_INP_L_TA"], "local");
    EXPECT_EQ(j["MEM_INP_L_TB"], "local");
    EXPECT_EQ(j["BUF_ORDER_L_TA"].dump(), "[0,1,2,3]");
    EXPECT_EQ(j["BUF_ORDER_L_TB"].dump(), "[0,2,3,1]");
    EXPECT_EQ(j["LOCAL_PAD_TA"], 0);
    EXPECT_EQ(j["LOCAL_PAD_TB"], 2);
    EXPECT_EQ(j["LT_SIZE_g"], 12);  // the longest divisor of 24 up to 16
    EXPECT_EQ(j["DOUBLE_BUFFER"], "on");
    // TB[e][f][g][c]: work-items along f would read it at a stride of G*C, so it is cached too (f innermost).
    const BoundMdh gdab = bind_app("apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24");
    const json k = config_to_json(gdab, default_config(gdab, h200_device_limits()));
    EXPECT_EQ(k["MEM_INP_L_TB"], "local");
    EXPECT_EQ(k["BUF_ORDER_L_TB"].dump(), "[0,2,3,1]");
    EXPECT_EQ(k["LOCAL_PAD_TB"], 2);
    EXPECT_EQ(k["NUM_WI_e"], 8);  // divides E = 24 (16 would leave a half-empty tile)
    EXPECT_EQ(k["PT_SIZE_e"], 3);
    EXPECT_EQ(k["LT_SIZE_g"], 4);  // the tiles before the raise (below) fit two work-groups per compute unit so
  }
  {
    // PRL: work-items along i only (16 per work-group): the plain default.
    const BoundMdh bound = bind_app("apps/prl.mdh", "N=32768,M=1024");
    const KernelConfig c = default_config(bound, h200_device_limits());
    EXPECT_EQ(c.private_tile_size[0], 2);
    EXPECT_EQ(c.input_memory[local], std::vector<Memory>(c.input_memory[local].size(), Memory::None));
  }
  {
    // A stencil reads every dimension it is computed along: nothing is shared, nothing cached.
    const BoundMdh bound = bind_app("apps/gaussian.mdh", "I=4096,J=4096");
    const KernelConfig c = default_config(bound, h200_device_limits());
    EXPECT_EQ(c.input_memory[local], std::vector<Memory>(c.input_memory[local].size(), Memory::None));
  }
}

// A cached input that both work-item dimensions index is reused in a work-group only along the dimensions without
// work-items (codegen/defaults/, kMinimumInputReuse): the CCSD(T) contraction gdab-efgc (work-items along e and f,
// TB[e][f][g][c]) had 2 x 2 x 2 along a, b, d, 8 points per TB element; raised to 32 as in its best known
// configuration on the H200: c (read by TB) at 1, b (TA[g][d][a][b]'s unit-stride index) at 8. Contractions whose
// work-items read both inputs (geab-dfgc: e indexes TA, f TB; 64 points each) keep their default.
TEST(KernelConfig, DefaultRaisesTheReuseOfAnInputThatEveryWorkItemDimensionIndexes) {
  const DeviceLimits gpu = h200_device_limits();
  const BoundMdh gdab = bind_app("apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24");
  const json k = config_to_json(gdab, default_config(gdab, gpu));
  const std::vector<std::tuple<const char*, int, int, int, int>> tiles = {
      // dimension, NUM_WI, PT_SIZE, LT_SIZE, NUM_WG
      {"a", 1, 2, 2, 12}, {"b", 1, 8, 8, 2},   {"c", 1, 1, 1, 16}, {"d", 1, 2, 2, 8},
      {"e", 8, 3, 24, 1}, {"f", 16, 1, 16, 1}, {"g", 1, 4, 4, 1}};  // g as before the raise (12 ran 1.65x slower)
  for (const auto& [d, wi, pt, lt, wg] : tiles) {
    EXPECT_EQ(k[std::string("NUM_WI_") + d], wi) << d;
    EXPECT_EQ(k[std::string("PT_SIZE_") + d], pt) << d;
    EXPECT_EQ(k[std::string("LT_SIZE_") + d], lt) << d;
    EXPECT_EQ(k[std::string("NUM_WG_") + d], wg) << d;
  }
  EXPECT_EQ(k["MEM_INP_L_TA"], "local");
  EXPECT_EQ(k["MEM_INP_L_TB"], "local");
  EXPECT_EQ(k["DOUBLE_BUFFER"], "on");
  // gdac-efgb: TA[g][d][a][c], TB[e][f][g][b]: b (read by TB) at 1, c (TA's unit-stride index) at 8.
  const BoundMdh gdac = bind_app("apps/tc/abcdef-gdac-efgb.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24");
  const json ac = config_to_json(gdac, default_config(gdac, gpu));
  EXPECT_EQ(ac["PT_SIZE_a"], 2);
  EXPECT_EQ(ac["PT_SIZE_b"], 1);
  EXPECT_EQ(ac["PT_SIZE_c"], 8);
  EXPECT_EQ(ac["PT_SIZE_d"], 2);
  // geab-dfgc keeps the plain 2 elements along a, b, c, d.
  const BoundMdh geab = bind_app("apps/tc/abcdef-geab-dfgc.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24");
  const json ab = config_to_json(geab, default_config(geab, gpu));
  for (const char* d : {"a", "b", "c", "d"}) {
    EXPECT_EQ(ab[std::string("PT_SIZE_") + d], 2) << d;
    EXPECT_EQ(ab[std::string("LT_SIZE_") + d], 2) << d;
  }
  EXPECT_EQ(ab["NUM_WI_e"], 16);
  EXPECT_EQ(ab["LT_SIZE_g"], 12);
}

// On GPUs the default's copies into local memory move 16 bytes at a time (codegen/defaults/, kGpuVectorBytes):
// float4 along each locally cached input's unit-stride dimension where the cached rows are whole vectors, the widest
// smaller vector where they are not, and widths that a register tile has already chosen stay.
TEST(KernelConfig, DefaultCopiesIntoLocalMemorySixteenBytesAtATime) {
  const DeviceLimits gpu = h200_device_limits();
  // MCC: I[n][p+r][q+s][c] and F[k][r][s][c], rows of LT_SIZE_c = 8 elements.
  const BoundMdh mcc = bind_app("apps/mcc.mdh", "N=1,P=7,Q=7,K=512,C=512,R=3,S=3");
  const json m = config_to_json(mcc, default_config(mcc, gpu));
  EXPECT_EQ(m["LT_SIZE_c"], 8);
  EXPECT_EQ(m["VECTOR_WIDTH_I"], 4);
  EXPECT_EQ(m["VECTOR_WIDTH_F"], 4);
  // gdab-efgc: TA[g][d][a][b] in rows of LT_SIZE_b = 8; TB[e][f][g][c] in rows of LT_SIZE_c = 1, one element.
  const BoundMdh gdab = bind_app("apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24");
  const json k = config_to_json(gdab, default_config(gdab, gpu));
  EXPECT_EQ(k["VECTOR_WIDTH_TA"], 4);
  EXPECT_EQ(k["VECTOR_WIDTH_TB"], 1);
  // GEMM's register tile reads B in runs of 2 (STRIDED_RUN_j): its width stays 2.
  const BoundMdh gemm = bind_app("apps/gemm.mdh", "I=1024,J=1024,K=1024");
  const json g = config_to_json(gemm, default_config(gemm, gpu));
  EXPECT_EQ(g["VECTOR_WIDTH_A"], 4);
  EXPECT_EQ(g["VECTOR_WIDTH_B"], 2);
  // Doubles: 16 bytes are 2 elements.
  const std::string text = R"(md_hom mcc_double
size   N P Q K C R S
input  I : double[N][P+R-1][Q+S-1][C]
input  F : double[K][R][S][C]
output O : double[N][P][Q][K]
view   (n < N, p < P, q < Q, k < K, c < C, r < R, s < S) : I[n][p+r][q+s][c], F[k][r][s][c] -> O[n][p][q][k]
scalar (i, f) = i * f
combine (++, ++, ++, ++, +, +, +)
)";
  const BoundMdh twice = testing::bind_spec_text(text, "mcc_double.mdh", "N=1,P=7,Q=7,K=512,C=512,R=3,S=3");
  const json d = config_to_json(twice, default_config(twice, gpu));
  EXPECT_EQ(d["VECTOR_WIDTH_I"], 2);
  EXPECT_EQ(d["VECTOR_WIDTH_F"], 2);
  // Without dedicated local memory nothing is copied into it: no vectors either.
  DeviceLimits cpu = gpu;
  cpu.local_memory_dedicated = false;
  cpu.float_vector_width = 1;
  const json c = config_to_json(mcc, default_config(mcc, cpu));
  EXPECT_EQ(c["VECTOR_WIDTH_I"], 1);
  EXPECT_EQ(c["VECTOR_WIDTH_F"], 1);
}

// GPU defaults (codegen/defaults/): results stored 16 bytes at a time where a work-item owns runs of them along the
// output's unit-stride dimension (STORE_WIDTH), private steps unrolled where there are at most 16 of them
// (UNROLL_STEPS), the innermost reduction tile loop unrolled where it unrolls completely (UNROLL_TILES: at most 8
// tiles), and stencils over three dimensions in the volume-stencil shape; a CPU keeps them all as they were.
TEST(KernelConfig, GpuDefaultsStoreInVectorsUnrollShortLoopsAndShapeVolumeStencils) {
  const DeviceLimits gpu = h200_device_limits();
  struct Expected {
    const char* app;
    const char* sizes;
    int64_t store_width;  // -1: the md_hom has no STORE_WIDTH (a reduction to one point, a struct result)
    const char* unroll_steps;
    const char* unroll_tiles;
  };
  // GEMM's register tiles own runs of 2 (1024^3) and 4 (4096^3) along j, 4 private steps along k, and 64 and 256
  // local tiles of k per work-group (rolled); GEMV's shared reduction takes 16 steps; DOT's 64 and PRL's 256 (one
  // work-item folding 1,024 records in steps of 4) stay rolled. MCC's reduction takes 4 local tiles, the
  // contraction's 6: both unroll completely.
  for (const Expected& e :
       std::vector<Expected>{{"apps/gemm.mdh", "I=1024,J=1024,K=1024", 2, "on", "off"},
                             {"apps/gemm.mdh", "I=4096,J=4096,K=4096", 4, "on", "off"},
                             {"apps/gemv.mdh", "I=4096,K=4096", 4, "on", "off"},
                             {"apps/dot.mdh", "K=16777216", -1, "off", "off"},
                             {"apps/prl.mdh", "N=32768,M=1024", -1, "off", "off"},
                             {"apps/mcc.mdh", "N=1,P=7,Q=7,K=512,C=512,R=3,S=3", 1, "on", "on"},
                             {"apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24", 1, "on", "on"},
                             {"apps/jacobi3d.mdh", "I=512,J=512,K=512", 2, "on", "off"}}) {
    const BoundMdh bound = bind_app(e.app, e.sizes);
    const KernelConfig config = default_config(bound, gpu);
    const json j = config_to_json(bound, config);
    if (e.store_width < 0)
      EXPECT_FALSE(j.contains("STORE_WIDTH")) << e.app << " " << e.sizes;
    else
      EXPECT_EQ(j["STORE_WIDTH"], e.store_width) << e.app << " " << e.sizes;
    EXPECT_EQ(j["UNROLL_STEPS"], e.unroll_steps) << e.app << " " << e.sizes;
    EXPECT_EQ(j["UNROLL_TILES"], e.unroll_tiles) << e.app << " " << e.sizes;
  }
  // Jacobi 3D: 64 x 4 work-items along k and j, 2 x 2 elements each, 4 along i.
  const BoundMdh jacobi = bind_app("apps/jacobi3d.mdh", "I=512,J=512,K=512");
  const json g = config_to_json(jacobi, default_config(jacobi, gpu));
  EXPECT_EQ(std::vector<int64_t>({g["NUM_WI_i"], g["NUM_WI_j"], g["NUM_WI_k"]}), std::vector<int64_t>({1, 4, 64}));
  EXPECT_EQ(std::vector<int64_t>({g["PT_SIZE_i"], g["PT_SIZE_j"], g["PT_SIZE_k"]}), std::vector<int64_t>({4, 2, 2}));
  EXPECT_EQ(std::vector<int64_t>({g["NUM_WG_i"], g["NUM_WG_j"], g["NUM_WG_k"]}), std::vector<int64_t>({128, 64, 4}));
  // A CPU: the plain shape (16 x 16 work-items of 2 x 2 x 2 elements), stores one at a time, steps rolled.
  DeviceLimits cpu = gpu;
  cpu.local_memory_dedicated = false;
  cpu.float_vector_width = 1;
  const json c = config_to_json(jacobi, default_config(jacobi, cpu));
  EXPECT_EQ(std::vector<int64_t>({c["NUM_WI_i"], c["NUM_WI_j"], c["NUM_WI_k"]}), std::vector<int64_t>({1, 16, 16}));
  EXPECT_EQ(std::vector<int64_t>({c["PT_SIZE_i"], c["PT_SIZE_j"], c["PT_SIZE_k"]}), std::vector<int64_t>({2, 2, 2}));
  EXPECT_EQ(c["STORE_WIDTH"], 1);
  EXPECT_EQ(c["UNROLL_STEPS"], "off");
  EXPECT_EQ(c["UNROLL_TILES"], "off");
}

// Where the output has fewer points than the device has room for work-items (132 x 1024 on the H200) and the
// reductions' operator commutes, the GPU default splits the longest reduction (codegen/defaults/,
// share_reduction_per_point and split_reduction_over_work_groups): among a work-group's work-items where even one
// point per work-item leaves each compute unit under 128 work-items, then among work-groups where fewer
// work-groups than compute units remain.
TEST(KernelConfig, DefaultSharesAReductionOnlyWhereItsStreamedInputIsReadForFewPoints) {
  const DeviceLimits gpu = h200_device_limits();
  // k carries the most contiguous bytes of GEMM 2048x1024x1024 (A) and GEMM_NT 1024^3 (A and B), but each of
  // those elements is read for 1,024 output points: register tiles over cached inputs, not GEMV's shared
  // reduction. Read for 4 points (J = 4), k is still shared.
  for (const auto& [spec, sizes] :
       {std::pair{"apps/gemm.mdh", "I=2048,J=1024,K=1024"}, std::pair{"apps/gemm_nt.mdh", "I=1024,J=1024,K=1024"}}) {
    const BoundMdh bound = bind_app(spec, sizes);
    const json j = config_to_json(bound, default_config(bound, gpu));
    EXPECT_EQ(j["MEM_INP_L_A"], "local") << spec;
    EXPECT_EQ(j["MEM_INP_L_B"], "local") << spec;
    EXPECT_EQ(j["NUM_WI_k"], 1) << spec;
    EXPECT_EQ(j["CMB_WI"], "serial") << spec;
  }
  const BoundMdh narrow = bind_app("apps/gemm.mdh", "I=4096,J=4,K=4096");
  const json j = config_to_json(narrow, default_config(narrow, gpu));
  EXPECT_EQ(j["NUM_WI_k"], 256);
  EXPECT_EQ(j["CMB_WI"], "tree");
}

TEST(KernelConfig, DefaultSplitsTheReductionWhereTheOutputIsTooSmallForTheDevice) {
  const DeviceLimits gpu = h200_device_limits();
  {
    // 5,000 points: a point per work-item, 4 work-items of 16 along k (64 / 16), a tree in local memory, no caches;
    // i's work-items halved from 10 until the 132 compute units have a work-group (5 x 32 = 160).
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=10,J=500,K=64");
    const json j = config_to_json(bound, default_config(bound, gpu));
    EXPECT_EQ(j["NUM_WI_i"], 2);
    EXPECT_EQ(j["NUM_WI_j"], 16);
    EXPECT_EQ(j["NUM_WI_k"], 4);
    EXPECT_EQ(j["PT_SIZE_i"], 1);
    EXPECT_EQ(j["PT_SIZE_j"], 1);
    EXPECT_EQ(j["PT_SIZE_k"], 16);
    EXPECT_EQ(j["LT_SIZE_i"], 2);
    EXPECT_EQ(j["LT_SIZE_j"], 16);
    EXPECT_EQ(j["LT_SIZE_k"], 64);
    EXPECT_EQ(j["NUM_WG_i"], 5);
    EXPECT_EQ(j["NUM_WG_j"], 32);
    EXPECT_EQ(j["NUM_WG_k"], 1);  // a single kernel
    EXPECT_EQ(j["ORDER_OCL_L_j"], 0);
    EXPECT_EQ(j["ORDER_OCL_L_i"], 1);
    EXPECT_EQ(j["ORDER_OCL_L_k"], 2);
    EXPECT_EQ(j["MEM_INP_L_A"], "none");
    EXPECT_EQ(j["MEM_INP_L_B"], "none");
    EXPECT_EQ(j["MEM_RES_P"], "local");
    EXPECT_EQ(j["CMB_RES"], "G");
    EXPECT_EQ(j["CMB_WI"], "tree");
    EXPECT_EQ(j["DOUBLE_BUFFER"], "off");
  }
  {
    // MCC 1x7x7x512 (25,088 points, enough for 128 work-items per compute unit): the register tiles of
    // tile_for_reuse (32 work-groups of 32 x 7 work-items), and c split over 16 work-groups (4 local tiles of 8
    // each), the most that keep 7,168 x 16 work-items within 132 x 1024.
    const BoundMdh bound = bind_app("apps/mcc.mdh", "N=1,P=7,Q=7,K=512,C=512,R=3,S=3");
    const json j = config_to_json(bound, default_config(bound, gpu));
    EXPECT_EQ(j["NUM_WG_c"], 16);
    EXPECT_EQ(j["LT_SIZE_c"], 8);
    EXPECT_EQ(j["NUM_WI_c"], 1);
    EXPECT_EQ(j["NUM_WG_k"], 8);
    EXPECT_EQ(j["NUM_WG_p"], 4);
    EXPECT_EQ(j["NUM_WI_k"], 32);
    EXPECT_EQ(j["NUM_WI_q"], 7);
    EXPECT_EQ(j["PT_SIZE_k"], 2);
    EXPECT_EQ(j["PT_SIZE_p"], 2);
    EXPECT_EQ(j["MEM_INP_L_F"], "local");
    EXPECT_EQ(j["MEM_INP_L_I"], "local");
    EXPECT_EQ(j["CMB_RES"], "P");
    EXPECT_EQ(j["CMB_WI"], "serial");
  }
  {
    // 16 points: 64 work-items along k (OpenCL dimension 2's limit), one point per work-group, and still 16
    // work-groups for 132 compute units: k over 4 work-groups of 1,024 (16 per work-item).
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=4,J=4,K=4096");
    const json j = config_to_json(bound, default_config(bound, gpu));
    EXPECT_EQ(j["NUM_WI_i"], 1);
    EXPECT_EQ(j["NUM_WI_j"], 1);
    EXPECT_EQ(j["NUM_WI_k"], 64);
    EXPECT_EQ(j["NUM_WG_k"], 4);
    EXPECT_EQ(j["LT_SIZE_k"], 1024);
    EXPECT_EQ(j["PT_SIZE_k"], 16);
    EXPECT_EQ(j["CMB_WI"], "tree");
  }
  {
    // PRL's operator need not commute: its fold stays one work-item's, in index order.
    const BoundMdh bound = bind_app("apps/prl.mdh", "N=1000,M=1024");
    const json j = config_to_json(bound, default_config(bound, gpu));
    EXPECT_EQ(j["NUM_WI_j"], 1);
    EXPECT_EQ(j["NUM_WG_j"], 1);
  }
  {
    // A CPU (local memory in global memory) keeps its vector tiles.
    DeviceLimits cpu = gpu;
    cpu.local_memory_dedicated = false;
    cpu.float_vector_width = 16;
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=10,J=500,K=64");
    EXPECT_EQ(config_to_json(bound, default_config(bound, cpu))["NUM_WI_k"], 1);
  }
  // The GPU experiments (experiments.gpu.json): the reduction is split where it was (DOT, GEMV: the shared
  // reduction along their streamed rows) and newly for GEMM 10x500x64 and MCC; nowhere else.
  const std::vector<std::tuple<const char*, const char*, bool>> experiments{
      {"apps/dot.mdh", "K=16777216", true},
      {"apps/gemv.mdh", "I=1000,K=2048", true},
      {"apps/gemv.mdh", "I=4096,K=4096", true},
      {"apps/gemm.mdh", "I=10,J=500,K=64", true},
      {"apps/gemm.mdh", "I=1024,J=1024,K=1024", false},
      {"apps/gemm.mdh", "I=4096,J=4096,K=4096", false},
      {"apps/mcc.mdh", "N=1,P=7,Q=7,K=512,C=512,R=3,S=3", true},
      {"apps/prl.mdh", "N=32768,M=1024", false},
      {"apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24", false},
      {"apps/tc/abcdef-gdac-efgb.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24", false},
      {"apps/tc/abcdef-gdbc-efga.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24", false},
      {"apps/tc/abcdef-geab-dfgc.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24", false},
      {"apps/tc/abcdef-geac-dfgb.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24", false},
      {"apps/tc/abcdef-gebc-dfga.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24", false},
      {"apps/tc/abcdef-gfab-degc.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24", false},
      {"apps/tc/abcdef-gfac-degb.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24", false},
      {"apps/tc/abcdef-gfbc-dega.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24", false},
  };
  for (const auto& [app, sizes, split] : experiments) {
    const BoundMdh bound = bind_app(app, sizes);
    const KernelConfig c = default_config(bound, gpu);
    bool any = false;
    for (int r : bound.mdh->reduction_dims()) any = any || c.num_wi[r] > 1 || c.num_wg[r] > 1;
    EXPECT_EQ(any, split) << app << " " << sizes;
  }
}

// Where local memory is global memory and the device has vector registers (PoCL on a CPU), the default gives each
// work-item a register tile with private input caches copied in vectors of the device's float width
// (codegen/defaults/, tile_for_vectors), derived from the accesses: one vector along a dimension that an input is
// contiguous along, 8 rows along another the work-items share an input along, the output's innermost dimension
// innermost in the element loops and the caches. Where the results can be computed as vectors (VECTOR_LANES: GEMM),
// 8 rows of two vectors of 16 (one of 8 on AVX2), the inputs read through.
TEST(KernelConfig, DefaultTilesForVectorsWithoutDedicatedLocalMemory) {
  DeviceLimits cpu;  // a 16-core AVX-512 CPU through PoCL
  cpu.max_work_group_size = 4096;
  cpu.max_work_item_sizes = {4096, 4096, 4096};
  cpu.local_mem_bytes = 1024 * 1024;
  cpu.compute_units = 16;
  cpu.simd_width = 16;
  cpu.float_vector_width = 16;
  {
    const BoundMdh bound = bind_app("apps/gemm.mdh", "I=1024,J=1024,K=1024");
    const json j = config_to_json(bound, default_config(bound, cpu));
    EXPECT_EQ(j["PT_SIZE_i"], 8);   // rows: B is shared along i
    EXPECT_EQ(j["PT_SIZE_j"], 32);  // two vectors: B is contiguous along j, C's unit-stride dimension
    EXPECT_EQ(j["VECTOR_LANES"], 16);
    EXPECT_EQ(j["PT_SIZE_k"], 1);  // no private caches to fill
    EXPECT_EQ(j["NUM_WI_i"], 1);   // a work-group is one work-item
    EXPECT_EQ(j["NUM_WI_j"], 1);
    EXPECT_EQ(j["LT_SIZE_i"], 8);
    EXPECT_EQ(j["LT_SIZE_j"], 32);
    EXPECT_EQ(j["NUM_WG_i"], 128);
    EXPECT_EQ(j["NUM_WG_j"], 32);
    // A and B (8 MiB) are read by every row and column of work-groups: k in 4 slices of 2 MiB.
    EXPECT_EQ(j["NUM_WG_k"], 4);
    EXPECT_EQ(j["LT_SIZE_k"], 256);
    EXPECT_EQ(j["ORDER_OCL_G_k"], 2);
    EXPECT_EQ(j["MEM_INP_P_A"], "none");
    EXPECT_EQ(j["MEM_INP_P_B"], "none");
    EXPECT_EQ(j["MEM_INP_L_A"], "none");
    EXPECT_EQ(j["MEM_INP_L_B"], "none");
    EXPECT_EQ(j["LOOP_ORDER_P"].dump(), R"(["k","i","j"])");
    // AVX2: one vector of 8 per row (16 registers).
    DeviceLimits avx2 = cpu;
    avx2.float_vector_width = 8;
    const json a = config_to_json(bound, default_config(bound, avx2));
    EXPECT_EQ(a["PT_SIZE_j"], 8);
    EXPECT_EQ(a["VECTOR_LANES"], 8);
    // Without vector registers, or with dedicated local memory (a GPU), the float width changes nothing.
    DeviceLimits scalar = cpu;
    scalar.float_vector_width = 1;
    const KernelConfig plain = default_config(bound, scalar);
    EXPECT_EQ(plain.private_tile_size, (std::vector<int64_t>{2, 2, 4}));
    EXPECT_EQ(plain.input_memory[static_cast<int>(Layer::Private)], (std::vector<Memory>{Memory::None, Memory::None}));
    DeviceLimits gpu = h200_device_limits();
    gpu.float_vector_width = 16;
    EXPECT_EQ(default_config(bound, gpu), default_config(bound, h200_device_limits()));
    // A short reduction changes nothing along j.
    const BoundMdh short_k = bind_app("apps/gemm.mdh", "I=1024,J=1024,K=8");
    const json s = config_to_json(short_k, default_config(short_k, cpu));
    EXPECT_EQ(s["PT_SIZE_j"], 32);
    EXPECT_EQ(s["VECTOR_LANES"], 16);
    // Private tiles that divide the extents (1008 = 126 x 8 = 21 x 48): along j the divisor of 1008 nearest to two
    // vectors that is a multiple of one (48, three vectors), computed in lanes.
    const BoundMdh odd = bind_app("apps/gemm.mdh", "I=1008,J=1008,K=1008");
    const json o = config_to_json(odd, default_config(odd, cpu));
    EXPECT_EQ(o["LT_SIZE_i"], 8);
    EXPECT_EQ(o["LT_SIZE_j"], 48);
    EXPECT_EQ(o["VECTOR_LANES"], 16);
    // GEMM 4096^3: 4 slices of its 64-MiB output would pass the partial results' budget (64 MiB): k stays whole.
    const BoundMdh big = bind_app("apps/gemm.mdh", "I=4096,J=4096,K=4096");
    const json g = config_to_json(big, default_config(big, cpu));
    EXPECT_EQ(g["PT_SIZE_j"], 32);
    EXPECT_EQ(g["NUM_WG_k"], 1);
    // Small: fewer work-items per work-group until every compute unit has 4 work-groups.
    const BoundMdh small = bind_app("apps/gemm.mdh", "I=64,J=64,K=64");
    const KernelConfig sc = default_config(small, cpu);
    EXPECT_GE(tunable_geometry(small, sc).work_groups, 64);
  }
  {
    // GEMM_NT reads B[j][k], which every work-group along i rereads: B is packed with j innermost (PACK_INP), and
    // the tile is GEMM's, 8 rows of two vectors along j in VECTOR_LANES, inputs read through.
    const BoundMdh bound = bind_app("apps/gemm_nt.mdh", "I=1024,J=1024,K=1024");
    const json j = config_to_json(bound, default_config(bound, cpu));
    EXPECT_EQ(j["PACK_INP_B"], "moving_innermost");
    EXPECT_EQ(j["PT_SIZE_i"], 8);
    EXPECT_EQ(j["PT_SIZE_j"], 32);
    EXPECT_EQ(j["PT_SIZE_k"], 1);
    EXPECT_EQ(j["VECTOR_LANES"], 16);
    EXPECT_EQ(j["MEM_INP_P_A"], "none");
    EXPECT_EQ(j["MEM_INP_P_B"], "none");
    // At 1000 = 25 x 40 the tile along j is 40 columns in lanes of 8 (half vectors), and B is packed as at 1024.
    const BoundMdh odd = bind_app("apps/gemm_nt.mdh", "I=1000,J=1000,K=1000");
    const json o = config_to_json(odd, default_config(odd, cpu));
    EXPECT_EQ(o["PT_SIZE_j"], 40);
    EXPECT_EQ(o["VECTOR_LANES"], 8);
    EXPECT_EQ(o["PACK_INP_B"], "moving_innermost");
  }
  {
    // GEMV: 8 rows of A per work-item (x is shared along i), vectors along k; no shared reduction.
    const BoundMdh bound = bind_app("apps/gemv.mdh", "I=4096,K=4096");
    const json j = config_to_json(bound, default_config(bound, cpu));
    EXPECT_EQ(j["PT_SIZE_i"], 8);
    EXPECT_EQ(j["PT_SIZE_k"], 16);
    EXPECT_EQ(j["NUM_WI_k"], 1);
    EXPECT_EQ(j["MEM_INP_P_A"], "private");
    EXPECT_EQ(j["MEM_INP_P_x"], "private");
    EXPECT_EQ(j["VECTOR_WIDTH_A"], 16);
    EXPECT_EQ(j["VECTOR_WIDTH_x"], 16);
    EXPECT_EQ(j["CMB_RES"], "P");
  }
  {
    // DOT shares its reduction between two work-items, each reading blocks of 32 through private caches moved in
    // float4 (256 work-items of one element each on GPUs).
    const BoundMdh bound = bind_app("apps/dot.mdh", "K=16777216");
    const json j = config_to_json(bound, default_config(bound, cpu));
    EXPECT_EQ(j["NUM_WI_k"], 2);
    EXPECT_EQ(j["PT_SIZE_k"], 32);
    EXPECT_EQ(j["NUM_WG_k"], 1024);
    EXPECT_EQ(j["OWNERSHIP_k"], "block");
    EXPECT_EQ(j["MEM_INP_P_x"], "private");
    EXPECT_EQ(j["MEM_INP_P_y"], "private");
    EXPECT_EQ(j["VECTOR_WIDTH_x"], 4);
    EXPECT_EQ(j["VECTOR_WIDTH_y"], 4);
    EXPECT_EQ(j["CMB_RES"], "G");
    EXPECT_EQ(config_to_json(bound, default_config(bound, h200_device_limits()))["NUM_WI_k"], 256);
  }
  {
    // PRL's inputs are records, which no vector moves: one element per work-item (and per work-group) along i and
    // along the reduction j, still cached privately; 8 x 4 elements ran 1.7x slower on the 16-core Xeon.
    const BoundMdh bound = bind_app("apps/prl.mdh", "N=32768,M=1024");
    const json j = config_to_json(bound, default_config(bound, cpu));
    EXPECT_EQ(j["PT_SIZE_i"], 1);
    EXPECT_EQ(j["PT_SIZE_j"], 1);
    EXPECT_EQ(j["NUM_WI_i"], 1);
    EXPECT_EQ(j["NUM_WG_i"], 32768);
    EXPECT_EQ(j["MEM_INP_P_a"], "private");
    EXPECT_EQ(j["MEM_INP_P_b"], "private");
    EXPECT_EQ(j["F_INLINE"], "unrolled");
  }
  {
    // Nothing shared (a stencil): not this layout.
    for (const auto& [app, sizes] :
         std::vector<std::pair<const char*, const char*>>{{"apps/gaussian.mdh", "I=4096,J=4096"}}) {
      const BoundMdh bound = bind_app(app, sizes);
      const KernelConfig c = default_config(bound, cpu);
      EXPECT_EQ(c.input_memory[static_cast<int>(Layer::Private)],
                std::vector<Memory>(bound.inputs.size(), Memory::None))
          << app;
    }
  }
}

TEST(KernelConfig, JsonFormIsFlatNamedAndVersioned) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=48,K=32");
  const json j = config_to_json(bound, default_config(bound, small_gpu()));
  EXPECT_EQ(j["mdh_config"], kConfigFormatVersion);
  EXPECT_EQ(j["NUM_WI_i"], 16);
  EXPECT_EQ(j["NUM_WI_k"], 1);
  EXPECT_EQ(j["LOOP_ORDER_G"].dump(), R"(["i","j","k"])");
  EXPECT_EQ(j["MEM_INP_L_A"], "none");
  EXPECT_EQ(j["BUF_ORDER_P_B"].dump(), "[0,1]");
  EXPECT_EQ(j["MEM_RES_P"], "private");
  EXPECT_EQ(j["CMB_RES"], "P");
  EXPECT_EQ(j["OWNERSHIP_i"], "block");
  EXPECT_EQ(j["CMB_WI"], "serial");
  EXPECT_EQ(j["DOUBLE_BUFFER"], "off");
  EXPECT_EQ(j["WG_SWIZZLE_i"], 1);
  EXPECT_FALSE(j.contains("WG_SWIZZLE_k"));  // a reduction dimension has none
  EXPECT_EQ(j["VECTOR_WIDTH_B"], 1);
  EXPECT_EQ(j["STRIDED_RUN_i"], 1);
  EXPECT_EQ(j["UNROLL_STEPS"], "off");
  EXPECT_EQ(j["UNROLL_TILES"], "off");
  EXPECT_EQ(j["LOCAL_PAD_A"], 0);
  EXPECT_EQ(j["STORE_WIDTH"], 1);
  EXPECT_EQ(j["WG_COMBINE"], "kernel");
  EXPECT_EQ(j["WG_OWNERSHIP_k"], "block");
  EXPECT_FALSE(j.contains("WG_OWNERSHIP_i"));  // a `++` dimension has none
  // One key per parameter of the family table, and the version.
  size_t parameters = 0;
  for (const ParameterFamily& family : parameter_families()) parameters += family.members(bound).size();
  EXPECT_EQ(j.size(), parameters + 1);
}

// Version 1 (nested by family and layer) and the journals' ordinals are still read, and mean the same config.
TEST(KernelConfig, OlderFormsStillRead) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=48,K=32");
  KernelConfig c = default_config(bound, small_gpu());
  set_label(c, "EDGE_POINTS", "guarded");  // the older forms predate the family: they read as its neutral value
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::None};
  c.cache_dim_order[static_cast<int>(Layer::Local)][0] = {1, 0};
  c.loop_order[static_cast<int>(Layer::Private)] = {2, 0, 1};
  const json nested = json::parse(R"({
    "NUM_WG": {"i": 2, "j": 2, "k": 1}, "NUM_WI": {"i": 16, "j": 16, "k": 1},
    "LT_SIZE": {"i": 32, "j": 32, "k": 32}, "PT_SIZE": {"i": 2, "j": 2, "k": 4},
    "MEM_INP": {"G": {"A": "none", "B": "none"}, "L": {"A": "local", "B": "none"}, "P": {"A": "none", "B": "none"}},
    "MEM_RES": {"G": "global", "L": "private", "P": "private"},
    "ORDER_OCL": {"G": {"i": 1, "j": 0, "k": 2}, "L": {"i": 1, "j": 0, "k": 2}},
    "BUF_ORDER": {"G": {"A": [0, 1], "B": [0, 1]}, "L": {"A": [1, 0], "B": [0, 1]}, "P": {"A": [0, 1], "B": [0, 1]}},
    "LOOP_ORDER": {"G": ["i", "j", "k"], "L": ["i", "j", "k"], "P": ["k", "i", "j"]}, "CMB_RES": "P"})");
  const KernelConfig from_nested = config_from_json(bound, nested);
  EXPECT_EQ(config_to_json(bound, from_nested).dump(), config_to_json(bound, c).dump());
  json ordinals = config_to_json(bound, c);
  ordinals.erase("mdh_config");
  ordinals["MEM_INP_L_A"] = 2;    // Memory::Local
  ordinals["MEM_RES_P"] = 1;      // Memory::Private
  ordinals["CMB_RES"] = 2;        // Layer::Private
  ordinals["LOOP_ORDER_P"] = 4;   // rank of (k, i, j)
  ordinals["BUF_ORDER_L_A"] = 1;  // rank of (1, 0)
  EXPECT_EQ(config_from_json(bound, ordinals), c);
}

TEST(KernelConfig, AMissingFamilyTakesItsNeutralValue) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  const KernelConfig c = default_config(bound, small_gpu());
  json j = config_to_json(bound, c);
  for (const char* family : {"MEM_INP_L_A", "MEM_INP_P_B", "BUF_ORDER_L_A", "MEM_RES_L", "CMB_RES"}) j.erase(family);
  EXPECT_EQ(config_from_json(bound, j), c);
  j.erase("NUM_WG_i");  // sizes have no neutral value
  EXPECT_EQ(error_of(bound, j), "error: config: missing 'NUM_WG_i'");
}

// Families without a typed field keep their values in family_values: read by name with the neutral value where the
// md_hom has no such member, named by label, and a misspelt label is our bug, not a value never taken.
TEST(KernelConfig, FamilyValuesAreReadByNameAndLabel) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  KernelConfig c = config_frame(bound);
  EXPECT_EQ(c.value_or("WG_SWIZZLE", 0, 7), 1);  // i: a `++` dimension, at its neutral value
  EXPECT_EQ(c.value_or("WG_SWIZZLE", 2, 7), 7);  // k: a reduction has none
  EXPECT_EQ(label_of(c, "F_INLINE"), "");        // f without a loop: no such member
  set_label(c, "F_INLINE", "unrolled");
  EXPECT_EQ(label_of(c, "F_INLINE"), "unrolled");
  EXPECT_TRUE(has_label(c, "F_INLINE", "unrolled"));
  EXPECT_FALSE(has_label(c, "F_INLINE", "call"));
  EXPECT_THROW(has_label(c, "F_INLINE", "inlined"), InternalError);
  EXPECT_THROW(set_label(c, "INLINE_MATH", "fast"), InternalError);
}

TEST(KernelConfig, MalformedConfigsAreUserErrors) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  const json good = config_to_json(bound, default_config(bound, small_gpu()));
  EXPECT_EQ(error_of(bound, json::array()),
            "error: config: expected a JSON object with one entry per tuning parameter");
  json j = good;
  j["UNROLL_A"] = 4;
  EXPECT_EQ(error_of(bound, j), "error: config: unknown parameter 'UNROLL_A' (mdh space lists the parameters)");
  j = good;
  j["mdh_config"] = 3;
  EXPECT_EQ(error_of(bound, j), "error: config: written in format version 3, newer than this mdh reads (2)");
  j = good;
  j["PT_SIZE_k"] = "four";
  EXPECT_EQ(error_of(bound, j), "error: config: PT_SIZE_k: expected an integer, got \"four\"");
  j = good;
  j["NUM_WG_i"] = 0;
  EXPECT_EQ(error_of(bound, j), "error: config: NUM_WG_i: 0 is outside its range [1, 8]");
  j = good;
  j["MEM_INP_L_A"] = "shared";
  EXPECT_EQ(error_of(bound, j), "error: config: MEM_INP_L_A: unknown value \"shared\" (expected none, local)");
  j = good;
  j["LOOP_ORDER_P"] = {"i", "i", "k"};
  EXPECT_EQ(error_of(bound, j),
            "error: config: LOOP_ORDER_P: expected a permutation of i, j, k, got [\"i\",\"i\",\"k\"]");
  j = good;
  j["LOOP_ORDER_P"] = {"i", "q", "k"};
  EXPECT_EQ(error_of(bound, j), "error: config: LOOP_ORDER_P: '\"q\"' is not one of i, j, k");
  j = good;
  j["BUF_ORDER_L_B"] = {0, 2};
  EXPECT_EQ(error_of(bound, j), "error: config: BUF_ORDER_L_B: '2' is not one of 0, 1");
  j = good;
  j["ORDER_OCL_G_j"] = 3;
  EXPECT_EQ(error_of(bound, j), "error: config: ORDER_OCL_G_j: 3 is outside its range [0, 2]");
  // Issue 15 item 10: integers beyond 32 or 63 bits are reported as written, never wrapped around.
  j = good;
  j["ORDER_OCL_G_i"] = 4294967297ull;
  EXPECT_EQ(error_of(bound, j), "error: config: ORDER_OCL_G_i: 4294967297 is outside its range [0, 2]");
  j = good;
  j["BUF_ORDER_L_B"] = {4294967296ull, 1};
  EXPECT_EQ(error_of(bound, j), "error: config: BUF_ORDER_L_B: '4294967296' is not one of 0, 1");
  j = good;
  j["LT_SIZE_i"] = 18446744073709551615ull;
  EXPECT_EQ(error_of(bound, j), "error: config: LT_SIZE_i: expected an integer, got 18446744073709551615");
  j = good;
  j["LOOP_ORDER_P"] = 18446744073709551615ull;
  EXPECT_EQ(error_of(bound, j), "error: config: LOOP_ORDER_P: permutation rank 18446744073709551615 is out of range");
  j = good;
  j["CMB_RES"] = "X";
  EXPECT_EQ(error_of(bound, j), "error: config: CMB_RES: unknown value \"X\" (expected P, L, G)");
  // The version-1 form keeps its own checks of the global layer.
  json nested = json::parse(R"({"MEM_INP": {"G": {"A": "local"}}})");
  EXPECT_EQ(error_of(bound, nested),
            "error: config: MEM_INP.G.A: the global layer reads inputs through (only \"none\" is supported)");
  nested = json::parse(R"({"NUM_WG": {"x": 1}})");
  EXPECT_EQ(error_of(bound, nested), "error: config: NUM_WG: unknown key 'x' (expected i, j, k)");
}

TEST(KernelConfig, CheckConfigNamesTheViolatedConstraint) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  KernelConfig c = default_config(bound, small_gpu());
  c.private_tile_size[0] = 8;
  c.local_tile_size[0] = 4;
  c.num_wi[0] = 1;
  c.num_wg[0] = 2;
  try {
    check_config(bound, c, small_gpu());
    FAIL() << "accepted PT_SIZE > LT_SIZE";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "error: config: violates PT_SIZE_i <= LT_SIZE_i (PT_SIZE_i = 8, LT_SIZE_i = 4)");
  }
  c = default_config(bound, small_gpu());
  c.input_memory[0][1] = Memory::Local;
  try {
    check_config(bound, c, small_gpu());
    FAIL() << "accepted caching on the global layer";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: config: MEM_INP.G.B: the global layer reads inputs through (only \"none\" is supported)");
  }
  c = default_config(bound, small_gpu());
  c.num_wi = {16, 16, 2};
  c.local_tile_size = {8, 8, 8};
  c.private_tile_size = {1, 1, 1};
  EXPECT_THROW(check_config(bound, c, small_gpu()), UserError);  // NUM_WI_i > ceil(LT/PT) and 512 > 256
}

// DOUBLE_BUFFER needs a local cache; whether the sizes give a tile loop to pipeline is not a constraint, so the
// GPU default of GEMM 1024^3 stays valid at 1000^3 (the tuned-results store takes the nearest size's), where the k
// loop is pipelined too: its edge tiles load the next tile guarded.
TEST(KernelConfig, DoubleBufferNeedsALocalCacheButNoParticularSize) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=1024,J=1024,K=1024");
  KernelConfig c = default_config(bound, h200_device_limits());
  ASSERT_EQ(c.double_buffer, DoubleBuffer::on);
  const BoundMdh other = bind_app("apps/gemm.mdh", "I=1000,J=1000,K=1000");
  const KernelConfig moved = config_from_json(other, config_to_json(bound, c));
  EXPECT_NO_THROW(check_config(other, moved, h200_device_limits()));
  EXPECT_EQ(tunable_geometry(other, moved).prefetch_dimension, 2);  // 1000 = 7 x 128 + 104: edge tiles
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::None, Memory::None};
  c.cache_dim_order[static_cast<int>(Layer::Local)][0] = {0, 1};  // an order needs a cache
  try {
    check_config(bound, c, h200_device_limits());
    ADD_FAILURE() << "DOUBLE_BUFFER without a local cache accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 92),
              "error: config: violates DOUBLE_BUFFER = off unless MEM_INP_L_A + MEM_INP_L_B >= 1 (DOUBLE_BU");
  }
}

TEST(KernelConfig, AccessNamesDistinguishRepeatedBuffers) {
  const auto mdh = parse_spec(
      "md_hom sq\nsize N\ninput x : float[N]\noutput r : float[1]\n"
      "view (k < N) : x[k], x[k] -> r[0]\nscalar (a, b) = a * b\ncombine (+)\n",
      "sq.mdh");
  EXPECT_EQ(input_access_name(*mdh, 0), "x@a");
  EXPECT_EQ(input_access_name(*mdh, 1), "x@b");
}

}  // namespace
}  // namespace mdh
