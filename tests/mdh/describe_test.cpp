// `mdh check` prints describe(): pinned for the GEMM and PRL specs, so changes to the summary are deliberate.
#include "mdh/describe.h"

#include <gtest/gtest.h>

#include "mdh/parser.h"

namespace mdh {
namespace {

TEST(Describe, Gemm) {
  auto m = parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/gemm.mdh");
  EXPECT_EQ(describe(*m),
            "md_hom gemm\n"
            "  sizes: I J K\n"
            "  dimensions:\n"
            "    i < I  combine ++\n"
            "    j < J  combine ++\n"
            "    k < K  combine +  (reduction)\n"
            "  buffers:\n"
            "    input  A : float[I][K]\n"
            "    input  B : float[K][J]\n"
            "    output C : float[I][J]\n"
            "  view:\n"
            "    A[i][k], B[k][j] -> C[i][j]\n"
            "  scalar: (a, b) -> float = a * b\n"
            "  flops: 2*I*J*K\n"
            "  bytes: 4*(I*K + K*J + I*J)\n");
}

// Buffers of half and bfloat16 say that they are storage, and f's result is the float it computes.
TEST(Describe, StorageTypes) {
  auto m = parse_spec(
      "md_hom mixed\nsize I K\ninput A : half[I][K]\ninput x : bfloat16[K]\noutput y : half[I]\n"
      "view (i < I, k < K) : A[i][k], x[k] -> y[i]\nscalar (a, b) = a * b\ncombine (++, +)\n",
      "mixed.mdh");
  EXPECT_EQ(describe(*m),
            "md_hom mixed\n"
            "  sizes: I K\n"
            "  dimensions:\n"
            "    i < I  combine ++\n"
            "    k < K  combine +  (reduction)\n"
            "  buffers:\n"
            "    input  A : half[I][K]  (stored; computed in float)\n"
            "    input  x : bfloat16[K]  (stored; computed in float)\n"
            "    output y : half[I]  (stored; computed in float)\n"
            "  view:\n"
            "    A[i][k], x[k] -> y[i]\n"
            "  scalar: (a, b) -> float = a * b\n");
  EXPECT_EQ(m->buffers[0].type.scalar, ScalarType::Half);
  EXPECT_EQ(m->buffers[1].type.scalar, ScalarType::Bfloat16);
  EXPECT_EQ(m->size_of(m->buffers[1].type), 2u);
  EXPECT_TRUE(is_storage_only(ScalarType::Half) && is_storage_only(ScalarType::Bfloat16));
  EXPECT_FALSE(is_storage_only(ScalarType::Float) || is_storage_only(ScalarType::Ushort));
  EXPECT_EQ(compute_type(ScalarType::Bfloat16), ScalarType::Float);
  EXPECT_STREQ(opencl_storage_name(ScalarType::Half), "half");
  EXPECT_STREQ(opencl_storage_name(ScalarType::Bfloat16), "ushort");
  EXPECT_EQ(fraction_bits(ScalarType::Half), 10);
  EXPECT_EQ(fraction_bits(ScalarType::Bfloat16), 7);
  // An operator of a half output takes float, the type it is combined in.
  EXPECT_NO_THROW(
      parse_spec("md_hom s\nsize N\ninput x : half[N]\noutput y : half[1]\n"
                 "operator plus(float p, float q) = p + q identity 0.0f\nview (i < N) : x[i] -> y[0]\nscalar (a) = a\n"
                 "combine (plus)\n",
                 "s.mdh"));
}

TEST(Describe, PrlWithStructsOperatorsParams) {
  auto m = parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/prl.mdh");
  EXPECT_EQ(describe(*m),
            "md_hom prl\n"
            "  sizes: N M\n"
            "  dimensions:\n"
            "    i < N  combine ++\n"
            "    j < M  combine best_of  (reduction)\n"
            "  buffers:\n"
            "    input  a : record[N]\n"
            "    input  b : record[M]\n"
            "    table  freq : float[14][256]\n"
            "    output best : match[N]\n"
            "  view:\n"
            "    a[i], b[j] -> best[i]\n"
            "  scalar: (x, y) -> match { ... }\n"
            "  types:\n"
            "    record (14 bytes, align 1): uchar field[14] @0;\n"
            "    match (8 bytes, align 4): float weight @0; int index @4;\n"
            "  operators:\n"
            "    best_of(match p, match q) identity (match){-INFINITY, -1}\n"
            "  helpers: 1 block\n"
            "  flops: 42*N*M\n"
            "  bytes: 14*N + 14*M + 4*14*256 + 8*N\n");
}

TEST(Describe, AccessText) {
  auto m = parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/mcc.mdh");
  EXPECT_EQ(access_text(*m, m->inputs[0]), "I[n][p+r][q+s][c]");
  EXPECT_EQ(access_text(*m, m->output), "O[n][p][q][k]");
}

}  // namespace
}  // namespace mdh
