// The table of built-in combine operators and the OpenCL C written from it.
#include "mdh/combine_operator.h"

#include <iterator>

namespace mdh {
namespace {

using Kind = CombineOp::Kind;

// One row per operator, columns aligned for reading (clang-format would give every field its own line).
// clang-format off
constexpr BuiltinCombineOperator kBuiltins[] = {
    // kind        spelling  reduction  commutative  scalar-only  floating      integer      identity
    {Kind::Concat, "++",     false,     false,       false,       "",           "",          CombineIdentity::None},
    {Kind::Add,    "+",      true,      true,        true,        "p + q",      "p + q",     CombineIdentity::Zero},
    {Kind::Mul,    "*",      true,      true,        true,        "p * q",      "p * q",     CombineIdentity::One},
    {Kind::Max,    "max",    true,      true,        true,        "fmax(p, q)", "max(p, q)", CombineIdentity::Lowest},
    {Kind::Min,    "min",    true,      true,        true,        "fmin(p, q)", "min(p, q)", CombineIdentity::Highest},
};
// clang-format on

// builtin_combine_operator() indexes the table by kind.
constexpr bool table_follows_kinds() {
  for (size_t k = 0; k < std::size(kBuiltins); ++k)
    if (static_cast<size_t>(kBuiltins[k].kind) != k) return false;
  return static_cast<size_t>(Kind::User) == std::size(kBuiltins);
}
static_assert(table_follows_kinds(), "one entry per built-in CombineOp::Kind, in enumerator order");

}  // namespace

std::span<const BuiltinCombineOperator> builtin_combine_operators() {
  return kBuiltins;
}

const BuiltinCombineOperator& builtin_combine_operator(CombineOp::Kind kind) {
  MDH_INTERNAL_ASSERT(kind != Kind::User, "a user operator has no entry in the built-in table");
  return kBuiltins[static_cast<size_t>(kind)];
}

const BuiltinCombineOperator* find_builtin_combine_operator(const std::string& spelling) {
  for (const BuiltinCombineOperator& op : kBuiltins)
    if (spelling == op.spelling) return &op;
  return nullptr;
}

std::string builtin_combine_spellings() {
  std::string out;
  for (const BuiltinCombineOperator& op : kBuiltins) out += (out.empty() ? "" : ", ") + std::string(op.spelling);
  return out;
}

std::string combine_expression(const BuiltinCombineOperator& op, ScalarType type) {
  MDH_INTERNAL_ASSERT(op.reduction, std::string("'") + op.spelling + "' combines nothing");
  return is_floating(type) ? op.floating_expression : op.integer_expression;
}

std::string identity_expression(const BuiltinCombineOperator& op, ScalarType type) {
  switch (op.identity) {
    case CombineIdentity::Zero:
      return "0";
    case CombineIdentity::One:
      return "1";
    case CombineIdentity::Lowest:
      return opencl_lowest(type);
    case CombineIdentity::Highest:
      return opencl_highest(type);
    case CombineIdentity::None:
      break;
  }
  MDH_INTERNAL_ASSERT(false, std::string("'") + op.spelling + "' has no identity");
  return "";
}

}  // namespace mdh
