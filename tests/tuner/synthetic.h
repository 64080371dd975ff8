// Synthetic spaces and cost landscapes shared by the tuner tests and their helper programs.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "tuner/evaluate/evaluation.h"
#include "tuner/space/search_space.h"

namespace mdh::tuner::testing {

/// Three coupled parameters (X, Y, Z in 1..12, X*Y <= 96, Z <= X+Y) and an unconstrained flag: 2 groups.
inline std::vector<Parameter> bowl_parameters() {
  using Reads = std::span<const int64_t>;
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("X", Range::interval(1, 12)));
  p.push_back(Parameter::integer("Y", Range::interval(1, 12)).constrain({"X"}, [](int64_t y, Reads r) {
    return r[0] * y <= 96;
  }));
  p.push_back(Parameter::integer("Z", Range::interval(1, 12)).constrain({"X", "Y"}, [](int64_t z, Reads r) {
    return z <= r[0] + r[1];
  }));
  p.push_back(Parameter::boolean("FLAG"));
  return p;
}

/// A bowl with its unique minimum 1.0 at X=7, Y=5, Z=9, FLAG=1, and local wiggles so it is not trivially convex.
inline double bowl_cost(int64_t x, int64_t y, int64_t z, int64_t flag) {
  double dx = static_cast<double>(x - 7), dy = static_cast<double>(y - 5), dz = static_cast<double>(z - 9);
  return 1.0 + 0.05 * (dx * dx + 2 * dy * dy + 0.5 * dz * dz) + (flag ? 0.0 : 0.3) +
         0.02 * std::abs(std::sin(static_cast<double>(x * 3 + y * 5 + z * 7)));
}

inline double bowl_cost(const Configuration& c) {
  return bowl_cost(c["X"], c["Y"], c["Z"], c["FLAG"]);
}

/// The bowl with failing configurations: X+Z divisible by 5 (but never the optimum) fails to "build".
class BowlCostFunction : public CostFunction {
 public:
  explicit BowlCostFunction(bool with_failures = false) : with_failures_(with_failures) {}
  EvaluationResult evaluate(const Configuration& c) override {
    evaluated.push_back(c);
    if (with_failures_ && (c["X"] + c["Z"]) % 5 == 0)
      return EvaluationResult::failed(EvaluationStatus::build_error, "synthetic");
    return EvaluationResult::ok(bowl_cost(c));
  }
  std::vector<Configuration> evaluated;

 private:
  bool with_failures_;
};

}  // namespace mdh::tuner::testing
