// The reference kernel computes the md_hom: run on the device with small inputs, compared with plain C++ loops
// written here from the spec's meaning (an independent reference, not the generator's structure).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "codegen/reference_kernel.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/opencl_test_device.h"

namespace mdh {
namespace {

using testing::Bytes;
using testing::from_bytes;
using testing::to_bytes;

/// Small integers as floats: products and sums of them are exact, so results compare exactly.
std::vector<float> small_integers(size_t count, std::mt19937& rng, int lo = -4, int hi = 4) {
  std::uniform_int_distribution<int> value(lo, hi);
  std::vector<float> v(count);
  for (auto& x : v) x = static_cast<float>(value(rng));
  return v;
}

TEST(ReferenceKernelRun, GemmAtPrimeSizes) {
  const int I = 13, J = 7, K = 11;
  std::mt19937 rng(1);
  std::vector<float> A = small_integers(I * K, rng), B = small_integers(K * J, rng);
  std::map<std::string, Bytes> buffers = {{"A", to_bytes(A)}, {"B", to_bytes(B)}, {"C", Bytes(I * J * 4, 0xFF)}};
  testing::run_plan(generate_reference_kernel(testing::bind_app("apps/gemm.mdh", "I=13,J=7,K=11"), {}), buffers, {});
  std::vector<float> C = from_bytes<float>(buffers["C"]);
  for (int i = 0; i < I; ++i)
    for (int j = 0; j < J; ++j) {
      float expected = 0;
      for (int k = 0; k < K; ++k) expected += A[i * K + k] * B[k * J + j];
      ASSERT_EQ(C[i * J + j], expected) << "C[" << i << "][" << j << "]";
    }
}

TEST(ReferenceKernelRun, GemmNtAndDot) {
  std::mt19937 rng(2);
  {
    const int I = 5, J = 3, K = 7;
    std::vector<float> A = small_integers(I * K, rng), B = small_integers(J * K, rng);
    std::map<std::string, Bytes> buffers = {{"A", to_bytes(A)}, {"B", to_bytes(B)}, {"C", Bytes(I * J * 4)}};
    testing::run_plan(generate_reference_kernel(testing::bind_app("apps/gemm_nt.mdh", "I=5,J=3,K=7"), {}), buffers, {});
    std::vector<float> C = from_bytes<float>(buffers["C"]);
    for (int i = 0; i < I; ++i)
      for (int j = 0; j < J; ++j) {
        float expected = 0;
        for (int k = 0; k < K; ++k) expected += A[i * K + k] * B[j * K + k];
        ASSERT_EQ(C[i * J + j], expected) << "C[" << i << "][" << j << "]";
      }
  }
  {
    const int K = 1001;
    std::vector<float> x = small_integers(K, rng), y = small_integers(K, rng);
    std::map<std::string, Bytes> buffers = {{"x", to_bytes(x)}, {"y", to_bytes(y)}, {"r", Bytes(4)}};
    testing::run_plan(generate_reference_kernel(testing::bind_app("apps/dot.mdh", "K=1001"), {}), buffers, {});
    float expected = 0;
    for (int k = 0; k < K; ++k) expected += x[k] * y[k];
    EXPECT_EQ(from_bytes<float>(buffers["r"]).at(0), expected);
  }
}

TEST(ReferenceKernelRun, GaussianWindow) {
  const int I = 9, J = 6, W = J + 4;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  std::vector<float> img((I + 4) * W);
  for (auto& x : img) x = value(rng);
  const float weights[5][5] = {
      {2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
  for (bool promoted : {false, true}) {
    SCOPED_TRACE(promoted ? "promoted to double" : "float");
    if (promoted && !testing::device_has_fp64()) continue;
    std::vector<double> img_double(img.begin(), img.end());
    std::map<std::string, Bytes> buffers = {{"img", promoted ? to_bytes(img_double) : to_bytes(img)},
                                            {"out", Bytes(I * J * (promoted ? 8 : 4))}};
    LaunchPlan plan =
        generate_reference_kernel(testing::bind_app("apps/gaussian.mdh", "I=9,J=6"), PreambleOptions{promoted});
    testing::run_plan(plan, buffers, {});
    std::vector<double> out;
    if (promoted)
      out = from_bytes<double>(buffers["out"]);
    else
      for (float x : from_bytes<float>(buffers["out"])) out.push_back(x);
    for (int i = 0; i < I; ++i)
      for (int j = 0; j < J; ++j) {
        double expected = 0;
        for (int r = 0; r < 5; ++r)
          for (int c = 0; c < 5; ++c) expected += weights[r][c] * static_cast<double>(img[(i + r) * W + (j + c)]);
        expected /= 159.0;
        ASSERT_NEAR(out[i * J + j], expected, promoted ? 1e-12 : 1e-6) << "out[" << i << "][" << j << "]";
      }
  }
}

/// Two reduction dimensions with different operators, one of them a user operator that is associative but not
/// commutative, plus a param and a table: checks nesting (r outer, s inner), index order and argument passing.
TEST(ReferenceKernelRun, UserOperatorNestedReductionsParamAndTable) {
  const std::string spec =
      "md_hom last_sum\n"
      "size N R S\n"
      "param scale : int\n"
      "input x : int[N][R][S]\n"
      "table lut : int[2][4]\n"
      "output y : int[N]\n"
      "view (i < N, r < R, s < S) : x[i][r][s] -> y[i]\n"
      "operator last(int p, int q) = q == -1 ? p : q identity -1\n"
      "scalar (v) = v % 3 == 0 ? -1 : scale * v + lut[r % 2][s % 4] + 100 * s\n"
      "combine (++, +, last)\n";
  const int N = 5, R = 4, S = 7, scale = 3;
  const int lut[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> value(0, 9);
  std::vector<int> x(N * R * S);
  for (auto& v : x) v = value(rng);
  auto f = [&](int v, int r, int s) { return v % 3 == 0 ? -1 : scale * v + lut[r % 2][s % 4] + 100 * s; };
  auto last = [](int p, int q) { return q == -1 ? p : q; };

  for (bool swapped : {false, true}) {
    // swapped: combine (++, last, +), so r folds with `last` (outer) and s with `+` (inner).
    std::string text = spec;
    if (swapped) text.replace(text.find("combine (++, +, last)"), 21, "combine (++, last, +)");
    SCOPED_TRACE(swapped ? "(++, last, +)" : "(++, +, last)");
    std::map<std::string, Bytes> buffers = {
        {"x", to_bytes(x)}, {"lut", to_bytes(std::vector<int>(&lut[0][0], &lut[0][0] + 8))}, {"y", Bytes(N * 4)}};
    LaunchPlan plan = generate_reference_kernel(testing::bind_spec_text(text, "last_sum.mdh", "N=5,R=4,S=7"), {});
    testing::run_plan(plan, buffers, {{"scale", to_bytes(std::vector<int>{scale})}});
    std::vector<int> y = from_bytes<int>(buffers["y"]);
    for (int i = 0; i < N; ++i) {
      int outer = swapped ? -1 : 0;
      for (int r = 0; r < R; ++r) {
        int inner = swapped ? 0 : -1;
        for (int s = 0; s < S; ++s) {
          int v = f(x[(i * R + r) * S + s], r, s);
          inner = swapped ? inner + v : last(inner, v);
        }
        outer = swapped ? last(outer, inner) : outer + inner;
      }
      EXPECT_EQ(y[i], outer) << "y[" << i << "]";
    }
  }
}

/// Identities of max and min: a maximum over negative values, a minimum over large unsigned ones.
TEST(ReferenceKernelRun, BuiltinIdentitiesDoNotLeak) {
  auto spec = [](const std::string& type, const std::string& op) {
    return "md_hom red\nsize N K\ninput x : " + type + "[N][K]\noutput r : " + type +
           "[N]\nview (i < N, k < K) : x[i][k] -> r[i]\nscalar (a) = a\ncombine (++, " + op + ")\n";
  };
  {
    std::vector<float> x = {-5.5f, -2.25f, -7.0f, -1e30f, -3e30f, -2e30f};
    std::map<std::string, Bytes> buffers = {{"x", to_bytes(x)}, {"r", Bytes(8)}};
    testing::run_plan(generate_reference_kernel(testing::bind_spec_text(spec("float", "max"), "m.mdh", "N=2,K=3"), {}),
                      buffers, {});
    EXPECT_EQ(from_bytes<float>(buffers["r"]), (std::vector<float>{-2.25f, -1e30f}));
  }
  {
    std::vector<unsigned char> x = {250, 254, 251, 255, 255, 255};
    std::map<std::string, Bytes> buffers = {{"x", x}, {"r", Bytes(2)}};
    testing::run_plan(generate_reference_kernel(testing::bind_spec_text(spec("uchar", "min"), "m.mdh", "N=2,K=3"), {}),
                      buffers, {});
    EXPECT_EQ(buffers["r"], (Bytes{250, 255}));
  }
  {
    std::vector<int> x = {std::numeric_limits<int>::min(), -3, 4, -8};
    std::map<std::string, Bytes> buffers = {{"x", to_bytes(x)}, {"r", Bytes(8)}};
    testing::run_plan(generate_reference_kernel(testing::bind_spec_text(spec("int", "max"), "m.mdh", "N=2,K=2"), {}),
                      buffers, {});
    EXPECT_EQ(from_bytes<int>(buffers["r"]), (std::vector<int>{-3, 4}));
  }
}

/// PRL: structs by value, a table, a helper constant and the user operator best_of, against a direct C++
/// implementation of the SAC'19 weight in double.
TEST(ReferenceKernelRun, PrlBestMatch) {
  const int N = 6, M = 40, kFields = 14;
  const double m_prob[kFields] = {0.975, 0.975, 0.975, 0.975, 0.975, 0.975, 0.975,
                                  0.975, 0.975, 0.99,  0.99,  0.99,  0.999, 0.9};
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> field_value(0, 3);
  std::uniform_real_distribution<float> frequency(0.05f, 0.5f);
  std::vector<unsigned char> a(N * kFields), b(M * kFields);
  for (auto& v : a) v = static_cast<unsigned char>(field_value(rng));
  for (auto& v : b) v = static_cast<unsigned char>(field_value(rng));
  std::vector<float> freq(kFields * 256);
  for (auto& u : freq) u = frequency(rng);

  std::map<std::string, Bytes> buffers = {{"a", a}, {"b", b}, {"freq", to_bytes(freq)}, {"best", Bytes(N * 8)}};
  testing::run_plan(generate_reference_kernel(testing::bind_app("apps/prl.mdh", "N=6,M=40"), {}), buffers, {});
  struct Match {
    float weight;
    int index;
  };
  std::vector<Match> best = from_bytes<Match>(buffers["best"]);

  for (int i = 0; i < N; ++i) {
    std::vector<double> weight(M);
    for (int j = 0; j < M; ++j)
      for (int f = 0; f < kFields; ++f) {
        double u = freq[f * 256 + a[i * kFields + f]];
        weight[j] += a[i * kFields + f] == b[j * kFields + f] ? std::log(m_prob[f] / u)
                                                              : std::log((1.0 - m_prob[f]) / (1.0 - u));
      }
    int expected = 0;
    for (int j = 1; j < M; ++j)
      if (weight[j] > weight[expected]) expected = j;
    SCOPED_TRACE("record " + std::to_string(i));
    ASSERT_GE(best[i].index, 0);
    ASSERT_LT(best[i].index, M);
    EXPECT_NEAR(best[i].weight, weight[best[i].index], 1e-4);
    // Equal match patterns give bit-equal weights on the device, so ties go to the smaller index; a different
    // winner is acceptable only where host and device disagree within float rounding.
    if (best[i].index != expected) {
      EXPECT_NEAR(weight[best[i].index], weight[expected], 1e-4);
    }
    for (int j = 0; j < best[i].index; ++j)
      EXPECT_LT(weight[j], weight[best[i].index] + 1e-4) << "an earlier record " << j << " wins";
  }
}

}  // namespace
}  // namespace mdh
