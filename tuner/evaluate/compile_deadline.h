// How long one compile ahead may take before the tuner gives it up. Configurations are reported in the order they
// were asked, so a compile that takes many times the others' holds every evaluation behind it (docs/decisions.md).
// A kernel that takes that long to build is a heavily unrolled one, which is rarely the fastest; it is recorded as a
// timeout and never evaluated (evaluating it would only build it again).
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "tuner/space/configuration.h"

namespace mdh::tuner {

/// The seeds of a run (the default start, given and transferred starts), whose compiles keep the first build's
/// deadline (CompileDeadline::seconds_for). Under mpirun only rank 0 reads the given and transferred starts: it marks
/// them in its requests (MpiEvaluators::mark_seeds), and another rank adds each as it arrives while its compile
/// threads look configurations up. Thread-safe.
class SeedConfigurations {
 public:
  void add(const Configuration& configuration);
  bool contains(const Configuration& configuration) const;

 private:
  mutable std::mutex mutex_;
  std::vector<Configuration> seeds_;
};

/// How many of the latest compiles the median is taken over: the compiles of the region the search is in now; a
/// median over the whole run stays at the fast early compiles and stops those near the best (docs/decisions.md).
constexpr size_t kCompileDeadlineRecentCompiles = 128;

class CompileDeadline {
 public:
  /// A compile may take max(floor_seconds, factor * the median of the latest `recent` compiles), at most
  /// `most_seconds`, once `settle` compiles have finished; before that nullopt (the compile workers' own deadline
  /// applies). A compile stopped at its deadline counts with that deadline, so where most compiles are stopped the
  /// median reaches the deadline and lifts it: the search's region decides, not its past.
  CompileDeadline(double factor, double floor_seconds, double most_seconds, size_t settle = 8,
                  size_t recent = kCompileDeadlineRecentCompiles)
      : factor_(factor), floor_seconds_(floor_seconds), most_seconds_(most_seconds), settle_(settle), recent_(recent) {}

  /// The deadline for the next compile, in seconds. Thread-safe.
  std::optional<double> seconds() const;
  /// The deadline for the compile of one configuration: a seed of the run (the default start, given and transferred
  /// starts: the baseline that its result must not fall behind) may take `first_build_seconds`, as a run's first
  /// build may, whatever the median says; any other configuration gets seconds(). Thread-safe.
  std::optional<double> seconds_for(bool seed, double first_build_seconds) const {
    return seed ? std::optional<double>(first_build_seconds) : seconds();
  }
  /// Whether a compile that has run `elapsed_seconds` is past the deadline as it stands now: one that started before
  /// `settle` compiles had finished, with only the compile worker's own deadline (up to its first-build timeout),
  /// is stopped as soon as the run's median says it takes too long. Thread-safe.
  bool passed(double elapsed_seconds) const;
  /// A finished compile's duration (a compile stopped at its deadline counts with that deadline). Thread-safe.
  void add(double seconds);

 private:
  const double factor_, floor_seconds_, most_seconds_;
  const size_t settle_, recent_;
  mutable std::mutex mutex_;
  size_t finished_ = 0;
  std::deque<double> durations_;  // the latest `recent_`
};

}  // namespace mdh::tuner
