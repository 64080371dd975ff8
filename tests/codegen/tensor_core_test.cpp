// The tensor-core kernel shape (codegen/tensor_core.h): which md_homs have it, which families their spaces hold,
// and the inline PTX it emits for NVIDIA's driver, which no PoCL run compiles.
#include "codegen/tensor_core.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/default_config.h"
#include "codegen/parameter_families.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh::testing {
namespace {

std::vector<std::string> names(const BoundMdh& bound, const std::vector<int>& dims) {
  std::vector<std::string> out;
  for (int d : dims) out.push_back(bound.mdh->dims[d].name);
  return out;
}

TEST(TensorCore, MatrixProductsGetRolesOthersNone) {
  const BoundMdh gemm = bind_app("apps/gemm.mdh", "I=64,J=32,K=16");
  const auto roles = tensor_core_roles(gemm);
  ASSERT_TRUE(roles);
  EXPECT_EQ(names(gemm, roles->m_dims), std::vector<std::string>{"i"});
  EXPECT_EQ(names(gemm, roles->n_dims), std::vector<std::string>{"j"});
  EXPECT_EQ(names(gemm, roles->k_dims), std::vector<std::string>{"k"});
  EXPECT_FALSE(roles->a_k_major);  // A[i][k]: its unit stride moves with K
  EXPECT_TRUE(roles->b_k_major);   // B[k][j]: with N
  EXPECT_EQ(roles->a_vector, 4);
  // MCC: an implicit GEMM over the affine input index p+r; K in A's order, c (unit stride) last.
  const BoundMdh mcc = bind_app("apps/mcc.mdh", "N=1,P=7,Q=7,K=8,C=8,R=3,S=3");
  const auto conv = tensor_core_roles(mcc);
  ASSERT_TRUE(conv);
  EXPECT_EQ(names(mcc, conv->m_dims), (std::vector<std::string>{"n", "p", "q"}));
  EXPECT_EQ(names(mcc, conv->n_dims), std::vector<std::string>{"k"});
  EXPECT_EQ(names(mcc, conv->k_dims), (std::vector<std::string>{"r", "s", "c"}));
  // A contraction whose output is the larger buffer: N in the output's order (f, its unit stride, last).
  const BoundMdh tc = bind_app("apps/tc/abcdef-gdab-efgc.mdh", "A=4,B=4,C=4,D=4,E=4,F=4,G=4");
  EXPECT_EQ(names(tc, tensor_core_roles(tc)->n_dims), (std::vector<std::string>{"c", "e", "f"}));
  for (const char* app : {"apps/gemv.mdh", "apps/dot.mdh", "apps/prl.mdh", "apps/gaussian.mdh"}) {
    const std::string sizes = std::string(app) == "apps/gemv.mdh"       ? "I=8,K=8"
                              : std::string(app) == "apps/dot.mdh"      ? "K=8"
                              : std::string(app) == "apps/gaussian.mdh" ? "I=8,J=8"
                                                                        : "N=8,M=8";
    EXPECT_FALSE(tensor_core_roles(bind_app(app, sizes))) << app;
  }
}

// An md_hom's space holds the families of its shape only: the fp32 space no tensor-core parameter, the TF32 space
// nothing else.
TEST(TensorCore, SpacesHoldTheFamiliesOfTheirShape) {
  BoundMdh gemm = bind_app("apps/gemm.mdh", "I=64,J=32,K=16");
  const DeviceLimits h200 = h200_device_limits();
  for (const TuningParameter& p : make_tuning_space(gemm, h200).parameters)
    EXPECT_NE(p.name.rfind("MMA_", 0), 0u) << p.name;
  gemm.precision = ComputePrecision::tf32;
  const TuningSpace space = make_tuning_space(gemm, h200);
  EXPECT_FALSE(space.parameters.empty());
  for (const TuningParameter& p : space.parameters) EXPECT_EQ(p.name.rfind("MMA_", 0), 0u) << p.name;
}

// Under NVIDIA's driver the kernel multiplies with mma.sync on 32-bit registers ("r") and rounds with cvt.rna:
// the exact asm text, since only a GPU build would catch a wrong constraint.
TEST(TensorCore, NvidiaKernelMultipliesWithInlinePtx) {
  BoundMdh gemm = bind_app("apps/gemm.mdh", "I=64,J=32,K=16");
  gemm.precision = ComputePrecision::tf32;
  const DeviceLimits h200 = h200_device_limits();
  const std::string source = generate_tunable_kernel(gemm, default_config(gemm, h200), h200).source;
  EXPECT_NE(source.find("asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(mma_r) : \"f\"(mma_x));"), std::string::npos);
  EXPECT_NE(source.find("asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\""),
            std::string::npos);
  EXPECT_NE(source.find(": \"r\"(as_uint(mma_fa[mma_fm][0])), \"r\"(as_uint(mma_fa[mma_fm][1])), "
                        "\"r\"(as_uint(mma_fa[mma_fm][2])), \"r\"(as_uint(mma_fa[mma_fm][3])), "
                        "\"r\"(as_uint(mma_fb[mma_fn][0])), \"r\"(as_uint(mma_fb[mma_fn][1])));"),
            std::string::npos)
      << source;
  EXPECT_EQ(source.find("mma_mma("), std::string::npos);  // no exchange through local memory
  const DeviceLimits pocl = first_device_limits();
  const std::string portable = generate_tunable_kernel(gemm, default_config(gemm, pocl), pocl).source;
  EXPECT_EQ(portable.find("asm"), std::string::npos);
  EXPECT_NE(portable.find("mma_mma("), std::string::npos);
}

// Half and bfloat16 inputs of one type take the tensor-core kernel with m16n8k16 fragments of their type: their tiles
// load through vload_half or the bfloat16 widening, one cell at a time and never asynchronously, blocks of K are whole
// fragments of 16 steps read one step at a time, and a half or bfloat16 C rounds on its store, also after the splits'
// combine. The exact asm text, since only a GPU build would catch a wrong constraint. Mixed inputs keep the tile
// kernel.
TEST(TensorCore, HalfAndBfloat16InputsLoadAndStoreAsStored) {
  const auto gemm = [](const std::string& a, const std::string& b, const std::string& c) {
    BoundMdh bound =
        bind_spec_text("md_hom g\nsize I J K\ninput A : " + a + "[I][K]\ninput B : " + b + "[K][J]\noutput C : " + c +
                           "[I][J]\nview (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]\n"
                           "scalar (x, y) = x * y\ncombine (++, ++, +)\n",
                       "g.mdh", "I=64,J=32,K=512");
    bound.precision = ComputePrecision::tf32;
    return bound;
  };
  EXPECT_FALSE(tensor_core_roles(gemm("half", "bfloat16", "float")));
  EXPECT_FALSE(tensor_core_roles(gemm("half", "float", "float")));
  const DeviceLimits h200 = h200_device_limits();
  const BoundMdh half = gemm("half", "half", "half");
  const auto roles = tensor_core_roles(half);
  ASSERT_TRUE(roles);
  EXPECT_FALSE(roles->stored_as_computed);
  EXPECT_EQ(roles->a_vector, 1);
  EXPECT_EQ(roles->b_vector, 1);
  KernelConfig config = default_config(half, h200);
  config.family_values[{"MMA_SPLIT_K", 0}] = 2;
  EXPECT_NO_THROW(check_config(half, config, h200));
  const std::string source = generate_tunable_kernel(half, config, h200).source;
  EXPECT_NE(source.find("__global const half* restrict A"), std::string::npos) << source;
  EXPECT_NE(source.find("mma_v = vload_half("), std::string::npos) << source;
  EXPECT_NE(source.find("vstore_half_rte(mma_sum, "), std::string::npos) << source;
  EXPECT_NE(source.find("asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\""),
            std::string::npos)
      << source;
  EXPECT_NE(source.find(": \"r\"(mma_pack(mma_fa[mma_fm][0], mma_fa[mma_fm][1])), \"r\"(mma_pack(mma_fa[mma_fm][2], "
                        "mma_fa[mma_fm][3])), \"r\"(mma_pack(mma_fa[mma_fm][4], mma_fa[mma_fm][5])), "
                        "\"r\"(mma_pack(mma_fa[mma_fm][6], mma_fa[mma_fm][7])), \"r\"(mma_pack(mma_fb[mma_fn][0], "
                        "mma_fb[mma_fn][1])), \"r\"(mma_pack(mma_fb[mma_fn][2], mma_fb[mma_fn][3])));"),
            std::string::npos);
  EXPECT_NE(source.find("asm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(mma_r) : \"f\"(mma_high), \"f\"(mma_low));"),
            std::string::npos);
  EXPECT_NE(source.find("mma_fa[mma_fm][6] = mma_a_tile[MMA_A_TILE_AT(mma_row + 8, mma_ks + 2*mma_t + 8)];"),
            std::string::npos);
  EXPECT_NE(source.find("mma_fb[mma_fn][3] = mma_b_tile[MMA_B_TILE_AT(mma_column, mma_ks + 2*mma_t + 9)];"),
            std::string::npos);
  EXPECT_EQ(source.find("m16n8k8"), std::string::npos);
  const auto invalid = [&](const char* family, int64_t value) {
    KernelConfig changed = config;
    changed.family_values[{family, 0}] = value;
    if (std::string(family) == "MMA_STAGES") changed.family_values[{"MMA_PREFETCH", 0}] = 0;
    EXPECT_THROW(check_config(half, changed, h200), UserError) << family << " " << value;
  };
  invalid("MMA_STAGES", 2);
  invalid("MMA_BLOCK_K", 8);
  invalid("MMA_FRAGMENT_LOADS", 1);
  const BoundMdh bf16 = gemm("bfloat16", "bfloat16", "float");
  const std::string bf16_source = generate_tunable_kernel(bf16, default_config(bf16, h200), h200).source;
  EXPECT_NE(bf16_source.find("mma_v = mdh_bfloat16_to_float(A["), std::string::npos) << bf16_source;
  EXPECT_NE(bf16_source.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "), std::string::npos);
  EXPECT_NE(bf16_source.find("asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\""), std::string::npos);
  EXPECT_EQ(bf16_source.find("cp.async"), std::string::npos);
  // Elsewhere the warp's fragments meet in local memory, 384 floats per warp.
  const DeviceLimits pocl = first_device_limits();
  const std::string portable = generate_tunable_kernel(half, default_config(half, pocl), pocl).source;
  EXPECT_EQ(portable.find("asm"), std::string::npos);
  EXPECT_NE(portable.find("mma_mma16(mma_acc[mma_fm][mma_fn], mma_fa[mma_fm], mma_fb[mma_fn], mma_exchange + "
                          "mma_warp*384, mma_lane);"),
            std::string::npos);
}

// MMA_STAGES 3 under NVIDIA's driver: cp.async copies of 16 bytes (zero-filled past the extents), one group committed
// per reduction tile, a wait for all but the newest, fragments rounded as they are read; paired loads read a row's
// two reduction steps as one float2.
TEST(TensorCore, PipelinedTilesCopyAsynchronously) {
  BoundMdh gemm = bind_app("apps/gemm.mdh", "I=64,J=32,K=36");
  gemm.precision = ComputePrecision::tf32;
  const DeviceLimits h200 = h200_device_limits();
  KernelConfig config = default_config(gemm, h200);
  config.family_values[{"MMA_PREFETCH", 0}] = 0;
  config.family_values[{"MMA_STAGES", 0}] = 3;
  config.family_values[{"MMA_FRAGMENT_LOADS", 0}] = 1;
  EXPECT_NO_THROW(check_config(gemm, config, h200));
  const std::string source = generate_tunable_kernel(gemm, config, h200).source;
  EXPECT_NE(source.find("asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\" :: \"r\"(mma_target), "
                        "\"l\"(mma_source), \"r\"(mma_inside ? 16u : 0u));"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("asm volatile(\"cp.async.commit_group;\");"), std::string::npos);
  EXPECT_NE(source.find("asm volatile(\"cp.async.wait_group 1;\");"), std::string::npos);
  EXPECT_NE(source.find("mma_fa[mma_fm][0] = mma_tf32(mma_upper.s0);"), std::string::npos);
  EXPECT_NE(source.find("mma_fb[mma_fn][0] = mma_tf32(mma_b_tile[MMA_B_TILE_AT(mma_column, mma_ks + 2*mma_t)]);"),
            std::string::npos);
  // The same configuration elsewhere stores the cells itself.
  const DeviceLimits pocl = first_device_limits();
  EXPECT_EQ(generate_tunable_kernel(gemm, config, pocl).source.find("cp.async"), std::string::npos);
  // The ring replaces MMA_PREFETCH's registers: both at once are invalid.
  config.family_values[{"MMA_PREFETCH", 0}] = 1;
  EXPECT_THROW(check_config(gemm, config, h200), UserError);
}

// MMA_EPILOGUE staged: each warp's fragment rows go through local memory as float2 and come back one column per
// work-item, into C's layout. The default stages where C outweighs A and B (the contraction; GEMM with a short
// reduction), not where the inputs are the traffic.
TEST(TensorCore, StagedEpilogueStoresNeighbouringColumnsTogether) {
  BoundMdh tc = bind_app("apps/tc/abcdef-gdab-efgc.mdh", "A=4,B=4,C=4,D=4,E=4,F=4,G=4");
  tc.precision = ComputePrecision::tf32;
  const DeviceLimits h200 = h200_device_limits();
  const KernelConfig config = default_config(tc, h200);
  EXPECT_EQ(config.value("MMA_EPILOGUE"), 1);
  // At the experiments' size the tiles (128 x 128) and the staging share the 48 KiB of local memory.
  BoundMdh rw = bind_app("apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24");
  rw.precision = ComputePrecision::tf32;
  const KernelConfig rw_default = default_config(rw, h200);
  EXPECT_EQ(rw_default.value("MMA_EPILOGUE"), 1);
  EXPECT_EQ(rw_default.value("MMA_BLOCK_M") * rw_default.value("MMA_BLOCK_N"), 128 * 128);
  EXPECT_NO_THROW(check_config(rw, rw_default, h200));
  EXPECT_NE(generate_tunable_kernel(rw, rw_default, h200).source.find("__local float* mma_staging = mma_shared;"),
            std::string::npos);
  BoundMdh gemm = bind_app("apps/gemm.mdh", "I=64,J=32,K=64");  // C: 2,048 floats; A and B: 6,144
  gemm.precision = ComputePrecision::tf32;
  EXPECT_EQ(default_config(gemm, h200).value("MMA_EPILOGUE"), 0);
  EXPECT_NO_THROW(check_config(tc, config, h200));
  const std::string source = generate_tunable_kernel(tc, config, h200).source;
  EXPECT_NE(source.find("*(__local float2*)(mma_band + mma_g*MMA_STAGING_ROW + mma_column) = "
                        "(float2)(mma_acc[mma_fm][mma_fn][0], mma_acc[mma_fm][mma_fn][1]);"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("for (int mma_e = mma_lane; mma_e < 16*MMA_WARP_COLUMNS; mma_e += 32) {"), std::string::npos);
  EXPECT_NE(source.find("= mma_band[mma_in_row*MMA_STAGING_ROW + mma_in_column];"), std::string::npos);
}

}  // namespace
}  // namespace mdh::testing
