#include "peers/openblas_coretype.h"

#include <gtest/gtest.h>

namespace mdh::peers {
namespace {

TEST(OpenblasCoretype, FallbackToPreAvxKernelsTakesTheKernelsOfTheCpusInstructionSets) {
  const CpuVectorFeatures avx512{true, true}, avx2{true, false}, neither{};
  EXPECT_EQ(coretype_for_fallback("Prescott", avx512), "SkylakeX");
  EXPECT_EQ(coretype_for_fallback("Nehalem", avx2), "Haswell");
  EXPECT_EQ(coretype_for_fallback("Core2", neither), std::nullopt);
}

TEST(OpenblasCoretype, KernelsOpenblasRecognisedAreKept) {
  const CpuVectorFeatures avx512{true, true};
  EXPECT_EQ(coretype_for_fallback("SkylakeX", avx512), std::nullopt);
  EXPECT_EQ(coretype_for_fallback("Haswell", avx512), std::nullopt);
  EXPECT_EQ(coretype_for_fallback("Zen", avx512), std::nullopt);
}

}  // namespace
}  // namespace mdh::peers
