// The built-in combine operator table as the front end uses it: every entry parses from its spelling, prints back
// as written, and verify() applies its scalar-type rule; what is not in the table is a user operator or an error.
#include "mdh/combine_operator.h"

#include <gtest/gtest.h>

#include "mdh/messages.h"
#include "mdh/parser.h"

namespace mdh {
namespace {

// A reduction over k of x into r[0] (`++` concatenates over i instead, into r[i]), elements of type `type`.
std::string reduction_spec(const std::string& spelling, const std::string& type) {
  const bool concat = spelling == "++";
  return "md_hom t\nsize N\n" + std::string(type == "float" ? "" : "type pair { float a; int b; }\n") +
         "input x : " + type + "[N]\noutput r : " + type + "[" + (concat ? "N" : "1") + "]\nview (k < N) : x[k] -> r[" +
         (concat ? "k" : "0") + "]\nscalar (v) = v\ncombine (" + spelling + ")\n";
}

TEST(CombineOperators, EveryBuiltinParsesFromItsSpellingAndPrintsBack) {
  ASSERT_FALSE(builtin_combine_operators().empty());
  for (const BuiltinCombineOperator& op : builtin_combine_operators()) {
    SCOPED_TRACE(op.spelling);
    auto m = parse_spec(reduction_spec(op.spelling, "float"), "t.mdh");
    ASSERT_EQ(m->dims.size(), 1u);
    EXPECT_EQ(m->dims[0].combine.kind, op.kind);
    EXPECT_EQ(m->dims[0].combine.spelling(), op.spelling);
    EXPECT_EQ(m->dims[0].combine.is_concat(), !op.reduction);
    EXPECT_EQ(m->dims[0].combine.is_commutative(), op.commutative);
    EXPECT_EQ(&builtin_combine_operator(op.kind), &op);
    EXPECT_EQ(find_builtin_combine_operator(op.spelling), &op);
  }
}

TEST(CombineOperators, ScalarOnlyBuiltinsAreRejectedOnStructOutputs) {
  for (const BuiltinCombineOperator& op : builtin_combine_operators()) {
    SCOPED_TRACE(op.spelling);
    const std::string text = reduction_spec(op.spelling, "pair");
    if (!op.scalar_types_only) {
      EXPECT_NO_THROW(parse_spec(text, "t.mdh"));
      continue;
    }
    try {
      parse_spec(text, "t.mdh");
      FAIL() << "a struct output must be rejected";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(msg::builtin_on_struct(op.spelling, "r", "pair")), std::string::npos)
          << e.what();
    }
  }
}

TEST(CombineOperators, NamesOutsideTheTableAreUserOperators) {
  EXPECT_EQ(find_builtin_combine_operator("best_of"), nullptr);
  EXPECT_EQ(find_builtin_combine_operator("MAX"), nullptr);
  EXPECT_EQ(builtin_combine_spellings(), "++, +, *, max, min");
  CombineOp user;
  user.kind = CombineOp::Kind::User;
  user.user_name = "best_of";
  EXPECT_EQ(user.spelling(), "best_of");
  EXPECT_FALSE(user.is_commutative());
  try {
    parse_spec(reduction_spec("-", "float"), "t.mdh");
    FAIL() << "'-' is no combine operator";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("expected a combine operator (++, +, *, max, min or a declared operator)"),
              std::string::npos)
        << e.what();
  }
}

TEST(CombineOperators, IdentitiesAreNeutralPerType) {
  const BuiltinCombineOperator& max = builtin_combine_operator(CombineOp::Kind::Max);
  const BuiltinCombineOperator& min = builtin_combine_operator(CombineOp::Kind::Min);
  for (ScalarType type : all_scalar_types()) {
    SCOPED_TRACE(opencl_name(type));
    EXPECT_EQ(identity_expression(builtin_combine_operator(CombineOp::Kind::Add), type), "0");
    EXPECT_EQ(identity_expression(builtin_combine_operator(CombineOp::Kind::Mul), type), "1");
    EXPECT_EQ(identity_expression(max, type), opencl_lowest(type));
    EXPECT_EQ(identity_expression(min, type), opencl_highest(type));
    // Unsigned types start their maximum at 0; floating ones at -INFINITY, so that any value wins.
    if (is_floating(type)) {
      EXPECT_EQ(identity_expression(max, type), "-INFINITY");
    } else if (!is_signed(type)) {
      EXPECT_EQ(identity_expression(max, type), "0");
    }
    EXPECT_EQ(combine_expression(max, type), is_floating(type) ? "fmax(p, q)" : "max(p, q)");
  }
  EXPECT_THROW(identity_expression(builtin_combine_operator(CombineOp::Kind::Concat), ScalarType::Float),
               InternalError);
}

}  // namespace
}  // namespace mdh
