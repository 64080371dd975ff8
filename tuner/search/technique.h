// Search techniques behind one ask/tell interface (cppATF's initialize / next / report / finalize), seeded: the same
// seed, space and reported costs give the same sequence of configurations. No clocks, no function statics.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/space/search_space.h"

namespace mdh::tuner {

/// A measured cost (lower is better), or nullopt for a configuration that failed (build error, timeout, ...).
using Cost = std::optional<double>;

class SearchTechnique {
 public:
  virtual ~SearchTechnique() = default;
  virtual std::string name() const = 0;
  /// Starts a search over `space`, which must outlive the technique's use.
  virtual void initialize(const SearchSpace& space, uint64_t seed) = 0;
  /// The next configuration to evaluate. The tuner may ask several times before reporting (parallel evaluation,
  /// compiling ahead); reports always come in the order of the asks.
  virtual Point next() = 0;
  /// The cost of the oldest configuration asked for and not yet reported.
  virtual void report(Cost cost) = 0;
  /// The cost of a configuration evaluated without being asked of this technique (a seed of SeededTechnique: the
  /// default configuration, a --start, a transferred result). A technique that learns from every measurement takes
  /// it in; the others ignore it, so their search stays the one they make without seeds.
  virtual void observe(const Point& /*point*/, Cost /*cost*/) {}
  /// A configuration that will be evaluated without being asked of this technique (a seed), said before it is: its
  /// cost follows through observe(), after the tuner has asked ahead of it. A technique that climbs from the best
  /// configuration it knows can climb from it meanwhile instead of asking random configurations.
  virtual void expect(const Point& /*point*/) {}
  virtual void finalize() {}
};

/// A seed for the i-th sub-generator of a technique (SplitMix64 finaliser), so sub-streams do not overlap.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

/// Failed configurations compare as infinitely expensive.
inline double cost_value(Cost cost) {
  return cost ? *cost : std::numeric_limits<double>::infinity();
}

}  // namespace mdh::tuner
