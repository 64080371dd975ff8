// md_hom_signature: the identity under which tuned configurations are stored. Layout, comments and flops/bytes do not
// change it; every declaration that changes the kernel or the meaning of a configuration does.
#include "mdh/signature.h"

#include <gtest/gtest.h>

#include "mdh/parser.h"

namespace mdh {
namespace {

constexpr const char* kGemm =
    "md_hom gemm\n"
    "size I J K\n"
    "input A : float[I][K]\n"
    "input B : float[K][J]\n"
    "output C : float[I][J]\n"
    "view (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]\n"
    "scalar (a, b) = a * b\n"
    "combine (++, ++, +)\n";

std::string signature_of(const std::string& text) {
  return md_hom_signature(*parse_spec(text, "test.mdh"));
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(Signature, PinnedForTheShippedGemm) {
  // Stored in result files (tuned/*/*.json, "md_hom_signature"): a change here makes every stored result of every
  // md_hom unusable until scripts/sign_tuned_results.py signs them again.
  EXPECT_EQ(md_hom_signature(*parse_spec_file(MDH_SOURCE_DIR "/apps/gemm.mdh")), "5d290faf13a78a9d");
  EXPECT_EQ(signature_of(kGemm), "5d290faf13a78a9d");
}

TEST(Signature, LayoutCommentsPathAndFlopsDoNotCount) {
  const std::string base = signature_of(kGemm);
  EXPECT_EQ(signature_of(std::string("# a comment\n") + kGemm), base);
  EXPECT_EQ(signature_of(with(kGemm, "A[i][k], B[k][j]", "A[ i ][ k ],   B[k][j]")), base);
  EXPECT_EQ(signature_of(with(kGemm, "a * b", "a  *\tb")), base);
  EXPECT_EQ(signature_of(std::string(kGemm) + "flops 2*I*J*K\nbytes 4*(I*K + K*J + I*J)\n"), base);
  EXPECT_EQ(md_hom_signature(*parse_spec(kGemm, "elsewhere/other-name.mdh")), base);
}

TEST(Signature, EveryDeclarationThatShapesTheKernelCounts) {
  const std::string base = signature_of(kGemm);
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"md_hom gemm", "md_hom gemm2"},                      // the name
      {"input A : float[I][K]", "input A : double[I][K]"},  // a buffer's type
      {"scalar (a, b) = a * b", "scalar (a, b) = a + b"},   // the scalar function
      {"combine (++, ++, +)", "combine (++, ++, max)"},     // a combine operator
      {"A[i][k], B[k][j]", "B[k][j], A[i][k]"},             // the order of the inputs
  };
  for (const auto& [from, to] : changes) EXPECT_NE(signature_of(with(kGemm, from, to)), base) << to;
}

TEST(Signature, WindowsAndUserOperatorsCount) {
  const std::string gaussian = signature_of(
      "md_hom g\nsize I J\ninput img : float[I+4][J+4]\noutput out : float[I][J]\n"
      "view (i < I, j < J) : img[i + 0..4][j + 0..4] -> out[i][j]\nscalar (w) = w(0, 0)\ncombine (++, ++)\n");
  const std::string narrower = signature_of(
      "md_hom g\nsize I J\ninput img : float[I+4][J+4]\noutput out : float[I][J]\n"
      "view (i < I, j < J) : img[i + 0..2][j + 0..4] -> out[i][j]\nscalar (w) = w(0, 0)\ncombine (++, ++)\n");
  EXPECT_NE(gaussian, narrower);
  const std::string with_operator = std::string(kGemm).replace(std::string(kGemm).find("combine (++, ++, +)"), 19,
                                                               "combine (++, ++, plus)\n"
                                                               "operator plus(float p, float q) = p + q identity 0.0f");
  const std::string other_identity = with(with_operator, "identity 0.0f", "identity 1.0f");
  EXPECT_NE(signature_of(with_operator), signature_of(other_identity));
  EXPECT_NE(signature_of(with_operator), signature_of(kGemm));
}

}  // namespace
}  // namespace mdh
