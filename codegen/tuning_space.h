// The tuning space of the tunable kernel as data: parameters with their ranges and the constraints between them
// (cppATF style: each constraint names the parameters it reads, all declared before or at its last one).
// Independent of the tuner library's types; an adapter maps it onto tuner/. Every configuration that satisfies
// all constraints builds, launches and gives the right result: the emitter relies on exactly these constraints.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "mdh/bind.h"

namespace mdh {

/// One value per parameter, indexed like TuningSpace::parameters.
using Assignment = std::vector<int64_t>;

struct TuningParameter {
  std::string name;    // "LT_SIZE_i", "MEM_INP_L_A", "LOOP_ORDER_G", ...
  std::string family;  // "LT_SIZE", "MEM_INP", ...
  /// The values, in the order a tuner should prefer to try them (the first is the default); for an interval,
  /// empty and `interval_lo..interval_hi` (inclusive) instead.
  std::vector<int64_t> values;
  bool is_interval = false;
  int64_t interval_lo = 0, interval_hi = -1;
  /// Labels of enumerated values ("none", "local"; "P", "L", "G"; a permutation "k,i,j"), parallel to `values`.
  std::vector<std::string> value_names;
  /// Parameters of one group are constrained mostly among themselves (the four sizes of one dimension); the
  /// counting and sampling below exploit it. Each other parameter is a group of its own.
  int group = 0;

  int64_t range_size() const { return is_interval ? interval_hi - interval_lo + 1 : static_cast<int64_t>(values.size()); }
  int64_t value_at(int64_t k) const { return is_interval ? interval_lo + k : values.at(k); }
  bool contains(int64_t v) const;
  std::string value_name(int64_t v) const;  // the label, or the number
};

struct TuningConstraint {
  std::string description;  // "PT_SIZE_i <= LT_SIZE_i"
  std::vector<int> reads;   // parameter indices it reads
  std::function<bool(const Assignment&)> holds;
  int last_read() const;    // the parameter after which it can be checked
};

struct TuningSpace {
  std::vector<TuningParameter> parameters;
  std::vector<TuningConstraint> constraints;
  int find(const std::string& name) const;  // -1 when absent
  /// Narrows a parameter to the given values (tests, restricted spaces); throws UserError for an unknown name.
  void restrict_to(const std::string& name, const std::vector<int64_t>& values);
};

/// Throws UserError when the tunable kernel cannot handle the md_hom at all (several reduction dimensions whose
/// operators differ or are user operators: their nesting order could not be kept).
TuningSpace make_tuning_space(const BoundMdh& bound, const DeviceLimits& limits);

Assignment assignment_from_config(const BoundMdh& bound, const TuningSpace& space, const KernelConfig& config);
KernelConfig config_from_assignment(const BoundMdh& bound, const TuningSpace& space, const Assignment& values);

/// Nullopt when every value is in its range and every constraint holds; otherwise what is wrong, e.g.
/// "PT_SIZE_i = 8 violates PT_SIZE_i <= LT_SIZE_i".
std::optional<std::string> first_violation(const TuningSpace& space, const Assignment& values);

/// Throws UserError("config: ...") when the config has the wrong shape, sets a value the kernel does not support
/// (G-layer caching, MEM_RES[G] other than global) or violates the space's constraints for the device.
void check_config(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits);

struct SpaceSize {
  double count = 0;
  bool exact = false;
  std::string method;  // how it was obtained, for `mdh space`
};
/// Counts the valid configurations exactly when at most `enumeration_budget` candidates need checking, otherwise
/// estimates: exact counts per group times the fraction of `samples` uniform draws that satisfy the constraints
/// across groups.
SpaceSize count_valid_configurations(const TuningSpace& space, int64_t enumeration_budget = 5'000'000,
                                     int samples = 20'000, uint64_t seed = 1);

/// A valid assignment drawn uniformly at random from all valid ones (rejection sampling, group by group).
/// Throws UserError when none is found after many attempts (an empty or nearly empty space).
Assignment random_valid_assignment(const TuningSpace& space, std::mt19937_64& rng);

/// Calls `visit` for every valid assignment, in lexicographic order of the parameters' value lists.
void for_each_valid_assignment(const TuningSpace& space, const std::function<void(const Assignment&)>& visit);

/// The lexicographic rank of a permutation of 0..n-1 and its inverse (LOOP_ORDER and BUF_ORDER values).
int64_t permutation_rank(const std::vector<int>& permutation);
std::vector<int> permutation_from_rank(int64_t rank, int n);

}  // namespace mdh
