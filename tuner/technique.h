// Search techniques behind one ask/tell interface (cppATF's initialize / next / report / finalize), seeded: the same
// seed, space and reported costs give the same sequence of configurations. No clocks, no function statics.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/search_space.h"

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

/// The technique of a run that names none. Iterated local search (`local`) rather than `auc_bandit`: it climbs from
/// the default start and the other seeds, which the bandit's members never hear of. On the H200, 100 s from the
/// default (seed 1, no transfer; results/nvidia-h200/session19/): GEMM 1024^3 `local` 0.0605 ms after 30 s and
/// 0.0594 after 100 (default 0.0700), `auc_bandit` nothing better than its default in 1,061 evaluations; contraction
/// abcdef-gdab-efgc `local` 0.2138 after 30 s and 0.2119 after 100 (default 0.2349), `auc_bandit` nothing better in
/// 152 (its random candidates took 4.9 s per compile, the neighbours of good ones 0.7 s).
/// A resumed journal keeps the technique it was recorded with (pipeline/tune.h, TuningSettings::technique).
inline constexpr const char* kDefaultTechnique = "local";

/// Names accepted by make_technique, the default (kDefaultTechnique) first.
std::vector<std::string> technique_names();
/// Throws mdh::UserError for an unknown name, listing the known ones.
std::unique_ptr<SearchTechnique> make_technique(const std::string& name);

/// A seed for the i-th sub-generator of a technique (SplitMix64 finaliser), so sub-streams do not overlap.
uint64_t derive_seed(uint64_t seed, uint64_t stream);

/// Failed configurations compare as infinitely expensive.
inline double cost_value(Cost cost) {
  return cost ? *cost : std::numeric_limits<double>::infinity();
}

}  // namespace mdh::tuner
