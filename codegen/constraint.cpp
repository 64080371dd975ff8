// Expression and condition trees of tuning constraints: evaluation with saturating arithmetic, and printing.
#include "codegen/constraint.h"

#include <algorithm>
#include <limits>
#include <variant>

#include "support/error.h"

namespace mdh {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return (a > 0) ? kMax : kMin;
  return r;
}

int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return ((a < 0) != (b < 0)) ? kMin : kMax;
  return r;
}

// ceil(a / b) for b > 0; a non-positive divisor can only come from a value outside its range, which the range check
// reports first, so it saturates rather than traps.
// "(text)", appended piece by piece: GCC 12 warns falsely (-Wrestrict) about "(" + std::string + ")" here.
std::string parenthesised(const std::string& text) {
  std::string s;
  s.reserve(text.size() + 2);
  s += '(';
  s += text;
  s += ')';
  return s;
}

int64_t ceil_division(int64_t a, int64_t b) {
  if (b <= 0) return kMax;
  if (a >= 0) return a / b + (a % b != 0);
  return a / b;
}

}  // namespace

struct Expr::Node {
  enum class Kind { constant, parameter, measured, sum, product, ceil_div } kind;
  int64_t value = 0;
  std::string name;  // parameter or measured name, or a named constant's
  ParameterRef parameter;
  std::vector<ParameterRef> reads;  // measured
  std::function<int64_t(const ValueSource&)> compute;
  std::vector<Expr> operands;
};

Expr Expr::constant(int64_t value) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::constant;
  n->value = value;
  return Expr(n);
}

Expr Expr::named_constant(int64_t value, std::string name) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::constant;
  n->value = value;
  n->name = std::move(name);
  return Expr(n);
}

Expr Expr::parameter(ParameterRef parameter, std::string name) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::parameter;
  n->parameter = parameter;
  n->name = std::move(name);
  return Expr(n);
}

Expr Expr::measured(std::string name, std::vector<ParameterRef> reads,
                    std::function<int64_t(const ValueSource&)> compute) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::measured;
  n->name = std::move(name);
  n->reads = std::move(reads);
  n->compute = std::move(compute);
  return Expr(n);
}

Expr Expr::product(const std::vector<Expr>& factors) {
  if (factors.empty()) return constant(1);
  if (factors.size() == 1) return factors[0];
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::product;
  n->operands = factors;
  return Expr(n);
}

Expr operator+(const Expr& a, const Expr& b) {
  auto n = std::make_shared<Expr::Node>();
  n->kind = Expr::Node::Kind::sum;
  n->operands = {a, b};
  return Expr(n);
}

Expr operator*(const Expr& a, const Expr& b) {
  return Expr::product({a, b});
}

Expr ceil_div(const Expr& a, const Expr& b) {
  auto n = std::make_shared<Expr::Node>();
  n->kind = Expr::Node::Kind::ceil_div;
  n->operands = {a, b};
  return Expr(n);
}

int64_t Expr::evaluate(const ValueSource& values) const {
  const Node& n = *node_;
  switch (n.kind) {
    case Node::Kind::constant:
      return n.value;
    case Node::Kind::parameter:
      return values.value(n.parameter);
    case Node::Kind::measured:
      return n.compute(values);
    case Node::Kind::sum:
      return saturating_add(n.operands[0].evaluate(values), n.operands[1].evaluate(values));
    case Node::Kind::product: {
      int64_t p = 1;
      for (const Expr& e : n.operands) p = saturating_mul(p, e.evaluate(values));
      return p;
    }
    case Node::Kind::ceil_div:
      return ceil_division(n.operands[0].evaluate(values), n.operands[1].evaluate(values));
  }
  MDH_INTERNAL_ASSERT(false, "unknown expression kind");
}

std::string Expr::to_string() const {
  const Node& n = *node_;
  switch (n.kind) {
    case Node::Kind::constant:
      return n.name.empty() ? std::to_string(n.value) : n.name;
    case Node::Kind::parameter:
    case Node::Kind::measured:
      return n.name;
    case Node::Kind::sum:
      return n.operands[0].to_string() + " + " + n.operands[1].to_string();
    case Node::Kind::product: {
      std::string s;
      for (const Expr& e : n.operands) {
        const bool wrap = e.node_->kind == Node::Kind::sum;
        if (!s.empty()) s += " * ";
        s += wrap ? parenthesised(e.to_string()) : e.to_string();
      }
      return s;
    }
    case Node::Kind::ceil_div:
      return "ceil(" + n.operands[0].to_string() + " / " + n.operands[1].to_string() + ")";
  }
  MDH_INTERNAL_ASSERT(false, "unknown expression kind");
}

void Expr::collect_reads(std::vector<ParameterRef>& reads) const {
  const Node& n = *node_;
  auto add = [&](const ParameterRef& r) {
    if (std::find(reads.begin(), reads.end(), r) == reads.end()) reads.push_back(r);
  };
  switch (n.kind) {
    case Node::Kind::constant:
      return;
    case Node::Kind::parameter:
      add(n.parameter);
      return;
    case Node::Kind::measured:
      for (const auto& r : n.reads) add(r);
      return;
    default:
      for (const Expr& e : n.operands) e.collect_reads(reads);
  }
}

void Expr::describe_measured(const ValueSource& values, std::vector<std::string>& out) const {
  const Node& n = *node_;
  if (n.kind == Node::Kind::measured) {
    // A saturated count is "at least" that many; its digits would read as an exact, and wrong, count.
    const int64_t value = n.compute(values);
    const std::string text = n.name + " = " + (value == kMax ? std::string("2^63 or more") : std::to_string(value));
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
    return;
  }
  for (const Expr& e : n.operands) e.describe_measured(values, out);
}

struct Condition::Node {
  enum class Kind { le, lt, ge, eq, ne, multiple_of, all, any, unless } kind;
  std::vector<Expr> operands;         // comparisons
  std::vector<Condition> conditions;  // all, any, unless (holds, exemption)
};

namespace {
Condition::Node comparison(Condition::Node::Kind kind, const Expr& a, const Expr& b) {
  Condition::Node n;
  n.kind = kind;
  n.operands = {a, b};
  return n;
}
}  // namespace

Condition operator<=(const Expr& a, const Expr& b) {
  return Condition(std::make_shared<Condition::Node>(comparison(Condition::Node::Kind::le, a, b)));
}
Condition operator<(const Expr& a, const Expr& b) {
  return Condition(std::make_shared<Condition::Node>(comparison(Condition::Node::Kind::lt, a, b)));
}
Condition operator>=(const Expr& a, const Expr& b) {
  return Condition(std::make_shared<Condition::Node>(comparison(Condition::Node::Kind::ge, a, b)));
}
Condition operator==(const Expr& a, const Expr& b) {
  return Condition(std::make_shared<Condition::Node>(comparison(Condition::Node::Kind::eq, a, b)));
}
Condition operator!=(const Expr& a, const Expr& b) {
  return Condition(std::make_shared<Condition::Node>(comparison(Condition::Node::Kind::ne, a, b)));
}

Condition operator&&(const Condition& a, const Condition& b) {
  auto n = std::make_shared<Condition::Node>();
  n->kind = Condition::Node::Kind::all;
  n->conditions = {a, b};
  return Condition(n);
}

Condition operator||(const Condition& a, const Condition& b) {
  auto n = std::make_shared<Condition::Node>();
  n->kind = Condition::Node::Kind::any;
  n->conditions = {a, b};
  return Condition(n);
}

Condition Condition::multiple_of(const Expr& a, const Expr& b) {
  return Condition(std::make_shared<Condition::Node>(comparison(Condition::Node::Kind::multiple_of, a, b)));
}

Condition Condition::unless(const Condition& holds, const Condition& exemption) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::unless;
  n->conditions = {holds, exemption};
  return Condition(n);
}

bool Condition::holds(const ValueSource& values) const {
  const Node& n = *node_;
  switch (n.kind) {
    case Node::Kind::le:
      return n.operands[0].evaluate(values) <= n.operands[1].evaluate(values);
    case Node::Kind::lt:
      return n.operands[0].evaluate(values) < n.operands[1].evaluate(values);
    case Node::Kind::ge:
      return n.operands[0].evaluate(values) >= n.operands[1].evaluate(values);
    case Node::Kind::eq:
      return n.operands[0].evaluate(values) == n.operands[1].evaluate(values);
    case Node::Kind::ne:
      return n.operands[0].evaluate(values) != n.operands[1].evaluate(values);
    case Node::Kind::multiple_of: {
      const int64_t divisor = n.operands[1].evaluate(values);
      return divisor > 0 && n.operands[0].evaluate(values) % divisor == 0;
    }
    case Node::Kind::all:
      return n.conditions[0].holds(values) && n.conditions[1].holds(values);
    case Node::Kind::any:
    case Node::Kind::unless:
      return n.conditions[0].holds(values) || n.conditions[1].holds(values);
  }
  MDH_INTERNAL_ASSERT(false, "unknown condition kind");
}

std::string Condition::to_string() const {
  const Node& n = *node_;
  auto compare = [&](const char* op) { return n.operands[0].to_string() + " " + op + " " + n.operands[1].to_string(); };
  // Conjunctions and disjunctions nested in one another are parenthesised; comparisons never need it.
  auto nested = [&](const Condition& c) {
    const auto k = c.node_->kind;
    const bool compound = k == Node::Kind::all || k == Node::Kind::any || k == Node::Kind::unless;
    return compound ? parenthesised(c.to_string()) : c.to_string();
  };
  switch (n.kind) {
    case Node::Kind::le:
      return compare("<=");
    case Node::Kind::lt:
      return compare("<");
    case Node::Kind::ge:
      return compare(">=");
    case Node::Kind::eq:
      return compare("=");
    case Node::Kind::ne:
      return compare("!=");
    case Node::Kind::multiple_of:
      return compare("is a multiple of");
    case Node::Kind::all:
      return nested(n.conditions[0]) + " and " + nested(n.conditions[1]);
    case Node::Kind::any:
      return nested(n.conditions[0]) + " or " + nested(n.conditions[1]);
    case Node::Kind::unless:
      return nested(n.conditions[0]) + " unless " + nested(n.conditions[1]);
  }
  MDH_INTERNAL_ASSERT(false, "unknown condition kind");
}

std::vector<ParameterRef> Condition::reads() const {
  std::vector<ParameterRef> out;
  std::function<void(const Condition&)> visit = [&](const Condition& c) {
    for (const Expr& e : c.node_->operands) e.collect_reads(out);
    for (const Condition& sub : c.node_->conditions) visit(sub);
  };
  visit(*this);
  return out;
}

std::vector<std::string> Condition::measured_values(const ValueSource& values) const {
  std::vector<std::string> out;
  std::function<void(const Condition&)> visit = [&](const Condition& c) {
    for (const Expr& e : c.node_->operands) e.describe_measured(values, out);
    for (const Condition& sub : c.node_->conditions) visit(sub);
  };
  visit(*this);
  return out;
}

}  // namespace mdh
