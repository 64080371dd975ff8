// half and bfloat16 buffers end to end on the OpenCL test device (PoCL here): a GEMM and a 2-D stencil whose inputs
// and output are stored in them, run as the reference kernel and as tunable kernels of random valid configurations,
// each checked against a host reference in double that decodes the stored inputs from the formats' definitions
// (tunable_test_support.h decode_storage_bits), not with the conversions under test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ostream>
#include <string>

#include "codegen/default_config.h"
#include "codegen/reference_kernel.h"
#include "codegen/tunable_kernel.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh::testing {
namespace {

std::string gemm_spec(const std::string& type) {
  return "md_hom gemm_" + type +
         "\n"
         "size   I J K\n"
         "input  A : " +
         type + "[I][K]\n" + "input  B : " + type + "[K][J]\n" + "output C : " + type + "[I][J]\n" +
         "view   (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]\n"
         "scalar (a, b) = a * b\n"
         "combine (++, ++, +)\n";
}

// A 5-point stencil through a window: its accessor reads global memory or a cache, both in the storage type's
// compute type.
std::string stencil_spec(const std::string& type) {
  return "md_hom stencil_" + type +
         "\n"
         "size   I J\n"
         "input  X : " +
         type + "[I+2][J+2]\n" + "output Y : " + type + "[I][J]\n" +
         "view   (i < I, j < J) : X[i + 0..2][j + 0..2] -> Y[i][j]\n"
         "scalar (w) = 0.25f * (w(0, 1) + w(2, 1) + w(1, 0) + w(1, 2)) - 0.5f * w(1, 1)\n"
         "combine (++, ++)\n";
}

ScalarType scalar_of(const std::string& type) {
  return type == "half" ? ScalarType::Half : ScalarType::Bfloat16;
}

std::vector<double> decoded(ScalarType t, const Bytes& bytes) {
  std::vector<double> out(bytes.size() / 2);
  for (size_t k = 0; k < out.size(); ++k) {
    uint16_t bits;
    std::memcpy(&bits, bytes.data() + 2 * k, 2);
    out[k] = decode_storage_bits(t, bits);
  }
  return out;
}

std::vector<double> gemm_reference(const std::map<std::string, Bytes>& buffers, ScalarType t, int64_t I, int64_t J,
                                   int64_t K) {
  const std::vector<double> a = decoded(t, buffers.at("A")), b = decoded(t, buffers.at("B"));
  std::vector<double> c(static_cast<size_t>(I * J), 0.0);
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < J; ++j)
      for (int64_t k = 0; k < K; ++k) c[i * J + j] += a[i * K + k] * b[k * J + j];
  return c;
}

std::vector<double> stencil_reference(const std::map<std::string, Bytes>& buffers, ScalarType t, int64_t I, int64_t J) {
  const std::vector<double> x = decoded(t, buffers.at("X"));
  const int64_t row = J + 2;
  auto at = [&](int64_t i, int64_t j) { return x[i * row + j]; };
  std::vector<double> y(static_cast<size_t>(I * J));
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < J; ++j)
      y[i * J + j] =
          0.25 * (at(i, j + 1) + at(i + 2, j + 1) + at(i + 1, j) + at(i + 1, j + 2)) - 0.5 * at(i + 1, j + 1);
  return y;
}

// Every stored result within float's arithmetic plus one rounding to the storage type (half a unit in its last
// place) of the exact result; empty when all are, else the first that is not.
std::string check_against(const std::vector<double>& expected, ScalarType t, const Bytes& output, int64_t terms) {
  const std::vector<double> actual = decoded(t, output);
  if (actual.size() != expected.size()) return "output has " + std::to_string(actual.size()) + " elements";
  double magnitude = 0;
  for (double e : expected) magnitude = std::max(magnitude, std::fabs(e));
  const double arithmetic = 1e-6 * std::sqrt(static_cast<double>(std::max<int64_t>(terms, 64)));
  for (size_t k = 0; k < expected.size(); ++k) {
    const double rounding = std::ldexp(std::fabs(expected[k]), -(fraction_bits(t) + 1));
    if (!(std::fabs(actual[k] - expected[k]) <= rounding + arithmetic * (std::fabs(expected[k]) + magnitude)))
      return "element " + std::to_string(k) + ": expected " + std::to_string(expected[k]) + ", got " +
             std::to_string(actual[k]);
  }
  return "";
}

struct StorageCase {
  std::string type, kind;  // "half"/"bfloat16", "gemm"/"stencil"
  std::string sizes;
};

// How GoogleTest names a case in test lists and failures (instead of the struct's raw bytes).
void PrintTo(const StorageCase& c, std::ostream* out) {
  *out << c.kind << " in " << c.type << " at " << c.sizes;
}

class StorageTypes : public ::testing::TestWithParam<StorageCase> {};

TEST_P(StorageTypes, ReferenceAndTunableKernelsMatchAHostReferenceInDouble) {
  const StorageCase& c = GetParam();
  const ScalarType t = scalar_of(c.type);
  const bool gemm = c.kind == "gemm";
  const std::string text = gemm ? gemm_spec(c.type) : stencil_spec(c.type);
  const BoundMdh bound = bind_spec_text(text, c.kind + "_" + c.type + ".mdh", c.sizes);
  const std::map<std::string, Bytes> buffers = seeded_buffers(bound, 7);
  const auto& e = bound.dim_extents;
  const std::vector<double> expected =
      gemm ? gemm_reference(buffers, t, e[0], e[1], e[2]) : stencil_reference(buffers, t, e[0], e[1]);
  const int64_t terms = gemm ? e[2] : 5;

  const Bytes reference = reference_output(bound, buffers);
  EXPECT_EQ(check_against(expected, t, reference, terms), "") << "the reference kernel";

  const PropertyCase property{c.kind + "_" + c.type, c.kind + "_" + c.type + ".mdh", text, {c.sizes}};
  int checked = 0;
  // -cl-opt-disable: the same semantics in a third of PoCL's compile time, as the CI property tests build.
  for_each_property_configuration(property, 8, 11, [&](const BoundMdh& b, size_t, int index, const KernelConfig& k) {
    const RunResult run =
        run_plan_with_scratch(b, generate_tunable_kernel(b, k, first_device_limits()), buffers, "-cl-opt-disable");
    ASSERT_EQ(run.error, "") << "configuration #" << index;
    EXPECT_EQ(check_against(expected, t, run.output, terms), "") << "configuration #" << index;
    ++checked;
  });
  EXPECT_GT(checked, 0);
  if (!gemm) {
    // The window read straight from global memory, where f gets the address of the stored element (the random draws
    // above need not reach it; the GPU soak did).
    KernelConfig uncached = default_config(bound, first_device_limits());
    for (Layer l : {Layer::Local, Layer::Private}) uncached.input_memory[static_cast<int>(l)] = {Memory::None};
    const RunResult run = run_plan_with_scratch(bound, generate_tunable_kernel(bound, uncached, first_device_limits()),
                                                buffers, "-cl-opt-disable");
    ASSERT_EQ(run.error, "") << "the window in global memory";
    EXPECT_EQ(check_against(expected, t, run.output, terms), "") << "the window in global memory";
  }
}

INSTANTIATE_TEST_SUITE_P(
    HalfAndBfloat16, StorageTypes,
    ::testing::Values(StorageCase{"half", "gemm", "I=9,J=13,K=37"}, StorageCase{"bfloat16", "gemm", "I=16,J=8,K=64"},
                      StorageCase{"half", "stencil", "I=7,J=19"}, StorageCase{"bfloat16", "stencil", "I=12,J=5"}),
    [](const ::testing::TestParamInfo<StorageCase>& info) { return info.param.kind + "_" + info.param.type; });

// The kernels' stores round to nearest even: values halfway between two stored neighbours go to the even one, and
// the largest finite values and NaN keep their meaning. An element-wise md_hom copies chosen floats into half and
// bfloat16 buffers; the expected patterns are written out by hand.
TEST(StorageTypes, StoresRoundToNearestEven) {
  struct Rounding {
    std::string type;
    std::vector<float> values;
    std::vector<uint16_t> patterns;
  };
  const std::vector<Rounding> cases = {
      // 1 + 2^-11 is halfway between 1 (0x3c00, even) and 1 + 2^-10; 1 + 3*2^-11 rounds up to the even 0x3c02;
      // 65520 rounds to infinity; 2^-25 (half the smallest subnormal) to 0 and 3*2^-25 to 2^-23 (0x0002).
      {"half",
       {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65504.0f, 65520.0f, -2.0f, 0x1p-25f, 3 * 0x1p-25f, NAN},
       {0x3c00, 0x3c02, 0x7bff, 0x7c00, 0xc000, 0x0000, 0x0002, 0x7e00}},
      // 1 + 2^-8 is halfway between 1 (0x3f80) and 1 + 2^-7; 1 + 3*2^-8 rounds up to 0x3f82.
      {"bfloat16",
       {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, -2.0f, 0x1p-126f, INFINITY, NAN, 3.0f, 1.0f + 0x1p-8f + 0x1p-20f},
       {0x3f80, 0x3f82, 0xc000, 0x0080, 0x7f80, 0x7fc0, 0x4040, 0x3f81}},
  };
  for (const Rounding& r : cases) {
    const std::string text = "md_hom copy\nsize N\ninput x : float[N]\noutput y : " + r.type +
                             "[N]\nview (i < N) : x[i] -> y[i]\nscalar (v) = v\ncombine (++)\n";
    const BoundMdh bound = bind_spec_text(text, "copy.mdh", "N=" + std::to_string(r.values.size()));
    std::map<std::string, Bytes> buffers = seeded_buffers(bound, 1);
    buffers["x"].assign(reinterpret_cast<const unsigned char*>(r.values.data()),
                        reinterpret_cast<const unsigned char*>(r.values.data() + r.values.size()));
    const Bytes out = reference_output(bound, buffers);
    ASSERT_EQ(out.size(), 2 * r.patterns.size());
    for (size_t k = 0; k < r.patterns.size(); ++k) {
      uint16_t bits;
      std::memcpy(&bits, out.data() + 2 * k, 2);
      // Any quiet NaN pattern is a NaN; the kernels keep the sign and set the quiet bit.
      if (std::isnan(r.values[k]))
        EXPECT_TRUE(std::isnan(decode_storage_bits(scalar_of(r.type), bits))) << r.type << " value " << k;
      else
        EXPECT_EQ(bits, r.patterns[k]) << r.type << " value " << k << " (" << r.values[k] << ")";
    }
  }
}

}  // namespace
}  // namespace mdh::testing
