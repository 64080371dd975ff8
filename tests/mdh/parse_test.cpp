// Parser details: linearisation of indices into AffineIndex, struct layout, user code capture, SizeExpr.
#include <gtest/gtest.h>

#include "mdh/parser.h"

namespace mdh {
namespace {

/// A one-input spec with the given sizes, buffers and view; `combine` must match the dims.
std::string spec(const std::string& decls, const std::string& view, const std::string& combine) {
  return "md_hom t\n" + decls + "\nview " + view + "\nscalar (a) = a\ncombine " + combine + "\n";
}

std::string coeff(const AffineIndex& index, const Mdh& m, const std::string& dim) {
  for (const auto& t : index.terms)
    if (m.dims[t.dim].name == dim) return t.coefficient.to_string();
  return "absent";
}

TEST(Linearise, RowMajorFlattening) {
  auto m = parse_spec(spec("size I J\ninput A : float[I*J]\noutput C : float[I*J]",
                           "(i < I, j < J) : A[i*J + j] -> C[j + J*i]", "(++, ++)"),
                      "t.mdh");
  const AffineIndex& in = m->inputs[0].indices[0];
  EXPECT_EQ(in.text, "i*J + j");
  ASSERT_EQ(in.terms.size(), 2u);
  EXPECT_EQ(coeff(in, *m, "i"), "J");
  EXPECT_EQ(coeff(in, *m, "j"), "1");
  EXPECT_EQ(in.offset.to_string(), "0");
  EXPECT_FALSE(in.window.has_value());
  const AffineIndex& out = m->output.indices[0];
  EXPECT_EQ(coeff(out, *m, "i"), "J");
  EXPECT_EQ(coeff(out, *m, "j"), "1");
}

TEST(Linearise, ScaledSumsAndOffsets) {
  auto m = parse_spec(spec("size I R\ninput A : float[2*I + R + 3]\noutput C : float[I]",
                           "(i < I, r < R) : A[2*i + r + (R - 1) + 2*2] -> C[i]", "(++, +)"),
                      "t.mdh");
  const AffineIndex& in = m->inputs[0].indices[0];
  EXPECT_EQ(coeff(in, *m, "i"), "2");
  EXPECT_EQ(coeff(in, *m, "r"), "1");
  EXPECT_EQ(in.offset.to_string(), "R - 1 + 4");
  EXPECT_EQ(in.terms[0].dim, 0);  // terms in dimension order
}

TEST(Linearise, CancellingTermsVanishAndNegativeCoefficients) {
  auto m = parse_spec(spec("size I\ninput A : float[I]\noutput C : float[I]",
                           "(i < I, k < I) : A[I - 1 - i + k - k] -> C[i]", "(++, max)"),
                      "t.mdh");
  const AffineIndex& in = m->inputs[0].indices[0];
  ASSERT_EQ(in.terms.size(), 1u);
  EXPECT_EQ(coeff(in, *m, "i"), "-1");
  EXPECT_EQ(in.offset.to_string(), "I - 1");
}

TEST(Linearise, WindowsWithSymbolicBounds) {
  auto m = parse_spec(
      spec("size I R\ninput A : float[I + R]\noutput C : float[I]", "(i < I) : A[i + -1..(R - 1) + 1] -> C[i]", "(++)"),
      "t.mdh");
  const AffineIndex& in = m->inputs[0].indices[0];
  ASSERT_TRUE(in.window.has_value());
  EXPECT_EQ(in.window->lo.to_string(), "-1");
  EXPECT_EQ(in.window->hi.to_string(), "R - 1");
  EXPECT_EQ(in.offset.to_string(), "1");
  EXPECT_EQ(in.window->loc.col, 24);
  EXPECT_EQ(in.text, "i + -1..(R - 1) + 1");
}

TEST(StructLayout, NaturalAlignment) {
  auto m = parse_spec(
      "md_hom t\nsize N\ntype s { char c; double d; short h[3]; int i, j[2];\n  uchar tail; }\ninput A : s[N]\noutput "
      "B : s[N]\n"
      "view (i < N) : A[i] -> B[i]\nscalar (a) = a\ncombine (++)\n",
      "t.mdh");
  ASSERT_EQ(m->structs.size(), 1u);
  const StructType& s = m->structs[0];
  ASSERT_EQ(s.fields.size(), 6u);
  EXPECT_EQ(s.fields[0].offset, 0u);   // char c
  EXPECT_EQ(s.fields[1].offset, 8u);   // double d
  EXPECT_EQ(s.fields[2].offset, 16u);  // short h[3]
  EXPECT_EQ(s.fields[2].array_extents, std::vector<int64_t>{3});
  EXPECT_EQ(s.fields[3].offset, 24u);  // int i
  EXPECT_EQ(s.fields[4].offset, 28u);  // int j[2]
  EXPECT_EQ(s.fields[5].offset, 36u);  // uchar tail
  EXPECT_EQ(s.size, 40u);
  EXPECT_EQ(s.alignment, 8u);
  EXPECT_EQ(s.body, " char c; double d; short h[3]; int i, j[2];\n  uchar tail; ");
  EXPECT_EQ(m->size_of(m->buffers[0].type), 40u);
}

TEST(UserCode, BracesInStringsCommentsAndCharsDoNotCount) {
  auto m = parse_spec(
      "md_hom t\nsize N\ninput A : int[N]\noutput B : int[N]\nhelper {\n  // }\n  /* } */ constant char c = '}';\n"
      "  constant char s[] = \"}\\\"}\";\n}\nview (i < N) : A[i] -> B[i]\n"
      "scalar (a) = max(a,\n   0) # a comment\ncombine (++)\n",
      "t.mdh");
  ASSERT_EQ(m->helpers.size(), 1u);
  EXPECT_EQ(m->helpers[0].text, "\n  // }\n  /* } */ constant char c = '}';\n  constant char s[] = \"}\\\"}\";\n");
  EXPECT_EQ(m->helpers[0].loc.line, 5);
  EXPECT_EQ(m->helpers[0].loc.col, 9);
  EXPECT_EQ(m->scalar.body.text, "max(a,\n   0)");
  EXPECT_EQ(m->scalar.body.loc.line, 11);
  EXPECT_EQ(m->scalar.body.loc.col, 14);
}

TEST(UserCode, OperatorBlockFormWithIdentityOnTheNextLine) {
  auto m = parse_spec(
      "md_hom t\nsize N\ninput A : float[N]\noutput B : float[1]\nview (i < N) : A[i] -> B[0]\nscalar (a) = a\n"
      "operator absmax(float p, float q) {\n  return fabs(q) > fabs(p) ? q : p;\n}\n  identity 0.0f\ncombine "
      "(absmax)\n",
      "t.mdh");
  ASSERT_EQ(m->operators.size(), 1u);
  EXPECT_FALSE(m->operators[0].is_expression);
  EXPECT_EQ(m->operators[0].body.text, "\n  return fabs(q) > fabs(p) ? q : p;\n");
  EXPECT_EQ(m->operators[0].identity.text, "0.0f");
  EXPECT_EQ(m->dims[0].combine.user_name, "absmax");
}

// The functions user code calls, for codegen's questions (INLINE_MATH: does it call log?): identifiers followed by
// '(' in helpers, f, operators and identities; not members ('.'), not numbers, each once, sorted.
TEST(UserCode, CalledFunctionsAreNotedOnceSorted) {
  auto m = parse_spec(
      "md_hom t\nsize N\ninput A : float[N]\noutput B : float[1]\n"
      "helper {\n  float twice(float a) { return 2.0f * log (a) + sqrt(a); }\n}\n"
      "view (i < N) : A[i] -> B[0]\nscalar (a) = twice(a) * 1e5f + v.log(a) * 0x1p-3f\n"
      "operator absmax(float p, float q) {\n  return fabs(q) > fabs(p) ? q : p;\n}\n  identity -INFINITY\n"
      "combine (absmax)\n",
      "t.mdh");
  EXPECT_EQ(m->called_functions, (std::vector<std::string>{"fabs", "log", "sqrt", "twice"}));
  EXPECT_TRUE(m->calls("log"));
  EXPECT_FALSE(m->calls("max"));
}

TEST(Params, ScalarAndStructTypes) {
  auto m = parse_spec(
      spec("size N\nparam alpha : double\ninput A : double[N]\noutput C : double[N]", "(i < N) : A[i] -> C[i]", "(++)"),
      "t.mdh");
  ASSERT_EQ(m->params.size(), 1u);
  EXPECT_EQ(m->params[0].type.scalar, ScalarType::Double);
  EXPECT_EQ(m->params[0].loc.line, 3);
}

TEST(SizeExpr, EvaluatesAndPrints) {
  SizeExpr e = SizeExpr::symbol("I") * SizeExpr::symbol("J") + SizeExpr::constant(4);
  EXPECT_EQ(e.to_string(), "I*J + 4");
  EXPECT_EQ(e.evaluate({{"I", 3}, {"J", 5}}), 19);
  EXPECT_EQ(e.symbols(), (std::set<std::string>{"I", "J"}));
  EXPECT_FALSE(e.is_constant());
  SizeExpr d = SizeExpr::binary(SizeExpr::Kind::Div, SizeExpr::constant(7), SizeExpr::symbol("Z"));
  EXPECT_THROW(d.evaluate({{"Z", 0}}), UserError);
  EXPECT_EQ((SizeExpr::constant(2) - (SizeExpr::symbol("A") - SizeExpr::symbol("B"))).to_string(), "2 - (A - B)");
}

TEST(SizeExpr, ExtentsKeepTheirWrittenForm) {
  auto m = parse_spec(
      spec("size N P R\ninput I : float[N][P+R-1]\noutput O : float[N]", "(n < N) : I[n][0] -> O[n]", "(++)"), "t.mdh");
  EXPECT_EQ(m->buffers[0].extents[1].to_string(), "P + R - 1");
  EXPECT_EQ(m->buffers[0].extents[1].evaluate({{"P", 7}, {"R", 3}}), 9);
}

TEST(ParseSpec, ANulByteIsAnErrorAtItsPlace) {
  try {
    parse_spec(std::string("md_hom id\nsize I\nscalar (a) = a;\0 1\n", 36), "nul.mdh");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "nul.mdh:3:16: error: the spec holds a NUL byte (a spec is text)");
  }
}

TEST(ParseSpec, AWindowAccessorIndexedOnlyInACommentOrStringIsFine) {
  const std::string spec =
      "md_hom blur\nsize I\ninput x : float[I+2]\noutput y : float[I]\n"
      "view (i < I) : x[i + 0..2] -> y[i]\n"
      "scalar (w) {\n  // not w[0]\n  /* nor w [1] */ const char* s = \"w[2]\";\n"
      "  return w(0) + ww[0] + w (1);\n}\ncombine (++)\n";
  EXPECT_NO_THROW(parse_spec(spec, "blur.mdh"));
}

TEST(ParseSpecFile, UnreadableFileIsAUserError) {
  try {
    parse_spec_file("/nonexistent/x.mdh");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/x.mdh: error: cannot read spec file: No such file or directory");
  }
}

}  // namespace
}  // namespace mdh
