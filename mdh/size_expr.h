// Integer expressions over size symbols: buffer extents, dimension extents, index coefficients and offsets.
// They are symbolic in the IR and become numbers once sizes are bound (`--size I=1024,...`).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "support/error.h"

namespace mdh {

/// Values of the size symbols, e.g. {I: 1024, J: 1024}.
using SizeBinding = std::map<std::string, int64_t>;

/// An immutable integer expression tree: constants, size symbols, + - * / % and unary minus.
/// Division and modulo are C's (truncating); evaluation reports division by zero and overflow as user errors.
class SizeExpr {
 public:
  enum class Kind { Constant, Symbol, Add, Sub, Mul, Div, Mod, Neg };

  SizeExpr();  // the constant 0
  static SizeExpr constant(int64_t value, SourceLoc loc = {});
  static SizeExpr symbol(const std::string& name, SourceLoc loc = {});
  static SizeExpr binary(Kind op, const SizeExpr& lhs, const SizeExpr& rhs, SourceLoc loc = {});
  static SizeExpr negate(const SizeExpr& operand, SourceLoc loc = {});

  Kind kind() const;
  int64_t constant_value() const;          // Kind::Constant only
  const std::string& symbol_name() const;  // Kind::Symbol only
  const SizeExpr& lhs() const;             // binary kinds, and Neg's operand
  const SizeExpr& rhs() const;             // binary kinds
  const SourceLoc& loc() const;

  bool is_constant() const;  // no symbols anywhere in the tree
  /// Throws UserError (at this expression's location) for an unbound symbol, division by zero or overflow.
  int64_t evaluate(const SizeBinding& sizes) const;
  std::set<std::string> symbols() const;
  std::string to_string() const;  // fully parenthesised only where needed

 private:
  struct Node;
  explicit SizeExpr(std::shared_ptr<const Node> node);
  std::shared_ptr<const Node> node_;
};

SizeExpr operator+(const SizeExpr& a, const SizeExpr& b);
SizeExpr operator-(const SizeExpr& a, const SizeExpr& b);
SizeExpr operator*(const SizeExpr& a, const SizeExpr& b);

}  // namespace mdh
