#include "mdh/size_expr.h"

#include <limits>

#include "mdh/messages.h"

namespace mdh {

struct SizeExpr::Node {
  Kind kind = Kind::Constant;
  int64_t value = 0;
  std::string name;
  SizeExpr lhs, rhs;  // default-constructed (constant 0) where unused
  SourceLoc loc;
  Node() = default;
};

SizeExpr::SizeExpr() : node_(nullptr) {}
SizeExpr::SizeExpr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

SizeExpr SizeExpr::constant(int64_t value, SourceLoc loc) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Constant;
  n->value = value;
  n->loc = std::move(loc);
  return SizeExpr(std::move(n));
}

SizeExpr SizeExpr::symbol(const std::string& name, SourceLoc loc) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Symbol;
  n->name = name;
  n->loc = std::move(loc);
  return SizeExpr(std::move(n));
}

SizeExpr SizeExpr::binary(Kind op, const SizeExpr& lhs, const SizeExpr& rhs, SourceLoc loc) {
  MDH_INTERNAL_ASSERT(op == Kind::Add || op == Kind::Sub || op == Kind::Mul || op == Kind::Div || op == Kind::Mod,
                      "not a binary operator");
  auto n = std::make_shared<Node>();
  n->kind = op;
  n->lhs = lhs;
  n->rhs = rhs;
  n->loc = std::move(loc);
  return SizeExpr(std::move(n));
}

SizeExpr SizeExpr::negate(const SizeExpr& operand, SourceLoc loc) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Neg;
  n->lhs = operand;
  n->loc = std::move(loc);
  return SizeExpr(std::move(n));
}

// A null node_ is the constant 0 (the default), so that SizeExpr is cheap to default-construct.
SizeExpr::Kind SizeExpr::kind() const {
  return node_ ? node_->kind : Kind::Constant;
}
int64_t SizeExpr::constant_value() const {
  MDH_INTERNAL_ASSERT(kind() == Kind::Constant, "not a constant");
  return node_ ? node_->value : 0;
}
const std::string& SizeExpr::symbol_name() const {
  MDH_INTERNAL_ASSERT(kind() == Kind::Symbol, "not a symbol");
  return node_->name;
}
const SizeExpr& SizeExpr::lhs() const {
  MDH_INTERNAL_ASSERT(node_ && kind() != Kind::Constant && kind() != Kind::Symbol, "no operands");
  return node_->lhs;
}
const SizeExpr& SizeExpr::rhs() const {
  MDH_INTERNAL_ASSERT(node_ && kind() != Kind::Constant && kind() != Kind::Symbol && kind() != Kind::Neg,
                      "no right operand");
  return node_->rhs;
}
const SourceLoc& SizeExpr::loc() const {
  static const SourceLoc kNone;
  return node_ ? node_->loc : kNone;
}

bool SizeExpr::is_constant() const {
  return symbols().empty();
}

int64_t SizeExpr::evaluate(const SizeBinding& sizes) const {
  auto overflow = [&]() -> int64_t {
    throw UserError(loc(), "size expression '" + to_string() + "' overflows 64 bits");
  };
  switch (kind()) {
    case Kind::Constant:
      return constant_value();
    case Kind::Symbol: {
      auto it = sizes.find(node_->name);
      if (it == sizes.end()) throw UserError(loc(), msg::size_not_bound(node_->name));
      return it->second;
    }
    case Kind::Neg: {
      int64_t v = lhs().evaluate(sizes);
      if (v == std::numeric_limits<int64_t>::min()) return overflow();
      return -v;
    }
    default:
      break;
  }
  int64_t a = lhs().evaluate(sizes), b = rhs().evaluate(sizes), r = 0;
  switch (kind()) {
    case Kind::Add:
      if (__builtin_add_overflow(a, b, &r)) return overflow();
      return r;
    case Kind::Sub:
      if (__builtin_sub_overflow(a, b, &r)) return overflow();
      return r;
    case Kind::Mul:
      if (__builtin_mul_overflow(a, b, &r)) return overflow();
      return r;
    case Kind::Div:
    case Kind::Mod:
      if (b == 0) throw UserError(loc(), "division by zero in size expression '" + to_string() + "'");
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return overflow();
      return kind() == Kind::Div ? a / b : a % b;
    default:
      MDH_INTERNAL_ASSERT(false, "unknown size expression kind");
  }
  return 0;
}

std::set<std::string> SizeExpr::symbols() const {
  std::set<std::string> out;
  switch (kind()) {
    case Kind::Constant:
      break;
    case Kind::Symbol:
      out.insert(node_->name);
      break;
    case Kind::Neg:
      out = lhs().symbols();
      break;
    default: {
      out = lhs().symbols();
      auto r = rhs().symbols();
      out.insert(r.begin(), r.end());
    }
  }
  return out;
}

namespace {
int precedence(SizeExpr::Kind k) {
  switch (k) {
    case SizeExpr::Kind::Add:
    case SizeExpr::Kind::Sub:
      return 1;
    case SizeExpr::Kind::Mul:
    case SizeExpr::Kind::Div:
    case SizeExpr::Kind::Mod:
      return 2;
    case SizeExpr::Kind::Neg:
      return 3;
    default:
      return 4;
  }
}
}  // namespace

std::string SizeExpr::to_string() const {
  switch (kind()) {
    case Kind::Constant:
      return std::to_string(constant_value());
    case Kind::Symbol:
      return node_->name;
    case Kind::Neg: {
      std::string s = lhs().to_string();
      return precedence(lhs().kind()) < 3 ? "-(" + s + ")" : "-" + s;
    }
    default:
      break;
  }
  const char* op = kind() == Kind::Add   ? " + "
                   : kind() == Kind::Sub ? " - "
                   : kind() == Kind::Mul ? "*"
                   : kind() == Kind::Div ? "/"
                                         : "%";
  int p = precedence(kind());
  std::string l = lhs().to_string(), r = rhs().to_string();
  if (precedence(lhs().kind()) < p) l = "(" + l + ")";
  // Left-associative: a right operand of equal precedence needs parentheses, except under + (a + (b - c) is
  // a + b - c) and for a product under * (a*(b/c) is not a*b/c).
  bool regroups = kind() == Kind::Add || (kind() == Kind::Mul && rhs().kind() == Kind::Mul);
  if (precedence(rhs().kind()) < p || (precedence(rhs().kind()) == p && !regroups)) r = "(" + r + ")";
  return l + op + r;
}

SizeExpr operator+(const SizeExpr& a, const SizeExpr& b) {
  return SizeExpr::binary(SizeExpr::Kind::Add, a, b, a.loc());
}
SizeExpr operator-(const SizeExpr& a, const SizeExpr& b) {
  return SizeExpr::binary(SizeExpr::Kind::Sub, a, b, a.loc());
}
SizeExpr operator*(const SizeExpr& a, const SizeExpr& b) {
  return SizeExpr::binary(SizeExpr::Kind::Mul, a, b, a.loc());
}

}  // namespace mdh
