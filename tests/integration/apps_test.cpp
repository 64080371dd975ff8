// Every shipped app, run through the reference kernel on the default device (PoCL here), against an
// independent C++ reference written from the workload definitions. Small sizes, sizes with prime extents.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "codegen/reference_kernel.h"
#include "mdh/parser.h"
#include "pipeline/md_hom_run.h"
#include "runtime/device.h"
#include "runtime/prl_data.h"
#include "runtime/verify_result.h"
#include "tests/integration/independent_references.h"

namespace mdh {
namespace {

std::string app_path(const std::string& name) {
  return std::string(MDH_SOURCE_DIR) + "/apps/" + name;
}

Context& shared_context() {
  static Context context(select_device(""));
  return context;
}

std::vector<float> floats(const HostBuffer& b) {
  std::vector<float> out(b.element_count());
  std::memcpy(out.data(), b.bytes.data(), out.size() * sizeof(float));
  return out;
}

/// The values of a half or bfloat16 buffer, decoded here from their bit patterns (IEEE binary16; the upper half of a
/// float) rather than through the runtime's conversions.
std::vector<float> decoded(const HostBuffer& b) {
  std::vector<uint16_t> bits(b.element_count());
  std::memcpy(bits.data(), b.bytes.data(), bits.size() * sizeof(uint16_t));
  std::vector<float> out;
  for (uint16_t v : bits) {
    if (b.type.scalar == ScalarType::Bfloat16) {
      const uint32_t word = uint32_t{v} << 16;
      float f;
      std::memcpy(&f, &word, sizeof f);
      out.push_back(f);
      continue;
    }
    const int exponent = (v >> 10) & 0x1f, fraction = v & 0x3ff;
    EXPECT_NE(exponent, 0x1f) << "random inputs in [0, 1) are finite";
    const double magnitude =
        exponent == 0 ? std::ldexp(fraction, -24) : std::ldexp(1024 + fraction, exponent - 25);  // subnormal: f 2^-24
    out.push_back(static_cast<float>(v >> 15 ? -magnitude : magnitude));
  }
  return out;
}

std::vector<double> doubles(const HostBuffer& b) {
  std::vector<double> out(b.element_count());
  std::memcpy(out.data(), b.bytes.data(), out.size() * sizeof(double));
  return out;
}

/// Elementwise check with the tolerance of runtime/verify_result.h: |x - ref| <= tol * (|ref| + max |ref|).
void expect_close(const std::vector<double>& actual, const std::vector<double>& expected, double tol,
                  const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double magnitude = 0;
  for (double e : expected) magnitude = std::max(magnitude, std::fabs(e));
  int64_t bad = 0;
  for (size_t k = 0; k < actual.size(); ++k) {
    if (std::fabs(actual[k] - expected[k]) <= tol * (std::fabs(expected[k]) + magnitude)) continue;
    if (++bad <= 5) ADD_FAILURE() << what << ": element " << k << " is " << actual[k] << ", expected " << expected[k];
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << actual.size() << " elements outside tolerance " << tol;
}

/// Runs the app's reference kernel (spec types) and the double-precision reference, checks both against the
/// independent result.
using Independent = std::function<std::vector<double>(const MdHomRun&)>;
void check_app(const std::string& spec, const std::string& sizes, const Independent& independent) {
  SCOPED_TRACE(spec + " " + sizes);
  auto mdh = parse_spec_file(app_path(spec));
  BoundMdh bound = bind(mdh, parse_size_binding(sizes));
  MdHomRun run(shared_context(), bound, {}, {}, 7);
  const std::vector<double> expected = independent(run);

  run.run(generate_reference_kernel(bound, PreambleOptions{}), 0, 1);
  std::vector<float> out = floats(run.read_output());
  expect_close(std::vector<double>(out.begin(), out.end()), expected,
               result_tolerance(ScalarType::Float, bound.reduction_size()), "float reference kernel");

  ASSERT_TRUE(run.reference_in_double()) << "PoCL supports fp64; the verifying reference must use it";
  expect_close(doubles(run.reference_output()), expected, 1e-12, "double reference kernel");
}

TEST(Apps, Dot) {
  for (const char* sizes : {"K=1000", "K=1"})
    check_app("dot.mdh", sizes,
              [](const MdHomRun& r) { return test::dot_reference(floats(r.input("x")), floats(r.input("y"))); });
}

TEST(Apps, Gemv) {
  for (auto [sizes, I, K] : {std::tuple{"I=64,K=48", 64, 48}, std::tuple{"I=13,K=7", 13, 7}})
    check_app("gemv.mdh", sizes, [I = I, K = K](const MdHomRun& r) {
      return test::gemv_reference(floats(r.input("A")), floats(r.input("x")), I, K);
    });
}

TEST(Apps, Gemm) {
  for (auto [sizes, I, J, K] : {std::tuple{"I=32,J=24,K=16", 32, 24, 16}, std::tuple{"I=13,J=7,K=11", 13, 7, 11},
                                std::tuple{"I=10,J=500,K=64", 10, 500, 64}})
    check_app("gemm.mdh", sizes, [I = I, J = J, K = K](const MdHomRun& r) {
      return test::gemm_reference(floats(r.input("A")), floats(r.input("B")), I, J, K, false);
    });
}

TEST(Apps, GemmNt) {
  for (auto [sizes, I, J, K] : {std::tuple{"I=32,J=24,K=16", 32, 24, 16}, std::tuple{"I=5,J=3,K=17", 5, 3, 17}})
    check_app("gemm_nt.mdh", sizes, [I = I, J = J, K = K](const MdHomRun& r) {
      return test::gemm_reference(floats(r.input("A")), floats(r.input("B")), I, J, K, true);
    });
}

// Inputs stored in 2 bytes, products and sums in float.
TEST(Apps, GemmOfHalfAndBfloat16Inputs) {
  for (const char* spec : {"gemm_half.mdh", "gemm_bfloat16.mdh"})
    for (auto [sizes, I, J, K] : {std::tuple{"I=32,J=24,K=16", 32, 24, 16}, std::tuple{"I=13,J=7,K=11", 13, 7, 11}})
      check_app(spec, sizes, [I = I, J = J, K = K](const MdHomRun& r) {
        return test::gemm_reference(decoded(r.input("A")), decoded(r.input("B")), I, J, K, false);
      });
}

TEST(Apps, Gaussian) {
  for (auto [sizes, I, J] : {std::tuple{"I=32,J=40", 32, 40}, std::tuple{"I=7,J=13", 7, 13}})
    check_app("gaussian.mdh", sizes,
              [I = I, J = J](const MdHomRun& r) { return test::gaussian_reference(floats(r.input("img")), I, J); });
}

TEST(Apps, Jacobi3d) {
  for (auto [sizes, I, J, K] : {std::tuple{"I=16,J=12,K=8", 16, 12, 8}, std::tuple{"I=5,J=3,K=7", 5, 3, 7}})
    check_app("jacobi3d.mdh", sizes, [I = I, J = J, K = K](const MdHomRun& r) {
      return test::jacobi3d_reference(floats(r.input("a")), I, J, K);
    });
}

TEST(Apps, Mcc) {
  check_app("mcc.mdh", "N=1,P=7,Q=7,K=16,C=8,R=3,S=3", [](const MdHomRun& r) {
    return test::mcc_reference(floats(r.input("I")), floats(r.input("F")), 1, 7, 7, 16, 8, 3, 3);
  });
  check_app("mcc.mdh", "N=2,P=5,Q=3,K=7,C=3,R=2,S=3", [](const MdHomRun& r) {
    return test::mcc_reference(floats(r.input("I")), floats(r.input("F")), 2, 5, 3, 7, 3, 2, 3);
  });
}

TEST(Apps, TensorContractions) {
  for (const char* name :
       {"abcdef-gdab-efgc", "abcdef-gdac-efgb", "abcdef-gdbc-efga", "abcdef-geab-dfgc", "abcdef-geac-dfgb",
        "abcdef-gebc-dfga", "abcdef-gfab-degc", "abcdef-gfac-degb", "abcdef-gfbc-dega"}) {
    const std::vector<int64_t> extents{3, 2, 5, 4, 3, 2, 7};
    check_app(std::string("tc/") + name + ".mdh", "A=3,B=2,C=5,D=4,E=3,F=2,G=7", [&](const MdHomRun& r) {
      return test::contraction_reference(name, floats(r.input("TA")), floats(r.input("TB")), extents);
    });
  }
}

// Both PRL specs against the independent reference, which computes the weights per pair in double from freq:
// apps/prl.mdh takes freq, apps/prl_weights.mdh the weight tables computed from it.
void check_prl(const std::string& spec) {
  for (auto [n, m] : {std::pair{64, 200}, std::pair{13, 101}}) {
    SCOPED_TRACE(spec + " N=" + std::to_string(n) + " M=" + std::to_string(m));
    auto mdh = parse_spec_file(app_path(spec));
    BoundMdh bound = bind(mdh, parse_size_binding("N=" + std::to_string(n) + ",M=" + std::to_string(m)));
    PrlData data = make_prl_data(bound, 3);
    std::vector<uint8_t> a(data.a.bytes.begin(), data.a.bytes.end()), b(data.b.bytes.begin(), data.b.bytes.end());
    const std::vector<float> freq = generate_prl_records(n, m, 3).freq;
    std::map<std::string, HostBuffer> inputs;
    for (HostBuffer* buffer : data.buffers()) inputs.emplace(buffer->name, *buffer);
    MdHomRun run(shared_context(), bound, inputs, {}, 7);
    run.run(generate_reference_kernel(bound, PreambleOptions{}), 0, 1);
    HostBuffer out = run.read_output();
    ASSERT_EQ(out.element_size, 8u);
    auto expected = test::prl_reference(a, b, freq);
    int links = 0;
    for (int i = 0; i < n; ++i) {
      float weight;
      int32_t index;
      std::memcpy(&weight, &out.bytes[i * 8], 4);
      std::memcpy(&index, &out.bytes[i * 8 + 4], 4);
      const double tol = 1e-4 * (std::fabs(expected[i].weight) + 1);
      EXPECT_NEAR(weight, expected[i].weight, tol) << "record " << i;
      ASSERT_GE(index, 0) << "record " << i;
      ASSERT_LT(index, m) << "record " << i;
      // A different index is right only for a tie within float rounding.
      if (index != expected[i].index) {
        EXPECT_NEAR(test::prl_pair_weight(a, b, freq, i, index), expected[i].weight, tol) << "record " << i;
      }
      links += expected[i].weight >= 15;
    }
    EXPECT_GT(links, 0) << "the generator plants near-duplicates, so some best matches must be at least possible "
                           "links (w >= 15)";
  }
}

TEST(Apps, Prl) {
  check_prl("prl.mdh");
}

TEST(Apps, PrlWeights) {
  check_prl("prl_weights.mdh");
}

}  // namespace
}  // namespace mdh
