// Build errors in user code are reported at the spec's line and column: the generated #line directives lead
// into the spec and back to the generated file's own numbering.
#include <gtest/gtest.h>

#include <sstream>

#include "codegen/reference_kernel.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/opencl_test_device.h"

namespace mdh {
namespace {

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

/// Builds the reference kernel of `spec_text` (named `file_name`) and returns the build log; the build must fail.
std::string failing_build_log(const std::string& spec_text, const std::string& file_name, const std::string& sizes) {
  LaunchPlan plan = generate_reference_kernel(testing::bind_spec_text(spec_text, file_name, sizes), {});
  testing::BuildResult built = testing::build_program(plan.source, plan.build_options);
  EXPECT_FALSE(built.ok) << plan.source;
  return built.log;
}

/// The log has a line naming `location` with `message` (PoCL prints "error: FILE:LINE:COL: MESSAGE", clang
/// "FILE:LINE:COL: error: MESSAGE"; both are accepted).
void expect_diagnostic(const std::string& log, const std::string& location, const std::string& message) {
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.find(location) != std::string::npos && line.find(message) != std::string::npos) return;
  ADD_FAILURE() << "no line with '" << location << "' and '" << message << "' in the build log:\n" << log;
}

TEST(LineMapping, TypoInExpressionScalarNamesSpecLineAndColumn) {
  // `scalar (a, b) = a * bb` is line 8; `bb` starts in column 21.
  std::string spec = replace_once(testing::read_source_file("apps/gemm.mdh"), "= a * b", "= a * bb");
  std::string log = failing_build_log(spec, "gemm.mdh", "I=4,J=4,K=4");
  expect_diagnostic(log, "gemm.mdh:8:21:", "use of undeclared identifier 'bb'");
}

TEST(LineMapping, TypoInBlockScalarNamesSpecLine) {
  // Line 11 of gaussian.mdh is `    for (int c = 0; c < 5; ++c) s += k[r][c] * w(r, c);`.
  std::string spec = replace_once(testing::read_source_file("apps/gaussian.mdh"), "s += k[r][c]", "s += kk[r][c]");
  std::string log = failing_build_log(spec, "gaussian.mdh", "I=4,J=4");
  expect_diagnostic(log, "gaussian.mdh:11:38:", "use of undeclared identifier 'kk'");
}

TEST(LineMapping, TyposInHelperOperatorAndIdentityNameTheirLines) {
  std::string spec = testing::read_source_file("apps/prl.mdh");
  spec = replace_once(spec, "constant float m_prob[14]", "constant flaot m_prob[14]");  // line 11
  spec = replace_once(spec, "q.index < p.index", "q.idx < p.index");                    // line 23
  std::string log = failing_build_log(spec, "prl.mdh", "N=4,M=4");
  expect_diagnostic(log, "prl.mdh:11:12:", "unknown type name 'flaot'");
  expect_diagnostic(log, "prl.mdh:23:89:", "no member named 'idx' in 'match'");
}

TEST(LineMapping, GeneratedCodeKeepsItsOwnNumbering) {
  BoundMdh bound = testing::bind_app("apps/gemm.mdh", "I=4,J=4,K=4");
  std::string source = generate_reference_kernel(bound, {}).source;
  EXPECT_EQ(source.find(kGeneratedLineDirective), std::string::npos) << "every return directive is numbered";
  // Each directive back to the generated file names the line that follows it.
  size_t line_number = 1, checked = 0;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line); ++line_number) {
    const std::string prefix = "#line ";
    if (line.rfind(prefix, 0) != 0 || line.find("\"gemm_reference.cl\"") == std::string::npos) continue;
    EXPECT_EQ(std::stoul(line.substr(prefix.size())), line_number + 1) << line;
    ++checked;
  }
  EXPECT_GE(checked, 1u);
}

// File names are data: a spec path with a newline, quotes, a comment's end and a trigraph reaches the program only
// escaped, so it can neither add a line of code nor break the program, and build errors still name it as it is.
TEST(LineMapping, HostileFileNameIsEscapedAndStillNamedInBuildErrors) {
  const std::string file_name = "odd \"dir\" */ ?\?/\n#define a 7\n\\x.mdh";
  std::string spec = testing::read_source_file("apps/gemm.mdh");
  BoundMdh bound = testing::bind_spec_text(spec, file_name, "I=4,J=4,K=4");
  const LaunchPlan plan = generate_reference_kernel(bound, {});
  const std::string& source = plan.source;
  EXPECT_EQ(source.find("\n#define a 7"), std::string::npos) << source;
  EXPECT_NE(source.find("#line 8 \"odd \\\"dir\\\" */ \\?\\?/\\n#define a 7\\n\\\\x.mdh\"\n"), std::string::npos)
      << source;
  EXPECT_NE(source.find("(odd \"dir\" *\\/ \\?\\?/\\n#define a 7\\n\\\\x.mdh)"), std::string::npos) << source;
  EXPECT_TRUE(testing::build_program(source, plan.build_options).ok) << source;
  // The compiler unescapes the name: its message names the file as it is.
  std::string log = failing_build_log(replace_once(spec, "= a * b", "= a * bb"), file_name, "I=4,J=4,K=4");
  expect_diagnostic(log, file_name.substr(file_name.rfind('\n') + 1) + ":8:21:", "use of undeclared identifier 'bb'");
}

TEST(LineMapping, NumberGeneratedLinesRewritesOnlyThePlaceholder) {
  std::string source = std::string("a\n#line 3 \"x.mdh\"\nb\n") + kGeneratedLineDirective + "\nc";
  EXPECT_EQ(number_generated_lines(source, "k.cl"), "a\n#line 3 \"x.mdh\"\nb\n#line 5 \"k.cl\"\nc");
  EXPECT_EQ(number_generated_lines(std::string(kGeneratedLineDirective) + "\n", "k.cl"), "#line 2 \"k.cl\"\n");
}

}  // namespace
}  // namespace mdh
