// verify_result: the documented tolerance, just inside and just outside, integers, NaN, structs, the report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "mdh/parser.h"
#include "runtime/verify_result.h"

namespace mdh {
namespace {

template <class T>
HostBuffer buffer_from(const std::vector<T>& values, ScalarType type, std::vector<int64_t> extents = {}) {
  HostBuffer b;
  b.name = "out";
  b.type = ElementType{type, ""};
  b.element_size = sizeof(T);
  b.extents = extents.empty() ? std::vector<int64_t>{static_cast<int64_t>(values.size())} : extents;
  b.bytes.resize(values.size() * sizeof(T));
  std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
  return b;
}

const Mdh kNoStructs;

TEST(Tolerance, DocumentedFormula) {
  EXPECT_EQ(machine_epsilon(ScalarType::Float), std::ldexp(1.0, -23));
  EXPECT_EQ(machine_epsilon(ScalarType::Double), std::ldexp(1.0, -52));
  EXPECT_EQ(machine_epsilon(ScalarType::Int), 0.0);
  EXPECT_EQ(result_tolerance(ScalarType::Float, 1), std::ldexp(1.0, -16));  // 16 * 2^-23 * sqrt(64)
  EXPECT_EQ(result_tolerance(ScalarType::Float, 64), std::ldexp(1.0, -16));
  EXPECT_EQ(result_tolerance(ScalarType::Float, 1024), std::ldexp(1.0, -14));  // 16 * 2^-23 * 32
  EXPECT_EQ(result_tolerance(ScalarType::Double, 4096), std::ldexp(1.0, -42));
}

// Half and bfloat16 compute in float and round once to their storage: float's term plus 2u = 2^-fraction bits.
TEST(Tolerance, StorageTypesAddOneUnitInTheLastPlace) {
  EXPECT_EQ(storage_rounding_tolerance(ScalarType::Half), std::ldexp(1.0, -10));
  EXPECT_EQ(storage_rounding_tolerance(ScalarType::Bfloat16), std::ldexp(1.0, -7));
  EXPECT_EQ(storage_rounding_tolerance(ScalarType::Float), 0.0);
  EXPECT_EQ(storage_rounding_tolerance(ScalarType::Int), 0.0);
  EXPECT_EQ(result_tolerance(ScalarType::Half, 1), std::ldexp(1.0, -16) + std::ldexp(1.0, -10));
  EXPECT_EQ(result_tolerance(ScalarType::Bfloat16, 1024), std::ldexp(1.0, -14) + std::ldexp(1.0, -7));
  EXPECT_EQ(result_tolerance(ScalarType::Half, 64, ComputePrecision::tf32),
            std::ldexp(1.0, -16) + std::ldexp(1.0, -7) + std::ldexp(1.0, -10));
}

// A half output against the double reference: 1 + 2^-10 (the next half above 1) passes against 1 + 2^-11 and fails
// against 1 - 2^-9 (bound (2^-16 + 2^-10) * 2 at M = 1, R = 1).
TEST(VerifyResult, HalfAndBfloat16OutputsAgainstDouble) {
  const std::vector<uint16_t> half_out = {0x3c01, 0x3c01};  // 1 + 2^-10 twice
  HostBuffer out = buffer_from<uint16_t>(half_out, ScalarType::Half);
  const VerifyReport pass =
      verify_result(out, buffer_from<double>({1.0 + 0x1p-11, 1.0}, ScalarType::Double), kNoStructs, 1);
  EXPECT_TRUE(pass.passed) << pass.summary();
  EXPECT_EQ(pass.max_abs_error, std::ldexp(1.0, -10));
  const VerifyReport fail =
      verify_result(out, buffer_from<double>({1.0, 1.0 - 0x1p-9 - 0x1p-10}, ScalarType::Double), kNoStructs, 1);
  EXPECT_FALSE(fail.passed);
  EXPECT_EQ(fail.mismatches, 1);
  ASSERT_EQ(fail.first_mismatches.size(), 1u);
  EXPECT_EQ(fail.first_mismatches[0].element, 1);
  EXPECT_EQ(fail.first_mismatches[0].value, "1.00097656");
  // bfloat16: 0x3f81 is 1 + 2^-7, within (2^-16 + 2^-7) * 2 of 1.005 but not of 0.98.
  HostBuffer b = buffer_from<uint16_t>({0x3f81, 0x3f81}, ScalarType::Bfloat16);
  EXPECT_TRUE(verify_result(b, buffer_from<double>({1.005, 1.0}, ScalarType::Double), kNoStructs, 1).passed);
  EXPECT_FALSE(verify_result(b, buffer_from<double>({1.0, 0.98}, ScalarType::Double), kNoStructs, 1).passed);
}

TEST(VerifyResult, FloatAgainstDoubleJustInsideAndJustOutside) {
  // R = 1: tol = 2^-16; ref = 1 everywhere, so M = 1 and the bound is 2^-16 * (1 + 1) = 2^-15.
  HostBuffer ref = buffer_from<double>({1.0, 1.0}, ScalarType::Double);
  float inside = 1.0f + std::ldexp(1.0f, -15);                           // error exactly 2^-15
  float outside = 1.0f + std::ldexp(1.0f, -15) + std::ldexp(1.0f, -23);  // 2^-15 + 2^-23 > 2^-15
  VerifyReport pass = verify_result(buffer_from<float>({inside, 1.0f}, ScalarType::Float), ref, kNoStructs, 1);
  EXPECT_TRUE(pass.passed);
  EXPECT_EQ(pass.mismatches, 0);
  EXPECT_EQ(pass.max_abs_error, std::ldexp(1.0, -15));
  EXPECT_EQ(pass.tolerance, std::ldexp(1.0, -16));
  VerifyReport fail = verify_result(buffer_from<float>({1.0f, outside}, ScalarType::Float), ref, kNoStructs, 1);
  EXPECT_FALSE(fail.passed);
  EXPECT_EQ(fail.mismatches, 1);
  ASSERT_EQ(fail.first_mismatches.size(), 1u);
  EXPECT_EQ(fail.first_mismatches[0].element, 1);
  EXPECT_EQ(fail.first_mismatches[0].position, "[1]");
}

TEST(VerifyResult, APrecisionTermWidensTheFloatBound) {
  // R = 1 and M = 1 as above, TF32's term added: the bound is (2^-16 + 2^-7) * (1 + 1), exactly a float above 1.
  HostBuffer ref = buffer_from<double>({1.0, 1.0}, ScalarType::Double);
  const float inside = 1.0f + std::ldexp(1.0f, -15) + std::ldexp(1.0f, -6);
  const float outside = std::nextafter(inside, 2.0f);
  EXPECT_EQ(product_rounding_tolerance(ComputePrecision::tf32), std::ldexp(1.0, -7));
  VerifyReport pass = verify_result(buffer_from<float>({inside, 1.0f}, ScalarType::Float), ref, kNoStructs, 1, 8,
                                    ComputePrecision::tf32);
  EXPECT_TRUE(pass.passed);
  EXPECT_EQ(pass.tolerance, std::ldexp(1.0, -16) + std::ldexp(1.0, -7));
  EXPECT_FALSE(verify_result(buffer_from<float>({inside, outside}, ScalarType::Float), ref, kNoStructs, 1, 8,
                             ComputePrecision::tf32)
                   .passed);
  EXPECT_FALSE(verify_result(buffer_from<float>({inside, 1.0f}, ScalarType::Float), ref, kNoStructs, 1).passed);
}

TEST(VerifyResult, DoubleBoundScalesWithTheLargestReference) {
  // R = 4096: tol = 2^-42 for double. M = 1024, so an element whose reference is 0 may be off by tol * M = 2^-32.
  HostBuffer ref = buffer_from<double>({0.0, 1024.0}, ScalarType::Double);
  const double tol = std::ldexp(1.0, -42);
  EXPECT_TRUE(
      verify_result(buffer_from<double>({1024 * tol, 1024.0}, ScalarType::Double), ref, kNoStructs, 4096).passed);
  EXPECT_FALSE(verify_result(buffer_from<double>({std::nextafter(1024 * tol, 1.0), 1024.0}, ScalarType::Double), ref,
                             kNoStructs, 4096)
                   .passed);
  // At 1024 the bound is tol * (1024 + M) = 2048 * 2^-42; ulp(1024) = 2^-42.
  EXPECT_TRUE(
      verify_result(buffer_from<double>({0.0, 1024.0 + 2048 * tol}, ScalarType::Double), ref, kNoStructs, 4096).passed);
  EXPECT_FALSE(
      verify_result(buffer_from<double>({0.0, 1024.0 + 2049 * tol}, ScalarType::Double), ref, kNoStructs, 4096).passed);
}

TEST(VerifyResult, IntegersAreExact) {
  HostBuffer ref = buffer_from<int32_t>({5, -7, 1000000}, ScalarType::Int);
  EXPECT_TRUE(verify_result(ref, ref, kNoStructs, 1 << 20).passed);
  VerifyReport r = verify_result(buffer_from<int32_t>({5, -7, 1000001}, ScalarType::Int), ref, kNoStructs, 1 << 20);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.max_abs_error, 1.0);
  EXPECT_EQ(r.max_rel_error, 1e-6);
  EXPECT_EQ(r.tolerance, 0.0);
  EXPECT_EQ(
      r.summary(),
      "FAIL: max abs error 1, max rel error 1e-06; 1 of 3 values outside the tolerance (integers compared exactly)\n"
      "  [2] = 1000001, reference 1000000");
  HostBuffer big = buffer_from<uint64_t>({UINT64_MAX}, ScalarType::Ulong);
  EXPECT_FALSE(verify_result(buffer_from<uint64_t>({UINT64_MAX - 1}, ScalarType::Ulong), big, kNoStructs, 1).passed);
}

TEST(VerifyResult, NanAndInfinity) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  HostBuffer ref = buffer_from<float>({nan, inf, 1.0f}, ScalarType::Float);
  EXPECT_TRUE(verify_result(buffer_from<float>({nan, inf, 1.0f}, ScalarType::Float), ref, kNoStructs, 1).passed);
  EXPECT_EQ(verify_result(buffer_from<float>({1.0f, inf, 1.0f}, ScalarType::Float), ref, kNoStructs, 1).mismatches, 1);
  EXPECT_EQ(verify_result(buffer_from<float>({nan, -inf, nan}, ScalarType::Float), ref, kNoStructs, 1).mismatches, 2);
}

// Outputs that pass take a fast path (the tuner checks 134 M values of Jacobi 3D 512^3): its report carries the same
// figures, and a NaN or infinity among finite references still goes to the general loop's report.
TEST(VerifyResult, APassingOutputsReportHasEveryFigure) {
  HostBuffer ref = buffer_from<double>({0.0, 2.0, -4.0}, ScalarType::Double);
  const float off = std::ldexp(1.0f, -20);
  VerifyReport pass =
      verify_result(buffer_from<float>({off, 2.0f, -4.0f - 4 * off}, ScalarType::Float), ref, kNoStructs, 1);
  EXPECT_TRUE(pass.passed);
  EXPECT_EQ(pass.compared, 3);
  EXPECT_EQ(pass.magnitude, 4.0);
  EXPECT_EQ(pass.max_abs_error, std::ldexp(1.0, -18));
  EXPECT_EQ(pass.max_rel_error, std::ldexp(1.0, -20));  // the zero reference has no relative error
  EXPECT_EQ(pass.tolerance, std::ldexp(1.0, -16));
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  VerifyReport fail = verify_result(buffer_from<float>({nan, inf, -4.0f}, ScalarType::Float), ref, kNoStructs, 1);
  EXPECT_FALSE(fail.passed);
  EXPECT_EQ(fail.mismatches, 2);
  ASSERT_EQ(fail.first_mismatches.size(), 2u);
  EXPECT_EQ(fail.first_mismatches[1].value, "inf");
}

// Non-finite outputs where the reference is finite are what failed: the report says so instead of reading as an
// output with no error at all.
TEST(VerifyResult, NonFiniteOutputsAreNamedInTheSummary) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  HostBuffer ref = buffer_from<double>({1.0, 2.0, 3.0, 4.0}, ScalarType::Double);
  VerifyReport report =
      verify_result(buffer_from<float>({nan, inf, 3.0f, 4.0f}, ScalarType::Float), ref, kNoStructs, 1);
  EXPECT_EQ(report.not_finite, 2);
  EXPECT_EQ(report.summary().substr(0, report.summary().find(" (|x")),
            "FAIL: max abs error of the finite values 0, max rel error 0; 2 of 4 values outside the tolerance, 2 of "
            "them NaN or infinite where the reference is not (or the reverse)");
  EXPECT_EQ(
      verify_result(buffer_from<float>({1.5f, 2.0f, 3.0f, 4.0f}, ScalarType::Float), ref, kNoStructs, 1).not_finite, 0);
}

TEST(VerifyResult, StructsFieldByField) {
  auto mdh = parse_spec(R"(md_hom best
size   N M
type   match { float weight; int index; }
input  x : float[M]
output best : match[N]
view   (i < N, j < M) : x[j] -> best[i]
scalar (v) { match m; m.weight = v; m.index = j; return m; }
operator best_of(match p, match q) = (q.weight > p.weight) ? q : p identity (match){-INFINITY, -1}
combine (++, best_of)
)",
                        "best.mdh");
  struct Match {
    float weight;
    int32_t index;
  };
  auto buffer = [](std::vector<Match> v) {
    HostBuffer b;
    b.name = "best";
    b.type = ElementType{ScalarType::Float, "match"};
    b.element_size = 8;
    b.extents = {2, 2};
    b.bytes.resize(32);
    std::memcpy(b.bytes.data(), v.data(), 32);
    return b;
  };
  HostBuffer ref = buffer({{1.0f, 3}, {2.0f, 4}, {0.5f, 5}, {4.0f, 6}});
  EXPECT_TRUE(verify_result(buffer({{1.0f + 1e-6f, 3}, {2.0f, 4}, {0.5f, 5}, {4.0f, 6}}), ref, *mdh, 100).passed);
  VerifyReport r = verify_result(buffer({{1.0f, 3}, {2.0f, 4}, {0.5f, 9}, {4.5f, 6}}), ref, *mdh, 100);
  EXPECT_EQ(r.compared, 8);
  EXPECT_EQ(r.mismatches, 2);
  ASSERT_EQ(r.first_mismatches.size(), 2u);
  EXPECT_EQ(r.first_mismatches[0].position, "[1][1].weight");
  EXPECT_EQ(r.first_mismatches[0].value, "4.5");
  EXPECT_EQ(r.first_mismatches[1].position, "[1][0].index");
  EXPECT_EQ(r.magnitude, 4.0);  // M of the weight field; integer fields need none
}

TEST(VerifyResult, ReportsOnlyTheFirstFewButCountsAll) {
  std::vector<float> ref(100, 1.0f), out(100, 2.0f);
  VerifyReport r = verify_result(buffer_from<float>(out, ScalarType::Float, {10, 10}),
                                 buffer_from<float>(ref, ScalarType::Float, {10, 10}), kNoStructs, 1, 3);
  EXPECT_EQ(r.mismatches, 100);
  ASSERT_EQ(r.first_mismatches.size(), 3u);
  EXPECT_EQ(r.first_mismatches[2].position, "[0][2]");
  EXPECT_EQ(r.summary(),
            "FAIL: max abs error 1, max rel error 1; 100 of 100 values outside the tolerance (|x - ref| <= 1.53e-05 * "
            "(|ref| + M), M = 1)\n"
            "  [0][0] = 2, reference 1\n  [0][1] = 2, reference 1\n  [0][2] = 2, reference 1\n  ... and 97 more");
}

}  // namespace
}  // namespace mdh
