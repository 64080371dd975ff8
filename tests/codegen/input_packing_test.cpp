// PACK_INP: an input read from a copy whose dimensions put the index that moves with the output's unit-stride
// dimension innermost, made by a first kernel of the plan (codegen/input_packing.h). Where the family exists, what
// the plan holds, that packed kernels compute what the reference computes on PoCL (full and edge copies, inputs of
// rank 2 and 4, read through, cached and in vector lanes), and the scratch limit.
#include "codegen/input_packing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
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

// The first mismatch against the reference kernel on PoCL, "" where there is none.
std::string mismatch(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits) {
  return testing::mismatch_with_reference(bound, config, "-cl-opt-disable", limits, 11);
}

// Every member of PACK_INP set to moving_innermost.
KernelConfig packing_every_member(const BoundMdh& bound, KernelConfig config) {
  for (int a : find_family("PACK_INP")->members(bound)) set_label(config, "PACK_INP", "moving_innermost", a);
  return config;
}

TEST(InputPacking, ExistsWhereAnIndexMovingWithTheOutputsUnitStrideDimensionIsNotInnermost) {
  const auto members = [](const char* spec, const char* sizes) {
    return find_family("PACK_INP")->members(bind_app(spec, sizes));
  };
  EXPECT_EQ(members("apps/gemm_nt.mdh", "I=4,J=8,K=3"), std::vector<int>{1});              // B[j][k]
  EXPECT_EQ(members("apps/gemv.mdh", "I=8,K=4"), std::vector<int>{0});                     // A[i][k]
  EXPECT_EQ(members("apps/mcc.mdh", "N=1,P=2,Q=2,K=8,C=2,R=1,S=1"), std::vector<int>{1});  // F[k][r][s][c]
  EXPECT_EQ(members("apps/tc/abcdef-gdab-efgc.mdh", "A=2,B=2,C=2,D=2,E=2,F=2,G=2"), std::vector<int>{1});
  EXPECT_TRUE(members("apps/gemm.mdh", "I=4,J=8,K=3").empty());      // B[k][j]: already innermost
  EXPECT_TRUE(members("apps/dot.mdh", "K=16").empty());              // no `++` dimension
  EXPECT_TRUE(members("apps/jacobi3d.mdh", "I=4,J=4,K=4").empty());  // one buffer, several accesses
  EXPECT_TRUE(members("apps/gaussian.mdh", "I=8,J=8").empty());      // a window

  const BoundMdh mcc = bind_app("apps/mcc.mdh", "N=1,P=2,Q=2,K=8,C=2,R=1,S=1");
  EXPECT_EQ(packed_dimension_order(mcc, 1), (std::vector<int>{1, 2, 3, 0}));
  const BoundMdh gemv = bind_app("apps/gemv.mdh", "I=8,K=4");
  EXPECT_EQ(packed_dimension_order(gemv, 0), (std::vector<int>{1, 0}));
}

// Neutral: no copy (the golden kernels check that the plan is the one generated before the family existed). Packed: the
// copy kernel first, the input's copy a scratch buffer of its size, the main kernel reading the copy in the input's
// place, and the view it reads permuted.
TEST(InputPacking, APackedInputIsCopiedByAFirstKernelAndReadFromScratch) {
  const DeviceLimits limits = testing::first_device_vector_limits();
  const BoundMdh bound = bind_app("apps/gemm_nt.mdh", "I=32,J=64,K=24");
  KernelConfig spec = default_config(bound, testing::first_device_limits());
  set_label(spec, "PACK_INP", "spec", 1);
  EXPECT_FALSE(packs_any_input(bound, spec));
  const LaunchPlan neutral = generate_tunable_kernel(bound, spec, limits);
  EXPECT_EQ(neutral.source.find("mdh_pack_"), std::string::npos);
  EXPECT_EQ(neutral.kernels[0].kernel_name, "gemm_nt_tunable");

  const KernelConfig packed = packing_every_member(bound, spec);
  const LaunchPlan plan = generate_tunable_kernel(bound, packed, limits);
  ASSERT_GE(plan.kernels.size(), 2u);
  EXPECT_EQ(plan.kernels[0].kernel_name, "mdh_pack_B");
  ASSERT_EQ(plan.kernels[0].args.size(), 2u);
  EXPECT_EQ(plan.kernels[0].args[0], (KernelArg{KernelArg::Kind::Buffer, "B", -1}));
  const int scratch = plan.kernels[0].args[1].scratch;
  ASSERT_EQ(plan.kernels[0].args[1].kind, KernelArg::Kind::Scratch);
  EXPECT_EQ(plan.scratch[static_cast<size_t>(scratch)].bytes, bound.byte_size(1));
  for (size_t k = 1; k < plan.kernels.size(); ++k)
    for (const KernelArg& arg : plan.kernels[k].args)
      EXPECT_FALSE(arg.kind == KernelArg::Kind::Buffer && arg.name == "B");
  EXPECT_NE(plan.source.find("__kernel void mdh_pack_B("), std::string::npos);
  EXPECT_NE(plan.source.find("//   PACK_INP: read from copies with the index moving with the output's unit-stride "
                             "dimension last: B (mdh_pack_B)"),
            std::string::npos);

  const BoundMdh view = packed_view(bound, packed);
  EXPECT_EQ(view.buffer_extents[1], (std::vector<int64_t>{24, 64}));
  EXPECT_EQ(view.inputs[1].indices[1].coefficient, (std::vector<int64_t>{0, 1, 0}));  // j innermost
  EXPECT_EQ(view.mdh->buffers[1].name, "B");
}

// Packed kernels verify: the default configuration and random valid configurations of the space (caches, vector
// copies, edge tiles) with every PACK_INP member packed, at sizes with full and edge copy squares, inputs of rank 2
// (GEMM_NT's B, GEMV's A) and 4 (MCC's filter, a contraction's second input).
TEST(InputPacking, PackedKernelsMatchTheReference) {
  const DeviceLimits limits = testing::first_device_limits();
  struct Case {
    const char* spec;
    const char* sizes;
  };
  for (const Case& m : {Case{"apps/gemm_nt.mdh", "I=16,J=64,K=32"}, Case{"apps/gemm_nt.mdh", "I=9,J=37,K=21"},
                        Case{"apps/gemv.mdh", "I=48,K=19"}, Case{"apps/mcc.mdh", "N=1,P=3,Q=2,K=20,C=17,R=2,S=2"},
                        Case{"apps/tc/abcdef-gdab-efgc.mdh", "A=3,B=2,C=17,D=2,E=3,F=2,G=18"}}) {
    SCOPED_TRACE(std::string(m.spec) + " " + m.sizes);
    const BoundMdh bound = bind_app(m.spec, m.sizes);
    ASSERT_FALSE(find_family("PACK_INP")->members(bound).empty());
    EXPECT_EQ(mismatch(bound, packing_every_member(bound, default_config(bound, limits)), limits), "");
    EXPECT_EQ(mismatch(bound, packing_every_member(bound, default_config(bound, testing::first_device_vector_limits())),
                       limits),
              "");
  }
  testing::PropertyCase contraction{"contraction4",
                                    "contraction4.mdh",
                                    "md_hom contraction4\nsize A B C D\ninput X : float[A][C][D]\n"
                                    "input Y : float[D][B][C]\noutput Z : float[A][B]\n"
                                    "view (a < A, b < B, c < C, d < D) : X[a][c][d], Y[d][b][c] -> Z[a][b]\n"
                                    "scalar (x, y) = x * y\ncombine (++, ++, +, +)\n",
                                    {"A=3,B=18,C=2,D=5"}};
  for (const testing::PropertyCase& c :
       {testing::PropertyCase{"gemm_nt", "apps/gemm_nt.mdh", "", {"I=5,J=19,K=17"}},
        testing::PropertyCase{"mcc", "apps/mcc.mdh", "", {"N=1,P=2,Q=3,K=18,C=3,R=2,S=1"}}, contraction})
    testing::for_each_property_configuration(c, 6, 20261203,
                                             [&](const BoundMdh& bound, size_t, int index, const KernelConfig& config) {
                                               SCOPED_TRACE(c.name + " configuration #" + std::to_string(index));
                                               const KernelConfig packed = packing_every_member(bound, config);
                                               ASSERT_TRUE(packs_any_input(bound, packed));
                                               ASSERT_NO_THROW(check_config(bound, packed, limits));
                                               EXPECT_EQ(mismatch(bound, packed, limits), "");
                                             });
}

// The copy is a scratch buffer of the input's size: a device whose largest allocation is smaller refuses packing
// and keeps the spec's layout.
TEST(InputPacking, TheCopyFitsTheDevicesLargestAllocation) {
  const BoundMdh bound = bind_app("apps/gemm_nt.mdh", "I=16,J=64,K=32");
  DeviceLimits limits = testing::first_device_limits();
  limits.max_alloc_bytes = bound.byte_size(1) - 1;
  const KernelConfig spec = default_config(bound, limits);
  const KernelConfig packed = packing_every_member(bound, spec);
  EXPECT_NO_THROW(check_config(bound, spec, limits));
  try {
    check_config(bound, packed, limits);
    ADD_FAILURE() << "a copy larger than the largest allocation was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("packed copy bytes 8192"), std::string::npos) << e.what();
  }
  limits.max_alloc_bytes = bound.byte_size(1);
  EXPECT_NO_THROW(check_config(bound, packed, limits));
}

// The CPU default packs an input that many work-groups reread where its register tile then computes vector lanes
// (GEMM_NT: B read as GEMM reads it), and leaves an input that one work-group reads (GEMV's A) as it is; GPU
// defaults never pack.
TEST(InputPacking, TheCpuDefaultPacksRereadInputsForVectorLanes) {
  const BoundMdh gemm_nt = bind_app("apps/gemm_nt.mdh", "I=256,J=256,K=256");
  const KernelConfig cpu = default_config(gemm_nt, testing::first_device_vector_limits());
  EXPECT_TRUE(packs_input(cpu, 1));
  EXPECT_GT(cpu.vector_lanes, 1);
  EXPECT_FALSE(packs_any_input(gemm_nt, default_config(gemm_nt, testing::h200_device_limits())));
  const BoundMdh gemv = bind_app("apps/gemv.mdh", "I=4096,K=4096");
  EXPECT_FALSE(packs_any_input(gemv, default_config(gemv, testing::first_device_vector_limits())));
}

}  // namespace
}  // namespace mdh
