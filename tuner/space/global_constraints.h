// Cross-group (deferred) constraints: predicates over parameters of several groups, e.g. "the product of the
// work-items of all dimensions is at most the device's work-group size". Declared as ordinary constraints they
// would merge every group they read into one tree, and a tree over ~30 parameters is astronomically large (ATF's
// chain of trees has exactly this weakness). Kept out of the trees, they are checked per configuration instead:
// the trees span the candidates, and a candidate is a valid configuration iff every global constraint holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "tuner/space/parameter.h"

namespace mdh::tuner {

/// A constraint checked per configuration, outside the trees. `holds` receives the values of `reads` in the order
/// of `reads` and must be a pure function of them.
struct GlobalConstraint {
  std::string description;         // shown in diagnostics, e.g. "product of NUM_WI <= 1024"
  std::vector<std::string> reads;  // parameter names, any order, any group
  std::function<bool(std::span<const int64_t> values)> holds;
};

/// Reusable buffers for checking configurations without allocating per check.
struct CheckScratch {
  std::vector<int64_t> values;  // per parameter (declaration order); only the parameters of decoded groups are set
  std::vector<int64_t> reads;   // the read values of the constraint being checked
  std::vector<uint64_t> path;   // range indices of one group's leaf
};

/// The global constraints of a space with their reads resolved to declaration indices and groups.
class GlobalConstraintSet {
 public:
  static constexpr size_t npos = static_cast<size_t>(-1);

  GlobalConstraintSet() = default;
  /// Throws mdh::UserError for a constraint without reads or predicate, or reading an unknown parameter.
  GlobalConstraintSet(std::vector<GlobalConstraint> constraints, const std::vector<Parameter>& parameters,
                      const std::vector<size_t>& group_of_parameter, size_t group_count);

  bool empty() const { return constraints_.empty(); }
  size_t size() const { return constraints_.size(); }
  const std::string& description(size_t c) const { return constraints_[c].description; }
  /// The groups any constraint reads, ascending: only those need decoding to check a configuration.
  const std::vector<size_t>& read_groups() const { return read_groups_; }
  /// The constraints that read a parameter of group g, ascending.
  const std::vector<size_t>& constraints_reading(size_t g) const { return constraints_of_group_[g]; }
  /// The groups constraint c reads, ascending.
  const std::vector<size_t>& groups_read_by(size_t c) const { return constraints_[c].groups; }

  /// Whether constraint c holds for `values` (declaration order; the parameters it reads must be set).
  bool holds(size_t c, std::span<const int64_t> values, std::vector<int64_t>& reads) const;
  /// The first constraint (declaration order) that fails for `values`, or npos when all hold.
  size_t first_failure(std::span<const int64_t> values, std::vector<int64_t>& reads) const;

 private:
  struct Resolved {
    std::string description;
    std::vector<size_t> reads;   // declaration indices, in the order of GlobalConstraint::reads
    std::vector<size_t> groups;  // the groups of `reads`, ascending
    std::function<bool(std::span<const int64_t>)> holds;
  };
  std::vector<Resolved> constraints_;
  std::vector<size_t> read_groups_;
  std::vector<std::vector<size_t>> constraints_of_group_;
};

}  // namespace mdh::tuner
