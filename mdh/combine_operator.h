// The built-in combine operators in one table: how a spec spells them, what verify() allows, what the tuning space
// may reorder, and the OpenCL C that the generated kernels compute. Adding an operator is one enumerator of
// CombineOp::Kind and one entry of the table in combine_operator.cpp.
#pragma once

#include <span>
#include <string>

#include "mdh/ir.h"

namespace mdh {

/// The neutral element of a built-in reduction, written per element type by identity_expression().
enum class CombineIdentity { None, Zero, One, Lowest, Highest };

struct BuiltinCombineOperator {
  CombineOp::Kind kind;
  const char* spelling;  // as written in `combine (...)`, in messages and in generated comments
  // `++` places partial results side by side; every other built-in folds them into one value.
  bool reduction;
  // Partial results may be folded in any order: the tunable kernel may then share a reduction among work-items and
  // combine several reduction dimensions in tile order. User operators are never assumed commutative.
  bool commutative;
  // verify() rejects it on a struct output (the user declares an operator there).
  bool scalar_types_only;
  // mdh_combine_<d>'s body over the operands p (earlier) and q (later); empty for `++`.
  const char* floating_expression;
  const char* integer_expression;
  CombineIdentity identity;
};

/// Every built-in operator, in the order of CombineOp::Kind (User excluded).
std::span<const BuiltinCombineOperator> builtin_combine_operators();
/// The entry of a built-in kind; an internal error for Kind::User.
const BuiltinCombineOperator& builtin_combine_operator(CombineOp::Kind kind);
/// The built-in operator written `spelling`, or nullptr (a user operator's name, or not an operator at all).
const BuiltinCombineOperator* find_builtin_combine_operator(const std::string& spelling);
/// "++, +, *, max, min": the spellings, for messages.
std::string builtin_combine_spellings();

/// OpenCL C of the operator on operands p and q of scalar type `type`. Floating max/min are fmax/fmin: a NaN
/// operand is ignored (the other operand is the result), so a NaN never wins a maximum.
std::string combine_expression(const BuiltinCombineOperator& op, ScalarType type);
/// OpenCL C of the operator's identity for scalar type `type` ("0", "1", "-INFINITY", "INT_MIN", ...).
std::string identity_expression(const BuiltinCombineOperator& op, ScalarType type);

}  // namespace mdh
