// Every shipped spec parses, verifies and binds at its real-world size from workloads.md.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <ostream>

#include "mdh/bind.h"
#include "mdh/parser.h"

namespace mdh {
namespace {

std::string app(const std::string& name) {
  return std::string(MDH_SOURCE_DIR) + "/apps/" + name;
}

struct AppCase {
  const char* file;
  const char* sizes;
  double flops;  // expected `flops` at these sizes
  double bytes;  // expected `bytes` at these sizes: every buffer moved once
};

// Test lists name a case by its spec and sizes, not by the struct's bytes.
void PrintTo(const AppCase& c, std::ostream* out) {
  *out << c.file << " at " << c.sizes;
}

// "tc/abcdef-gdab-efgc.mdh" -> "tc_abcdef_gdab_efgc": the part of the test name after the slash.
std::string case_name(const ::testing::TestParamInfo<AppCase>& info) {
  std::string name = info.param.file;
  name = name.substr(0, name.size() - std::string(".mdh").size());
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

class AppTest : public ::testing::TestWithParam<AppCase> {};

// Every spec declares both, so that every benchmark row has a limit (FP32 peak or copy bandwidth, issue 12).
TEST_P(AppTest, ParsesAndBindsAtRealWorldSize) {
  const AppCase& c = GetParam();
  auto mdh = parse_spec_file(app(c.file));
  BoundMdh bound = bind(mdh, parse_size_binding(c.sizes));
  ASSERT_TRUE(bound.flops.has_value());
  EXPECT_DOUBLE_EQ(*bound.flops, c.flops);
  ASSERT_TRUE(bound.bytes.has_value());
  EXPECT_DOUBLE_EQ(*bound.bytes, c.bytes);
}

constexpr double kTcFlopsDab = 2.0 * 24 * 16 * 16 * 16 * 24 * 16 * 24;
constexpr double kTcFlopsEab = 2.0 * 24 * 16 * 16 * 24 * 16 * 16 * 24;
// Dab sizes: A=24,B=16,C=16,D=16,E=24,F=16,G=24; output A*B*C*D*E*F = 24*16*16*16*24*16.
constexpr double kTcOutputDab = 24.0 * 16 * 16 * 16 * 24 * 16;
constexpr double kTcOutputEab = 24.0 * 16 * 16 * 24 * 16 * 16;
const char* const kTcSizesDab = "A=24,B=16,C=16,D=16,E=24,F=16,G=24";
const char* const kTcSizesEab = "A=24,B=16,C=16,D=24,E=16,F=16,G=24";
/// The bytes of a contraction: its two 4-dimensional inputs (extents as products) and the output, 4 bytes each.
constexpr double tc_bytes(double ta, double tb, double tc) {
  return 4.0 * (ta + tb + tc);
}

INSTANTIATE_TEST_SUITE_P(
    Apps, AppTest,
    ::testing::Values(
        AppCase{"dot.mdh", "K=16777216", 2.0 * 16777216, 8.0 * 16777216 + 4},
        AppCase{"gemv.mdh", "I=1000,K=2048", 2.0 * 1000 * 2048, 4.0 * (1000 * 2048 + 2048 + 1000)},
        AppCase{"gemm.mdh", "I=10,J=500,K=64", 2.0 * 10 * 500 * 64, 4.0 * (10 * 64 + 64 * 500 + 10 * 500)},
        AppCase{"gemm_nt.mdh", "I=10,J=500,K=64", 2.0 * 10 * 500 * 64, 4.0 * (10 * 64 + 64 * 500 + 10 * 500)},
        // 2-byte inputs, a float output.
        AppCase{"gemm_half.mdh", "I=10,J=500,K=64", 2.0 * 10 * 500 * 64, 2.0 * (10 * 64 + 64 * 500) + 4.0 * 10 * 500},
        AppCase{"gemm_bfloat16.mdh", "I=10,J=500,K=64", 2.0 * 10 * 500 * 64,
                2.0 * (10 * 64 + 64 * 500) + 4.0 * 10 * 500},
        AppCase{"gaussian.mdh", "I=224,J=224", 50.0 * 224 * 224, 4.0 * (228 * 228 + 224 * 224)},
        AppCase{"jacobi3d.mdh", "I=256,J=256,K=256", 13.0 * 256 * 256 * 256,
                4.0 * (258.0 * 258 * 258 + 256.0 * 256 * 256)},
        AppCase{"mcc.mdh", "N=1,P=7,Q=7,K=512,C=512,R=3,S=3", 2.0 * 49 * 512 * 512 * 9,
                4.0 * (9 * 9 * 512 + 512 * 9 * 512 + 49 * 512)},
        AppCase{"prl.mdh", "N=32768,M=1024", 42.0 * 32768 * 1024, 14.0 * 32768 + 14 * 1024 + 4 * 14 * 256 + 8 * 32768},
        AppCase{"prl_weights.mdh", "N=32768,M=1024", 14.0 * 32768 * 1024,
                14.0 * 32768 + 14 * 1024 + 2 * 4 * 14 * 256 + 8 * 32768},
        // tc_bytes(TA, TB, TC): the products of the extents each file declares for its buffers.
        AppCase{"tc/abcdef-gdab-efgc.mdh", kTcSizesDab, kTcFlopsDab,
                tc_bytes(24 * 16 * 24 * 16, 24 * 16 * 24 * 16, kTcOutputDab)},
        AppCase{"tc/abcdef-gdac-efgb.mdh", kTcSizesDab, kTcFlopsDab,
                tc_bytes(24 * 16 * 24 * 16, 24 * 16 * 24 * 16, kTcOutputDab)},
        AppCase{"tc/abcdef-gdbc-efga.mdh", kTcSizesDab, kTcFlopsDab,
                tc_bytes(24 * 16 * 16 * 16, 24 * 16 * 24 * 24, kTcOutputDab)},
        AppCase{"tc/abcdef-geab-dfgc.mdh", kTcSizesEab, kTcFlopsEab,
                tc_bytes(24 * 16 * 24 * 16, 24 * 16 * 24 * 16, kTcOutputEab)},
        AppCase{"tc/abcdef-geac-dfgb.mdh", kTcSizesEab, kTcFlopsEab,
                tc_bytes(24 * 16 * 24 * 16, 24 * 16 * 24 * 16, kTcOutputEab)},
        AppCase{"tc/abcdef-gebc-dfga.mdh", kTcSizesEab, kTcFlopsEab,
                tc_bytes(24 * 16 * 16 * 16, 24 * 16 * 24 * 24, kTcOutputEab)},
        AppCase{"tc/abcdef-gfab-degc.mdh", kTcSizesEab, kTcFlopsEab,
                tc_bytes(24 * 16 * 24 * 16, 24 * 16 * 24 * 16, kTcOutputEab)},
        AppCase{"tc/abcdef-gfac-degb.mdh", kTcSizesEab, kTcFlopsEab,
                tc_bytes(24 * 16 * 24 * 16, 24 * 16 * 24 * 16, kTcOutputEab)},
        AppCase{"tc/abcdef-gfbc-dega.mdh", kTcSizesEab, kTcFlopsEab,
                tc_bytes(24 * 16 * 16 * 16, 24 * 16 * 24 * 24, kTcOutputEab)}),
    case_name);

TEST(Apps, EveryShippedSpecIsCovered) {
  int specs = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(app("")))
    if (entry.path().extension() == ".mdh") ++specs;
  EXPECT_EQ(specs, 20);
}

TEST(Apps, PrlReadsAsTheIssueWritesIt) {
  auto m = parse_spec_file(app("prl.mdh"));
  ASSERT_EQ(m->operators.size(), 1u);
  const UserOperator& op = m->operators[0];
  EXPECT_EQ(op.name, "best_of");
  EXPECT_EQ(op.lhs_name, "p");
  EXPECT_EQ(op.rhs_name, "q");
  EXPECT_TRUE(op.is_expression);
  EXPECT_EQ(op.body.text, "(q.weight > p.weight || (q.weight == p.weight && q.index < p.index)) ? q : p");
  EXPECT_EQ(op.identity.text, "(match){-INFINITY, -1}");
  EXPECT_EQ(op.body.loc.line, 23);
  EXPECT_EQ(op.body.loc.col, 38);
  EXPECT_EQ(m->dims[1].combine.kind, CombineOp::Kind::User);
  EXPECT_EQ(m->buffers[m->find_buffer("freq")].kind, BufferKind::Table);
  ASSERT_EQ(m->helpers.size(), 1u);
  EXPECT_EQ(m->helpers[0].loc.line, 10);
  EXPECT_EQ(m->helpers[0].loc.col, 9);
  EXPECT_NE(m->scalar.body.text.find("match r; r.weight = w; r.index = j;"), std::string::npos);
  EXPECT_FALSE(m->scalar.is_expression);
  EXPECT_EQ(m->scalar.body.loc.line, 14);
}

TEST(Apps, GaussianWindowAndBody) {
  auto m = parse_spec_file(app("gaussian.mdh"));
  ASSERT_EQ(m->inputs.size(), 1u);
  EXPECT_TRUE(m->inputs[0].has_window());
  const AffineIndex& i = m->inputs[0].indices[0];
  EXPECT_EQ(i.text, "i + 0..4");
  ASSERT_TRUE(i.window.has_value());
  EXPECT_EQ(i.window->lo.to_string(), "0");
  EXPECT_EQ(i.window->hi.to_string(), "4");
  EXPECT_EQ(m->scalar.body.text.substr(0, 3), "\n  ");
  EXPECT_EQ(m->scalar.body.text.back(), '\n');
  EXPECT_NE(m->scalar.body.text.find("return s / 159.0f;"), std::string::npos);
}

}  // namespace
}  // namespace mdh
