#include "mdh/index_expr.h"

#include <map>
#include <memory>

#include "mdh/messages.h"

namespace mdh {

namespace {

// Bounds that keep recursion (here and in SizeExpr) shallow whatever the input: a spec's expressions are short.
constexpr int kMaxExpressionNodes = 400;
constexpr int kMaxNesting = 64;

/// An integer expression as written, before it is split into dimension terms and a size-only offset.
struct Node {
  enum class Kind { Int, Name, Add, Sub, Mul, Div, Mod, Neg, Window };
  Kind kind = Kind::Int;
  int64_t value = 0;
  std::string name;
  SourceLoc loc;  // the literal, the name, or the operator token
  std::shared_ptr<const Node> a, b;
};
using NodePtr = std::shared_ptr<const Node>;

class ExprParser {
 public:
  ExprParser(Lexer& lex, std::string what) : lex_(lex), what_(std::move(what)) {}

  // int_expr ::= int_term {('+' | '-') int_term}
  // index    ::= summand {('+' | '-') summand}
  NodePtr sum(bool allow_window) {
    NodePtr lhs = summand(allow_window);
    while (lex_.peek().is("+") || lex_.peek().is("-")) {
      Token op = lex_.next();
      lhs = make(op.text == "+" ? Node::Kind::Add : Node::Kind::Sub, op.loc, lhs, summand(allow_window));
    }
    return lhs;
  }

 private:
  // summand ::= int_term ['..' int_term]      (the window form only inside a view index)
  NodePtr summand(bool allow_window) {
    NodePtr lo = term();
    if (!allow_window || !lex_.peek().is("..")) return lo;
    Token dots = lex_.next();
    return make(Node::Kind::Window, dots.loc, lo, term());
  }

  // int_term ::= int_unary {('*' | '/' | '%') int_unary}
  NodePtr term() {
    NodePtr lhs = unary();
    while (lex_.peek().is("*") || lex_.peek().is("/") || lex_.peek().is("%")) {
      Token op = lex_.next();
      Node::Kind kind = op.text == "*" ? Node::Kind::Mul : op.text == "/" ? Node::Kind::Div : Node::Kind::Mod;
      lhs = make(kind, op.loc, lhs, unary());
    }
    return lhs;
  }

  // int_unary ::= '-' int_unary | int_primary
  NodePtr unary() {
    if (!lex_.peek().is("-")) return primary();
    Token minus = lex_.next();
    Nesting guard(*this, minus.loc);
    return make(Node::Kind::Neg, minus.loc, unary(), nullptr);
  }

  // int_primary ::= INTEGER | NAME | '(' int_expr ')'
  NodePtr primary() {
    Token t = lex_.next();
    if (t.kind == TokenKind::Integer) {
      auto n = make(Node::Kind::Int, t.loc, nullptr, nullptr);
      std::const_pointer_cast<Node>(n)->value = t.value;
      return n;
    }
    if (t.kind == TokenKind::Identifier) {
      auto n = make(Node::Kind::Name, t.loc, nullptr, nullptr);
      std::const_pointer_cast<Node>(n)->name = t.text;
      return n;
    }
    if (t.is("(")) {
      Nesting guard(*this, t.loc);
      NodePtr inner = sum(false);
      const Token& close = lex_.peek();
      if (!close.is(")")) throw UserError(close.loc, msg::expected("')' to close the parenthesis in " + what_, close));
      lex_.next();
      return inner;
    }
    throw UserError(t.loc, msg::expected("an integer, a size name or '(' in " + what_, t));
  }

  struct Nesting {
    Nesting(ExprParser& p, const SourceLoc& loc) : parser(p) {
      if (++parser.depth_ > kMaxNesting) throw UserError(loc, msg::expression_too_complex(parser.what_));
    }
    ~Nesting() { --parser.depth_; }
    ExprParser& parser;
  };

  NodePtr make(Node::Kind kind, const SourceLoc& loc, NodePtr a, NodePtr b) {
    if (++nodes_ > kMaxExpressionNodes) throw UserError(loc, msg::expression_too_complex(what_));
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->loc = loc;
    n->a = std::move(a);
    n->b = std::move(b);
    return n;
  }

  Lexer& lex_;
  std::string what_;
  int nodes_ = 0, depth_ = 0;
};

/// A size expression exactly as written (no folding), for extents, flops and bytes.
SizeExpr to_size_expr(const Node& n) {
  switch (n.kind) {
    case Node::Kind::Int:
      return SizeExpr::constant(n.value, n.loc);
    case Node::Kind::Name:
      return SizeExpr::symbol(n.name, n.loc);
    case Node::Kind::Neg:
      return SizeExpr::negate(to_size_expr(*n.a), n.loc);
    case Node::Kind::Add:
      return SizeExpr::binary(SizeExpr::Kind::Add, to_size_expr(*n.a), to_size_expr(*n.b), n.loc);
    case Node::Kind::Sub:
      return SizeExpr::binary(SizeExpr::Kind::Sub, to_size_expr(*n.a), to_size_expr(*n.b), n.loc);
    case Node::Kind::Mul:
      return SizeExpr::binary(SizeExpr::Kind::Mul, to_size_expr(*n.a), to_size_expr(*n.b), n.loc);
    case Node::Kind::Div:
      return SizeExpr::binary(SizeExpr::Kind::Div, to_size_expr(*n.a), to_size_expr(*n.b), n.loc);
    case Node::Kind::Mod:
      return SizeExpr::binary(SizeExpr::Kind::Mod, to_size_expr(*n.a), to_size_expr(*n.b), n.loc);
    case Node::Kind::Window:
      break;
  }
  MDH_INTERNAL_ASSERT(false, "a window inside a size expression");
  return {};
}

// ---------------------------------------------------------------------------------------------- linearisation

bool is_const(const SizeExpr& e, int64_t v) {
  return e.kind() == SizeExpr::Kind::Constant && e.constant_value() == v;
}
bool both_const(const SizeExpr& a, const SizeExpr& b) {
  return a.kind() == SizeExpr::Kind::Constant && b.kind() == SizeExpr::Kind::Constant;
}

// Folding keeps coefficients readable (`2*i + r` has coefficients 2 and 1, not `2*1` and `1`); it never folds
// symbols, and leaves an overflowing constant operation for SizeExpr::evaluate to report.
SizeExpr fold_add(const SizeExpr& a, const SizeExpr& b, const SourceLoc& loc) {
  int64_t r = 0;
  if (both_const(a, b) && !__builtin_add_overflow(a.constant_value(), b.constant_value(), &r))
    return SizeExpr::constant(r, loc);
  if (is_const(a, 0)) return b;
  if (is_const(b, 0)) return a;
  // `R + -1` reads as `R - 1`.
  if (b.kind() == SizeExpr::Kind::Constant && b.constant_value() < 0 && b.constant_value() != INT64_MIN)
    return SizeExpr::binary(SizeExpr::Kind::Sub, a, SizeExpr::constant(-b.constant_value(), b.loc()), loc);
  if (b.kind() == SizeExpr::Kind::Neg) return SizeExpr::binary(SizeExpr::Kind::Sub, a, b.lhs(), loc);
  return SizeExpr::binary(SizeExpr::Kind::Add, a, b, loc);
}
SizeExpr fold_mul(const SizeExpr& a, const SizeExpr& b, const SourceLoc& loc) {
  int64_t r = 0;
  if (both_const(a, b) && !__builtin_mul_overflow(a.constant_value(), b.constant_value(), &r))
    return SizeExpr::constant(r, loc);
  if (is_const(a, 1)) return b;
  if (is_const(b, 1)) return a;
  if (is_const(a, 0) || is_const(b, 0)) return SizeExpr::constant(0, loc);
  return SizeExpr::binary(SizeExpr::Kind::Mul, a, b, loc);
}
SizeExpr fold_neg(const SizeExpr& a, const SourceLoc& loc) {
  if (a.kind() == SizeExpr::Kind::Constant && a.constant_value() != INT64_MIN)
    return SizeExpr::constant(-a.constant_value(), loc);
  if (a.kind() == SizeExpr::Kind::Neg) return a.lhs();
  return SizeExpr::negate(a, loc);
}

/// sum over dims (coefficient * dim) + offset [+ window], while it is being built.
struct Linear {
  std::map<int, SizeExpr> coefficients;  // by dimension position
  SizeExpr offset;                       // constant 0 by default
  std::optional<Window> window;
  bool depends_on_dims() const { return !coefficients.empty(); }
};

class Lineariser {
 public:
  Lineariser(const std::vector<std::string>& dims, const std::string& text) : dims_(dims), text_(text) {}

  Linear run(const Node& n) {
    Linear out;
    switch (n.kind) {
      case Node::Kind::Int:
        out.offset = SizeExpr::constant(n.value, n.loc);
        return out;
      case Node::Kind::Name:
        for (size_t d = 0; d < dims_.size(); ++d) {
          if (dims_[d] == n.name) {
            out.coefficients[static_cast<int>(d)] = SizeExpr::constant(1, n.loc);
            return out;
          }
        }
        out.offset = SizeExpr::symbol(n.name, n.loc);
        return out;
      case Node::Kind::Add:
      case Node::Kind::Sub: {
        Linear lhs = run(*n.a), rhs = run(*n.b);
        if (n.kind == Node::Kind::Sub) {
          if (rhs.window) throw UserError(rhs.window->loc, msg::window_subtracted(text_));
          rhs = negated(rhs, n.loc);
        }
        if (lhs.window && rhs.window) throw UserError(rhs.window->loc, msg::two_windows(text_));
        out = lhs;
        if (rhs.window) out.window = rhs.window;
        for (const auto& [d, c] : rhs.coefficients) {
          auto it = out.coefficients.find(d);
          out.coefficients[d] = it == out.coefficients.end() ? c : fold_add(it->second, c, n.loc);
        }
        out.offset = fold_add(lhs.offset, rhs.offset, n.loc);
        return out;
      }
      case Node::Kind::Neg: {
        Linear inner = run(*n.a);
        if (inner.window) throw UserError(inner.window->loc, msg::window_subtracted(text_));
        return negated(inner, n.loc);
      }
      case Node::Kind::Mul: {
        Linear lhs = run(*n.a), rhs = run(*n.b);
        // The grammar admits a window only as a summand outside parentheses, so no factor carries one.
        MDH_INTERNAL_ASSERT(!lhs.window && !rhs.window, "a window inside a product");
        if (lhs.depends_on_dims() && rhs.depends_on_dims()) throw UserError(n.loc, msg::non_affine_product(text_));
        const Linear& factor = lhs.depends_on_dims() ? rhs : lhs;
        out = lhs.depends_on_dims() ? lhs : rhs;
        for (auto& [d, c] : out.coefficients) c = fold_mul(c, factor.offset, n.loc);
        out.offset = fold_mul(out.offset, factor.offset, n.loc);
        return out;
      }
      case Node::Kind::Div:
      case Node::Kind::Mod: {
        Linear lhs = run(*n.a), rhs = run(*n.b);
        const char* op = n.kind == Node::Kind::Div ? "/" : "%";
        MDH_INTERNAL_ASSERT(!lhs.window && !rhs.window, "a window inside a quotient");
        for (const Linear* side : {&lhs, &rhs})
          if (side->depends_on_dims()) throw UserError(n.loc, msg::non_affine_division(text_, op));
        SizeExpr::Kind kind = n.kind == Node::Kind::Div ? SizeExpr::Kind::Div : SizeExpr::Kind::Mod;
        out.offset = SizeExpr::binary(kind, lhs.offset, rhs.offset, n.loc);
        return out;
      }
      case Node::Kind::Window: {
        Linear lo = run(*n.a), hi = run(*n.b);
        if (lo.depends_on_dims() || hi.depends_on_dims() || lo.window || hi.window)
          throw UserError(n.loc, msg::window_bound_not_constant(text_));
        out.window = Window{lo.offset, hi.offset, n.loc};
        return out;
      }
    }
    MDH_INTERNAL_ASSERT(false, "unknown index node");
    return out;
  }

 private:
  static Linear negated(Linear l, const SourceLoc& loc) {
    for (auto& [d, c] : l.coefficients) c = fold_neg(c, loc);
    l.offset = fold_neg(l.offset, loc);
    return l;
  }

  const std::vector<std::string>& dims_;
  const std::string& text_;
};

}  // namespace

SizeExpr parse_size_expression(Lexer& lex, const std::string& what) {
  return to_size_expr(*ExprParser(lex, what).sum(false));
}

AffineIndex parse_affine_index(Lexer& lex, const std::vector<std::string>& dims) {
  AffineIndex index;
  index.loc = lex.peek().loc;
  size_t begin = lex.peek().begin;
  NodePtr tree = ExprParser(lex, "a view index").sum(true);
  index.text = lex.text().substr(begin, lex.last_end() - begin);
  Linear linear = Lineariser(dims, index.text).run(*tree);
  for (const auto& [d, c] : linear.coefficients) {
    if (!is_const(c, 0)) index.terms.push_back(AffineIndex::Term{d, c});
  }
  index.offset = linear.offset;
  index.window = linear.window;
  return index;
}

}  // namespace mdh
