// INLINE_MATH: mdh's own log (codegen/inline_math.h) run on PoCL against log in double, over floats sampled from
// every binade and the special values; where the family exists; and that only a tunable kernel with
// INLINE_MATH = mdh replaces the built-in (double and vector arguments keep it).
#include "codegen/inline_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/parameter_families.h"
#include "codegen/reference_kernel.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

using testing::bind_spec_text;

constexpr const char* kLogOfEach =
    "md_hom log_of_each\n"
    "size N\n"
    "input x : float[N]\n"
    "output y : float[N]\n"
    "view (i < N) : x[i] -> y[i]\n"
    "scalar (v) = log(v)\n"
    "combine (++)\n";

// Errors in units of the last place of the float nearest to the exact result (taken in double).
double ulp_error(float got, double exact) {
  const float nearest = static_cast<float>(exact);
  const double ulp = std::nextafter(std::fabs(nearest), std::numeric_limits<float>::infinity()) - std::fabs(nearest);
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}

TEST(InlineMath, LogIsWithinOneUlpOfTheExactResultAndHandlesSpecialValues) {
  const float subnormal_min = std::numeric_limits<float>::denorm_min(), normal_min = std::numeric_limits<float>::min();
  std::vector<float> x = {1.0f,
                          2.0f,
                          0.5f,
                          std::sqrt(2.0f),
                          std::nextafter(std::sqrt(2.0f), 2.0f),
                          subnormal_min,
                          normal_min,
                          std::nextafter(normal_min, 0.0f),
                          std::numeric_limits<float>::max(),
                          0.0f,
                          -0.0f,
                          -1.0f,
                          -subnormal_min,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  const size_t specials = x.size();
  // Uniform bit patterns of the positive finite floats: every binade, subnormals included, alike.
  std::mt19937_64 random(11);
  std::uniform_int_distribution<uint32_t> bits(1, 0x7f7fffffu);
  while (x.size() < (1u << 16)) {
    const uint32_t b = bits(random);
    float v;
    std::memcpy(&v, &b, sizeof v);
    x.push_back(v);
  }
  const BoundMdh bound = bind_spec_text(kLogOfEach, "log_of_each.mdh", "N=" + std::to_string(x.size()));
  const DeviceLimits limits = testing::first_device_limits();
  KernelConfig c = default_config(bound, limits);
  set_label(c, "INLINE_MATH", "mdh");
  std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 1);
  ASSERT_EQ(buffers.at("x").size(), x.size() * sizeof(float));
  std::memcpy(buffers.at("x").data(), x.data(), buffers.at("x").size());
  const LaunchPlan plan = generate_tunable_kernel(bound, c, limits);
  ASSERT_NE(plan.source.find("#define log(x) mdh_log(x)"), std::string::npos);
  const testing::RunResult run = testing::run_plan_with_scratch(bound, plan, buffers);  // optimised, with FMA
  ASSERT_EQ(run.error, "");
  std::vector<float> y(x.size());
  ASSERT_EQ(run.output.size(), y.size() * sizeof(float));
  std::memcpy(y.data(), run.output.data(), run.output.size());

  double worst = 0;
  float worst_at = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    const double exact = std::log(static_cast<double>(x[k]));
    if (!std::isfinite(exact) || std::isnan(x[k])) {
      // log(0) = -inf, log(+inf) = +inf, log of a negative number or NaN = NaN, as the built-in.
      EXPECT_TRUE(std::isnan(exact) ? std::isnan(y[k]) : y[k] == exact) << "log(" << x[k] << ") = " << y[k];
      continue;
    }
    const double error = ulp_error(y[k], exact);
    if (error > worst) {
      worst = error;
      worst_at = x[k];
    }
    if (k < specials) {
      EXPECT_LE(error, 1.0) << "log(" << x[k] << ") = " << y[k];
    }
  }
  // OpenCL C allows the built-in 3 ulp; measured on every positive float on the host: 0.75 (with FMA).
  EXPECT_LE(worst, 1.0) << "at " << worst_at;
}

TEST(InlineMath, TheFamilyExistsWhereUserCodeCallsLog) {
  auto calls = [](const std::string& scalar, const std::string& helper = "") {
    const std::string text = "md_hom m\nsize N\ninput x : float[N]\noutput y : float[N]\n" +
                             (helper.empty() ? "" : "helper {\n" + helper + "\n}\n") + "view (i < N) : x[i] -> y[i]\n" +
                             "scalar (v) = " + scalar + "\ncombine (++)\n";
    return calls_inline_math_function(*bind_spec_text(text, "m.mdh", "N=4").mdh);
  };
  EXPECT_TRUE(calls("log(v)"));
  EXPECT_TRUE(calls("2.0f * log (v + 1.0f)"));
  EXPECT_TRUE(calls("twice_log(v)", "float twice_log(float a) { return 2.0f * log(a); }"));
  EXPECT_FALSE(calls("log2(v) + log10(v) + log1p(v)"));
  EXPECT_FALSE(calls("my_log(v)", "float my_log(float a) { return a; }"));
  EXPECT_FALSE(calls("v * v"));
  const BoundMdh gemm = testing::bind_app("apps/gemm.mdh", "I=4,J=4,K=4");
  const TuningSpace gemm_space = make_tuning_space(gemm, testing::first_device_limits());
  EXPECT_LT(gemm_space.find("INLINE_MATH"), 0);
  const BoundMdh prl = testing::bind_app("apps/prl.mdh", "N=4,M=4");
  EXPECT_GE(make_tuning_space(prl, testing::first_device_limits()).find("INLINE_MATH"), 0);
}

// Double and vector arguments keep the built-in, so user code that passes them still builds and computes as before;
// the references never take mdh's log.
TEST(InlineMath, DoubleAndVectorArgumentsKeepTheBuiltInAndReferencesNeverTakeIt) {
  const std::string text =
      "md_hom m\nsize N\ninput x : double[N]\ninput z : float[N]\noutput y : double[N]\n"
      "helper {\n  float lane_log(float a) { return log((float4)(a, 1.0f, 2.0f, 4.0f)).x; }\n}\n"
      "view (i < N) : x[i], z[i] -> y[i]\n"
      "scalar (v, w) = log(v) + (double)log(w) + (double)lane_log(w)\ncombine (++)\n";
  const BoundMdh bound = bind_spec_text(text, "m.mdh", "N=64");
  const DeviceLimits limits = testing::first_device_limits();
  KernelConfig c = default_config(bound, limits);
  set_label(c, "INLINE_MATH", "mdh");
  const LaunchPlan plan = generate_tunable_kernel(bound, c, limits);
  ASSERT_NE(plan.source.find("inline double mdh_log(double x)"), std::string::npos);
  const std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 3);
  const testing::RunResult run = testing::run_plan_with_scratch(bound, plan, buffers);
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(testing::compare_outputs(bound, testing::reference_output(bound, buffers), run.output), std::nullopt);
  EXPECT_EQ(generate_reference_kernel(bound, PreambleOptions{}).source.find("mdh_log"), std::string::npos);
  set_label(c, "INLINE_MATH", "builtin");
  EXPECT_EQ(generate_tunable_kernel(bound, c, limits).source.find("mdh_log"), std::string::npos);
}

}  // namespace
}  // namespace mdh
