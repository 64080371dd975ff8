// A constrained search space as ATF's chain of trees: parameters that constrain each other (through declared
// reads) form groups, each group is one GroupTree, and the space is the product of the trees, never a flat list.
// Techniques address configurations by a Point (one leaf index per group); the exact size and flat indices are
// big integers because products of trees overflow 64 bits.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/big_unsigned.h"
#include "tuner/configuration.h"
#include "tuner/group_tree.h"
#include "tuner/parameter.h"
#include "tuner/random.h"

namespace mdh::tuner {

/// A configuration index in mixed radix over the groups: leaf index per group, group order as declared.
using Point = std::vector<uint64_t>;

class SearchSpace {
 public:
  /// Generates the groups' trees in parallel (threads = 0: one per hardware thread). Throws mdh::UserError for
  /// duplicate names, reads of unknown or later parameters, and spaces without any valid configuration.
  explicit SearchSpace(std::vector<Parameter> parameters, unsigned threads = 0);

  size_t parameter_count() const { return parameters_->size(); }
  const Parameter& parameter(size_t i) const { return (*parameters_)[i]; }
  size_t group_count() const { return trees_.size(); }
  const GroupTree& group(size_t g) const { return trees_[g]; }
  /// Declaration indices of a group's parameters, ascending.
  const std::vector<size_t>& group_parameters(size_t g) const { return group_members_[g]; }
  /// The exact number of valid configurations.
  const BigUnsigned& size() const { return size_; }

  BigUnsigned index_of(const Point& point) const;
  /// Requires index < size().
  Point point_of(BigUnsigned index) const;
  Configuration configuration(const Point& point) const;
  /// The point of a configuration, or nullopt when the configuration is not valid.
  std::optional<Point> point_of(const Configuration& configuration) const;
  /// Parses {"NAME": value, ...}; throws mdh::UserError for missing/unknown names, bad values or invalid ones.
  Configuration configuration_from_json(const nlohmann::json& json) const;

  /// A configuration drawn uniformly from all valid ones.
  Point sample(Rng& rng) const;
  /// All valid configurations that differ from `point` in exactly one parameter's value.
  std::vector<Point> neighbours(const Point& point) const;

  /// Per parameter (declaration order), the value's place among the parameter's used values in [0, 1]:
  /// the continuous view that differential evolution, particle swarm and pattern search move in.
  std::vector<double> coordinates(const Point& point) const;
  /// A valid configuration near the given coordinates (see GroupTree::closest).
  Point closest(std::span<const double> coordinates) const;

  size_t memory_bytes() const;

 private:
  std::shared_ptr<const std::vector<Parameter>> parameters_;
  std::vector<std::vector<size_t>> group_members_;
  std::vector<GroupTree> trees_;
  BigUnsigned size_;
};

}  // namespace mdh::tuner
