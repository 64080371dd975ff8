// File names in generated OpenCL C: string literals that cannot end early and comments that cannot end.
#include "codegen/source_text.h"

#include <gtest/gtest.h>

namespace mdh {
namespace {

TEST(SourceText, OrdinaryPathsStayAsTheyAre) {
  EXPECT_EQ(c_string_literal("apps/gemm.mdh"), "\"apps/gemm.mdh\"");
  EXPECT_EQ(c_string_literal("/tmp/x-1_2.3 (copy)/a+b=c,d;e?f.mdh"), "\"/tmp/x-1_2.3 (copy)/a+b=c,d;e?f.mdh\"");
  EXPECT_EQ(comment_text("apps/gemm.mdh"), "apps/gemm.mdh");
}

TEST(SourceText, StringLiteralEscapesWhatCouldEndItOrTheLine) {
  EXPECT_EQ(c_string_literal("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(c_string_literal("a\nb\tc\rd"), R"("a\nb\tc\rd")");
  // Octal escapes have three digits, so a digit that follows is not read into them.
  EXPECT_EQ(c_string_literal(std::string("a\x01"
                                         "7\x7f\xff",
                                         5)),
            R"("a\0017\177\377")");
  EXPECT_EQ(c_string_literal(std::string("a\0b", 3)), R"("a\000b")");
  // `??/` would be a backslash (a trigraph) before escapes are read.
  EXPECT_EQ(c_string_literal("a?\?/\""), R"("a\?\?/\"")");
  EXPECT_EQ(c_string_literal("what?"), R"("what?")");
}

TEST(SourceText, CommentTextCannotCloseOrOpenAComment) {
  EXPECT_EQ(comment_text("a */ b /* c"), R"(a *\/ b /\* c)");
  EXPECT_EQ(comment_text("*/*/"), R"(*\/\*\/)");
  EXPECT_EQ(comment_text("x\ny"), R"(x\ny)");
  EXPECT_EQ(comment_text("end\\"), R"(end\\)");
  EXPECT_EQ(comment_text("say \"hi\""), "say \"hi\"");
  for (const std::string& text : {std::string("a\n#define x 1"), std::string("*/ int x; /*"), std::string("\\\n")}) {
    const std::string inside = comment_text(text);
    EXPECT_EQ(inside.find('\n'), std::string::npos) << inside;
    EXPECT_EQ(inside.find("*/"), std::string::npos) << inside;
  }
}

}  // namespace
}  // namespace mdh
