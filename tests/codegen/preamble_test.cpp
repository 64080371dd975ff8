// The preamble's pieces: built-in operators and identities per type, user operators, the window accessor, the
// scalar function's parameters, table declarations and promotion to double.
#include "codegen/preamble.h"

#include <gtest/gtest.h>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/opencl_test_device.h"

namespace mdh {
namespace {

/// A one-dimensional reduction of x over k with the given element type and combine operator.
BoundMdh reduction_spec(const std::string& type, const std::string& combine) {
  std::string spec = "md_hom red\nsize N\ninput x : " + type + "[N]\noutput r : " + type +
                     "[1]\nview (k < N) : x[k] -> r[0]\nscalar (a) = a\ncombine (" + combine + ")\n";
  return testing::bind_spec_text(spec, "red.mdh", "N=8");
}

bool contains(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}

TEST(Preamble, BuiltinOperatorsAndIdentitiesPerType) {
  struct Case {
    std::string type, combine, body, identity;
  };
  const std::vector<Case> cases = {
      {"float", "+", "p + q", "0"},
      {"float", "*", "p * q", "1"},
      {"float", "max", "fmax(p, q)", "-INFINITY"},
      {"double", "min", "fmin(p, q)", "INFINITY"},
      {"int", "max", "max(p, q)", "INT_MIN"},
      {"int", "min", "min(p, q)", "INT_MAX"},
      {"uint", "max", "max(p, q)", "0"},
      {"uchar", "min", "min(p, q)", "UCHAR_MAX"},
      {"char", "max", "max(p, q)", "CHAR_MIN"},
      {"short", "min", "min(p, q)", "SHRT_MAX"},
      {"ushort", "min", "min(p, q)", "USHRT_MAX"},
      {"long", "max", "max(p, q)", "LONG_MIN"},
      {"ulong", "min", "min(p, q)", "ULONG_MAX"},
      {"long", "*", "p * q", "1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type + " " + c.combine);
    std::string preamble = emit_preamble(reduction_spec(c.type, c.combine), {});
    EXPECT_TRUE(
        contains(preamble, c.type + " mdh_combine_0(" + c.type + " p, " + c.type + " q) { return " + c.body + "; }"))
        << preamble;
    EXPECT_TRUE(contains(preamble, c.type + " mdh_identity_0(void) { return " + c.identity + "; }")) << preamble;
    EXPECT_EQ(contains(preamble, "cl_khr_fp64"), c.type == "double") << preamble;
  }
  EXPECT_EQ(combine_call(2, "acc", "v"), "mdh_combine_2(acc, v)");
  EXPECT_EQ(identity_call(2), "mdh_identity_2()");
}

TEST(Preamble, StartsWithPragmasAndNoContraction) {
  std::string preamble = emit_preamble(testing::bind_app("apps/gemm.mdh", "I=2,J=2,K=2"), {});
  EXPECT_EQ(preamble.rfind("#pragma OPENCL FP_CONTRACT OFF\n", 0), 0u) << preamble;
}

TEST(Preamble, StructsAndUserOperator) {
  std::string preamble = emit_preamble(testing::bind_app("apps/prl.mdh", "N=2,M=3"), {});
  EXPECT_TRUE(contains(preamble, "#line 5 \"apps/prl.mdh\"\ntypedef struct { float weight; int index; } match;\n"))
      << preamble;
  EXPECT_TRUE(contains(preamble, "match best_of(match p, match q)\n{\n  return\n#line 23 \"apps/prl.mdh\"\n"))
      << preamble;
  EXPECT_TRUE(contains(preamble, "match mdh_combine_1(match p, match q) { return best_of(p, q); }")) << preamble;
  // The identity expression stands at its spec column (124 in prl.mdh's line 23).
  EXPECT_TRUE(contains(preamble, "match mdh_identity_1(void)\n{\n  return\n#line 23 \"apps/prl.mdh\"\n" +
                                     std::string(123, ' ') + "(match){-INFINITY, -1}\n"))
      << preamble;
  // Helper code, moved to its own first line because the `{` line is otherwise empty.
  EXPECT_TRUE(contains(preamble, "#line 11 \"apps/prl.mdh\"\n  constant float m_prob[14]")) << preamble;
}

TEST(Preamble, StructTypesAreRejectedByBuiltinOperators) {
  std::string spec = testing::read_source_file("apps/prl.mdh");
  spec.replace(spec.find("combine (++, best_of)"), 21, "combine (++, max)    ");
  try {
    BoundMdh bound = testing::bind_spec_text(spec, "prl.mdh", "N=2,M=3");
    emit_preamble(bound, {});
    FAIL() << "max on a struct type must be rejected";
  } catch (const UserError& e) {
    // Either the verifier or the preamble rejects it, always at the combine entry in line 24.
    EXPECT_TRUE(contains(e.what(), "prl.mdh:24:")) << e.what();
  }
}

TEST(Preamble, WindowAccessorAndScalarParameters) {
  BoundMdh bound = testing::bind_app("apps/gaussian.mdh", "I=4,J=6");
  WindowBinding window;
  window.address_space = "__local";
  window.strides = {"LOCAL_ROW", "1"};
  std::string f = emit_scalar_function(bound, "blur", {window}, {});
  EXPECT_TRUE(contains(f,
                       "float blur(__local const float* restrict w_origin, const int i, const int j)\n{\n"
                       "#define w(mdh_o0, mdh_o1) (w_origin[(mdh_o0) * LOCAL_ROW + (mdh_o1)])\n"
                       "#line 8 \"apps/gaussian.mdh\"\n"))
      << f;
  EXPECT_TRUE(contains(f, "  return s / 159.0f;\n" + std::string(kGeneratedLineDirective) + "\n#undef w\n}\n")) << f;

  window.strides = {"J + 4", "1"};  // a compound stride is parenthesised
  EXPECT_TRUE(contains(emit_scalar_function(bound, "blur", {window}, {}), "(mdh_o0) * (J + 4) + (mdh_o1)"));
}

TEST(Preamble, ParamsAndTables) {
  std::string spec =
      "md_hom scaled\nsize N\nparam alpha : float\nparam shift : int\ninput x : float[N]\n"
      "table lut : float[3][4][5]\ntable bias : int[7]\noutput y : float[N]\n"
      "view (i < N) : x[i] -> y[i]\nscalar (v) = alpha * v + lut[0][1][2] + bias[shift]\ncombine (++)\n";
  BoundMdh bound = testing::bind_spec_text(spec, "scaled.mdh", "N=3");
  EXPECT_EQ(param_and_table_args(bound), "alpha, shift, lut, bias");
  EXPECT_EQ(param_and_table_decls(bound, {}),
            "const float alpha, const int shift, __global const float (*lut)[4][5], __global const int* bias");
  EXPECT_EQ(param_and_table_decls(bound, PreambleOptions{true}),
            "const double alpha, const int shift, __global const double (*lut)[4][5], __global const int* bias");
  std::string f = emit_scalar_function(bound, "mdh_scalar", {std::nullopt}, {});
  EXPECT_TRUE(contains(f,
                       "float mdh_scalar(const float v, const int i, const float alpha, const int shift, "
                       "__global const float (*lut)[4][5], __global const int* bias)"))
      << f;
  // The same declarations serve as kernel parameters (the tunable kernel passes tables that way).
  std::string program = emit_preamble(bound, {}) + f + "__kernel void probe(__global float* y, " +
                        param_and_table_decls(bound, {}) + ") { y[0] = mdh_scalar(y[0], 0, " +
                        param_and_table_args(bound) + "); }\n";
  testing::BuildResult built = testing::build_program(number_generated_lines(program, "probe.cl"), "-cl-std=CL1.2");
  EXPECT_TRUE(built.ok) << built.log << "\n" << program;
}

TEST(Preamble, PromotionToDouble) {
  BoundMdh gaussian = testing::bind_app("apps/gaussian.mdh", "I=4,J=6");
  ASSERT_TRUE(can_promote_to_double(*gaussian.mdh));
  EXPECT_FALSE(can_promote_to_double(*testing::bind_app("apps/prl.mdh", "N=2,M=2").mdh));
  std::string preamble = emit_preamble(gaussian, PreambleOptions{true});
  EXPECT_TRUE(contains(preamble,
                       "#pragma OPENCL FP_CONTRACT OFF\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                       "// Verifying reference: every float of the spec (user code included) computes in "
                       "double.\n#define float double\n"))
      << preamble;
  EXPECT_FALSE(contains(emit_preamble(gaussian, {}), "double")) << "no fp64 without promotion or double types";
  ElementType float_type{ScalarType::Float, ""}, int_type{ScalarType::Int, ""};
  EXPECT_EQ(element_type_name(*gaussian.mdh, float_type, PreambleOptions{true}), "double");
  EXPECT_EQ(element_type_name(*gaussian.mdh, float_type, {}), "float");
  EXPECT_EQ(element_type_name(*gaussian.mdh, int_type, PreambleOptions{true}), "int");

  // User code written for float (`const float k[5][5]`, `0.0f`, `log`) compiles in double on the device.
  std::string spec = testing::read_source_file("apps/gaussian.mdh");
  spec.replace(spec.find("return s / 159.0f;"), 18, "return log(exp(s / 159.0f));");
  BoundMdh with_log = testing::bind_spec_text(spec, "gaussian.mdh", "I=4,J=6");
  WindowBinding window{"__global", {"10", "1"}};
  std::string program = emit_preamble(with_log, PreambleOptions{true}) +
                        emit_scalar_function(with_log, "f", {window}, PreambleOptions{true}) +
                        "__kernel void probe(__global double* out, __global const double* img) {\n"
                        "  out[0] = f(img, 0, 0);\n}\n";
  if (!testing::device_has_fp64()) GTEST_SKIP() << "device without cl_khr_fp64";
  testing::BuildResult built = testing::build_program(number_generated_lines(program, "probe.cl"), "-cl-std=CL1.2");
  EXPECT_TRUE(built.ok) << built.log << "\n" << program;
}

}  // namespace
}  // namespace mdh
