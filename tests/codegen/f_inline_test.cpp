// F_INLINE: the scalar function inlined into the loop nest, its for loops unrolled (codegen/families/scalar_code.cpp).
// What each value emits, that `for` is marked inside f only (its macros' loops included, helpers' functions not), that
// the kernels compute what the reference computes on PoCL, and where the default search may take which value.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/parameter_families.h"
#include "codegen/reference_kernel.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "pipeline/tuning_search_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

using testing::bind_spec_text;

// f sums a row of a table with a loop, one of whose iterations comes from a helper macro; the helper function's
// own loop stays outside f.
constexpr const char* kRowSum =
    "md_hom row_sum\n"
    "size N\n"
    "input x : int[N]\n"
    "table w : float[8]\n"
    "output y : float[N]\n"
    "helper {\n"
    "  #define TWICE(v) for (int r = 0; r < 2; ++r) v += 1.0f\n"
    "  float helper_sum(float a) { float s = 0.0f; for (int k = 0; k < 3; ++k) s += a; return s; }\n"
    "}\n"
    "view (i < N) : x[i] -> y[i]\n"
    "scalar (v) {\n"
    "  float s = 0.0f;\n"
    "  for (int k = 0; k < 8; ++k) s += w[k] * (float)(v + k);\n"
    "  TWICE(s);\n"
    "  return s + helper_sum((float)v);\n"
    "}\n"
    "combine (++)\n";

TEST(FInline, EachValueEmitsItsFunctionAndComputesAsTheReference) {
  const BoundMdh bound = bind_spec_text(kRowSum, "row_sum.mdh", "N=100");
  EXPECT_TRUE(bound.mdh->scalar.has_for_loop);
  const DeviceLimits limits = testing::first_device_limits();
  const std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 5);
  const testing::Bytes expected = testing::reference_output(bound, buffers);
  KernelConfig c = default_config(bound, limits);
  for (const std::string v : {"call", "inline", "unrolled"}) {
    set_label(c, "F_INLINE", v);
    const LaunchPlan plan = generate_tunable_kernel(bound, c, limits);
    const std::string& s = plan.source;
    EXPECT_EQ(testing::occurrences(s, "__attribute__((always_inline)) inline float mdh_f("), v == "call" ? 0u : 1u)
        << v;
    EXPECT_EQ(testing::occurrences(s, "#define for _Pragma(\"unroll 32\") for\n"), v == "unrolled" ? 1u : 0u) << v;
    EXPECT_EQ(testing::occurrences(s, "#undef for\n"), v == "unrolled" ? 1u : 0u) << v;
    if (v == "unrolled") {
      // The macro spans f alone: defined after the helper (whose function keeps its loop plain), undefined after f.
      const size_t define = s.find("#define for"), helper = s.find("helper_sum(float a)"), f = s.find("mdh_f(");
      EXPECT_LT(helper, define);
      EXPECT_LT(define, f);
      EXPECT_LT(f, s.find("#undef for"));
    }
    const testing::RunResult run = testing::run_plan_with_scratch(bound, plan, buffers);
    ASSERT_EQ(run.error, "") << v;
    EXPECT_EQ(testing::compare_outputs(bound, expected, run.output), std::nullopt) << v;
  }
  // References never take it.
  EXPECT_EQ(generate_reference_kernel(bound, PreambleOptions{}).source.find("always_inline"), std::string::npos);
}

TEST(FInline, ForLoopsOfFAreNotedAtParse) {
  auto has_loop = [](const std::string& scalar) {
    const std::string text =
        "md_hom m\nsize N\ninput x : float[N]\noutput y : float[N]\n"
        "view (i < N) : x[i] -> y[i]\nscalar (v) " +
        scalar + "\ncombine (++)\n";
    return bind_spec_text(text, "m.mdh", "N=4").mdh->scalar.has_for_loop;
  };
  EXPECT_TRUE(has_loop("{ float s = 0.0f; for(int k = 0; k < 2; ++k) s += v; return s; }"));
  EXPECT_FALSE(has_loop("= v * v"));
  EXPECT_FALSE(has_loop("{ float format = v; return format; }"));
  EXPECT_FALSE(bind_spec_text(kRowSum, "row_sum.mdh", "N=4").mdh->scalar.directs_unrolling);
}

// A spec that directs unrolling itself keeps its own directives: F_INLINE does not exist, so no configuration adds a
// second one to the same loop (clang: "incompatible directives '#pragma unroll' and '#pragma unroll(2)'").
TEST(FInline, UserCodeThatDirectsUnrollingKeepsItsOwnDirectives) {
  auto spec = [](const std::string& helper, const std::string& pragma) {
    return "md_hom m\nsize N\ninput x : float[N]\noutput y : float[N]\n" +
           (helper.empty() ? "" : "helper {\n" + helper + "\n}\n") +
           "view (i < N) : x[i] -> y[i]\nscalar (v) {\n  float s = 0.0f;\n" + pragma +
           "\n  for (int k = 0; k < 8; ++k) s += v * (float)k;\n  return s;\n}\ncombine (++)\n";
  };
  const DeviceLimits cpu = testing::first_device_limits();
  for (const auto& [helper, pragma] : std::vector<std::pair<std::string, std::string>>{
           {"", "  #pragma unroll 2"},
           {"#define TWO_AT_A_TIME _Pragma(\"unroll 2\")", "  TWO_AT_A_TIME"},
           {"", "  __attribute__((opencl_unroll_hint(2)))"}}) {
    const BoundMdh bound = bind_spec_text(spec(helper, pragma), "m.mdh", "N=64");
    EXPECT_TRUE(bound.mdh->scalar.has_for_loop) << pragma;
    EXPECT_TRUE(bound.mdh->scalar.directs_unrolling) << pragma;
    EXPECT_LT(make_tuning_space(bound, cpu).find("F_INLINE"), 0) << pragma;
    const KernelConfig c = default_config(bound, cpu);
    EXPECT_EQ(label_of(c, "F_INLINE"), "") << pragma;  // no such member: f stays a plain function
    const std::map<std::string, testing::Bytes> buffers = testing::seeded_buffers(bound, 2);
    const testing::RunResult run =
        testing::run_plan_with_scratch(bound, generate_tunable_kernel(bound, c, cpu), buffers);
    ASSERT_EQ(run.error, "") << pragma;
    EXPECT_EQ(testing::compare_outputs(bound, testing::reference_output(bound, buffers), run.output), std::nullopt)
        << pragma;
  }
}

// Where f has a for loop, CPUs default to inlining f and unrolling its loops; GPUs keep the plain function, and
// their default search does not try the others (not measured there). Without a loop the family does not exist.
TEST(FInline, DefaultsAndTheDefaultSearchsValuesPerDevice) {
  const DeviceLimits cpu = testing::first_device_limits();
  ASSERT_FALSE(cpu.local_memory_dedicated);
  const DeviceLimits gpu = testing::h200_device_limits();
  const BoundMdh prl = testing::bind_app("apps/prl.mdh", "N=64,M=32");
  const BoundMdh gemm = testing::bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  EXPECT_EQ(label_of(default_config(prl, cpu), "F_INLINE"), "unrolled");
  EXPECT_EQ(label_of(default_config(gemm, cpu), "F_INLINE"), "");  // f without a loop: no such member
  EXPECT_EQ(label_of(default_config(prl, gpu), "F_INLINE"), "call");
  EXPECT_EQ(label_of(default_config(gemm, gpu), "F_INLINE"), "");

  auto values_searched = [](const BoundMdh& bound, const DeviceLimits& limits) {
    const TuningSpace space = make_tuning_space(bound, limits);
    const tuner::SearchSpace search = make_search_space(space, 1);
    tuner::Rng rng(7);
    std::set<std::string> seen;
    for (int k = 0; k < 200; ++k)
      seen.insert(label_of(kernel_config_of(bound, space, search.configuration(search.sample(rng))), "F_INLINE"));
    return seen;
  };
  EXPECT_EQ(values_searched(prl, cpu), (std::set<std::string>{"call", "inline", "unrolled"}));
  EXPECT_LT(make_tuning_space(gemm, cpu).find("F_INLINE"), 0);
  EXPECT_EQ(values_searched(prl, gpu), (std::set<std::string>{"call"}));
}

}  // namespace
}  // namespace mdh
