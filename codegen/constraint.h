// Constraints between tuning parameters as small expression trees that both evaluate and print themselves, so a
// constraint's description can never drift from what it checks (`mdh space` prints exactly what the tuner tests).
// Parameters are referred to by family and member (codegen/parameter_families.h); values come from any
// ValueSource: a typed KernelConfig (check_config) or the tuner's partial assignments.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mdh {

/// One tuning parameter: member `index` (dimension, input access, or 0) of parameter family `family`.
struct ParameterRef {
  int family = 0;
  int index = 0;
  bool operator==(const ParameterRef&) const = default;
  auto operator<=>(const ParameterRef&) const = default;
};

/// Where an expression reads parameter values from.
class ValueSource {
 public:
  virtual ~ValueSource() = default;
  virtual int64_t value(const ParameterRef& parameter) const = 0;
};

/// An integer expression. Arithmetic saturates at the int64 limits (a product of seven work-group sizes may not
/// wrap around into a small, "valid" number).
class Expr {
 public:
  static Expr constant(int64_t value);
  /// A constant printed as a name: an enumeration label ("private") or a device limit ("local memory bytes").
  static Expr named_constant(int64_t value, std::string name);
  static Expr parameter(ParameterRef parameter, std::string name);
  /// A quantity computed from several parameters by a function declared once elsewhere (e.g. the local memory a
  /// configuration needs, from codegen/tunable_geometry.h); printed as `name`.
  static Expr measured(std::string name, std::vector<ParameterRef> reads,
                       std::function<int64_t(const ValueSource&)> compute);
  static Expr product(const std::vector<Expr>& factors);  // 1 when empty

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  friend Expr ceil_div(const Expr& a, const Expr& b);

  int64_t evaluate(const ValueSource& values) const;
  std::string to_string() const;
  void collect_reads(std::vector<ParameterRef>& reads) const;
  /// "name = value" of each measured quantity in it (computed from `values`), each once, appended to `out`.
  void describe_measured(const ValueSource& values, std::vector<std::string>& out) const;

  struct Node;

 private:
  explicit Expr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
  friend class Condition;
};

/// A boolean condition over expressions.
class Condition {
 public:
  friend Condition operator<=(const Expr& a, const Expr& b);
  friend Condition operator<(const Expr& a, const Expr& b);
  friend Condition operator>=(const Expr& a, const Expr& b);
  friend Condition operator==(const Expr& a, const Expr& b);
  friend Condition operator!=(const Expr& a, const Expr& b);
  friend Condition operator&&(const Condition& a, const Condition& b);
  friend Condition operator||(const Condition& a, const Condition& b);
  /// "unless" reads better than a negated disjunction in `mdh space`: `a unless b` holds when a or b holds.
  static Condition unless(const Condition& holds, const Condition& exemption);
  /// `a is a multiple of b`: b > 0 divides a.
  static Condition multiple_of(const Expr& a, const Expr& b);

  bool holds(const ValueSource& values) const;
  std::string to_string() const;
  /// The parameters it reads, each once, in order of first appearance.
  std::vector<ParameterRef> reads() const;
  /// "name = value" of the measured quantities it compares ("largest scratch buffer bytes = 4096"), so that a
  /// violation shows the number that broke it beside the parameters.
  std::vector<std::string> measured_values(const ValueSource& values) const;

  struct Node;

 private:
  explicit Condition(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

// The comparisons take expressions, so they are found by name lookup, not only through Condition's friends.
Condition operator<=(const Expr& a, const Expr& b);
Condition operator<(const Expr& a, const Expr& b);
Condition operator>=(const Expr& a, const Expr& b);
Condition operator==(const Expr& a, const Expr& b);
Condition operator!=(const Expr& a, const Expr& b);
Expr ceil_div(const Expr& a, const Expr& b);

}  // namespace mdh
