// A constrained search space as ATF's chain of trees: parameters that constrain each other (through declared
// reads) form groups, each group is one GroupTree, and the space is the product of the trees, never a flat list.
// Techniques address configurations by a Point (one leaf index per group); the exact size and flat indices are
// big integers because products of trees overflow 64 bits.
// Global constraints (global_constraints.h) read parameters of several groups without merging them: the product
// of the trees is then the set of *candidates*, and a candidate is valid iff every global constraint holds. Every
// way a technique obtains points (sample, neighbours, closest, point_of) yields valid points only.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "support/error.h"
#include "tuner/space/big_unsigned.h"
#include "tuner/space/configuration.h"
#include "tuner/space/global_constraints.h"
#include "tuner/space/group_tree.h"
#include "tuner/space/parameter.h"
#include "tuner/space/random.h"
#include "tuner/space/sampling_blocks.h"

namespace mdh::tuner {

/// A configuration index in mixed radix over the groups: leaf index per group, group order as declared.
using Point = std::vector<uint64_t>;

/// The number of valid configurations of a space with global constraints, estimated from uniform candidates.
struct ValidSizeEstimate {
  double valid = 0;          // candidates x fraction of sampled candidates that are valid
  double low = 0, high = 0;  // 95% confidence interval (Wilson score interval of the fraction, times candidates)
  bool exact = false;        // no global constraints: valid == low == high == size()
  uint64_t samples = 0, valid_samples = 0;
};

class SearchSpace {
 public:
  /// Generates the groups' trees in parallel (threads = 0: one per hardware thread). Throws mdh::UserError for
  /// duplicate names, reads of unknown or later parameters, and spaces without any valid configuration.
  explicit SearchSpace(std::vector<Parameter> parameters, unsigned threads = 0);
  /// The same trees, plus constraints checked per configuration (they take no part in group detection). When the
  /// candidates number at most kEagerCountLimit they are counted at once (known_valid_size), and a space with no
  /// valid configuration throws mdh::UserError naming the constraints that fail.
  SearchSpace(std::vector<Parameter> parameters, std::vector<GlobalConstraint> global_constraints,
              unsigned threads = 0);
  static constexpr uint64_t kEagerCountLimit = uint64_t{1} << 16;

  size_t parameter_count() const { return parameters_->size(); }
  const Parameter& parameter(size_t i) const { return (*parameters_)[i]; }
  size_t group_count() const { return trees_.size(); }
  const GroupTree& group(size_t g) const { return trees_[g]; }
  /// Declaration indices of a group's parameters, ascending.
  const std::vector<size_t>& group_parameters(size_t g) const { return group_members_[g]; }
  /// The exact number of configurations of the trees' product: the valid configurations when the space has no
  /// global constraints, otherwise the *candidates* (see estimate_valid_size / exact_valid_size).
  const BigUnsigned& size() const { return size_; }

  bool has_global_constraints() const { return !globals_.empty(); }
  const GlobalConstraintSet& global_constraints() const { return globals_; }
  /// Whether every global constraint holds for the point (always true without global constraints).
  bool is_valid(const Point& point) const;
  /// Nullopt when the configuration satisfies every global constraint, else the first one it violates.
  std::optional<std::string> violated_global_constraint(const Configuration& configuration) const;
  /// size() x the fraction of `samples` uniform candidates that are valid, with a 95% interval; exact (and
  /// without sampling) when there are no global constraints. Where the sampling blocks are active: the
  /// configurations they draw from x the fraction of their draws that are valid.
  ValidSizeEstimate estimate_valid_size(uint64_t samples, uint64_t seed) const;
  /// The exact number of valid configurations by enumerating the candidates, or nullopt when there are more than
  /// `limit` candidates. Without global constraints it is size(), whatever the limit.
  std::optional<BigUnsigned> exact_valid_size(const BigUnsigned& limit) const;
  /// The exact number of valid configurations when it is known without enumerating now: size() without global
  /// constraints, the eager count for spaces of at most kEagerCountLimit candidates, else nullopt.
  const std::optional<BigUnsigned>& known_valid_size() const { return known_valid_size_; }

  /// The candidate index of a point (indices of valid configurations are not contiguous under global constraints).
  BigUnsigned index_of(const Point& point) const;
  /// The candidate with this index (possibly invalid: check is_valid). Requires index < size().
  Point point_of(BigUnsigned index) const;
  Configuration configuration(const Point& point) const;
  /// The point of a configuration, or nullopt when the configuration is not valid.
  std::optional<Point> point_of(const Configuration& configuration) const;
  /// Parses {"NAME": value, ...}; throws mdh::UserError for missing/unknown names, bad values or invalid ones.
  Configuration configuration_from_json(const nlohmann::json& json) const;

  /// A configuration drawn uniformly from all valid ones (with global constraints: rejection of uniform
  /// candidates, or of uniform draws through the sampling blocks where those are active; where rejecting
  /// candidates gives up, through the inactive blocks). Throws mdh::UserError naming the constraints that fail most
  /// when kMaxSampleAttempts draws in a row are invalid (each way).
  Point sample(Rng& rng) const;
  static constexpr uint64_t kMaxSampleAttempts = 1'000'000;
  /// The groups that global constraints tie into blocks for sampling (sampling_blocks.h).
  const SamplingBlocks& sampling_blocks() const { return blocks_; }
  /// All valid configurations that differ from `point` in exactly one parameter's value.
  std::vector<Point> neighbours(const Point& point) const;
  /// One of neighbours(point) drawn uniformly (nullopt where it is empty), checking candidates in random order until
  /// one is valid: for a random step, far cheaper than checking the whole neighbourhood.
  std::optional<Point> random_neighbour(const Point& point, Rng& rng) const;

  /// Per parameter (declaration order), the value's place among the parameter's used values in [0, 1]:
  /// the continuous view that differential evolution, particle swarm and pattern search move in.
  std::vector<double> coordinates(const Point& point) const;
  /// A valid configuration near the given coordinates: the trees' closest candidate (GroupTree::closest) if it is
  /// valid, else the nearest valid one found by a nearest-first search over one-parameter changes, else a uniform
  /// sample seeded from the coordinates. Deterministic in the coordinates.
  Point closest(std::span<const double> coordinates) const;

  size_t memory_bytes() const;

 private:
  // Sets scratch.values for the parameters of group g at the point's leaf.
  void decode_group(const Point& point, size_t g, CheckScratch& scratch) const;
  bool is_valid(const Point& point, CheckScratch& scratch) const;
  // One uniform candidate, or with active sampling blocks one uniform draw through them.
  void draw(Rng& rng, Point& point) const;
  // Every one-parameter change of the point, valid or not.
  void candidate_neighbours(const Point& point, std::vector<Point>& out) const;
  double squared_distance(const Point& point, std::span<const double> coordinates, CheckScratch& scratch) const;
  std::optional<Point> nearest_valid_around(const Point& start, std::span<const double> coordinates) const;
  // The UserError for a space whose candidates (nearly) all fail: counts failures of every constraint over
  // `candidates` (all of them when `exhaustive`, else uniform draws from rng).
  UserError no_valid_configuration(Rng& rng, bool exhaustive) const;

  std::shared_ptr<const std::vector<Parameter>> parameters_;
  std::vector<std::vector<size_t>> group_members_;
  std::vector<GroupTree> trees_;
  BigUnsigned size_;
  GlobalConstraintSet globals_;
  std::optional<BigUnsigned> known_valid_size_;
  SamplingBlocks blocks_;
};

}  // namespace mdh::tuner
