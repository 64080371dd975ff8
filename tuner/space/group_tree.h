// One group of interdependent parameters as ATF's constrained tree: level l holds the valid values of the group's
// l-th parameter given its ancestors, and every root-to-leaf path is one valid partial configuration.
// Layout (why it is compact): each level is three flat arrays (range index of the value, first child in the next
// level, first leaf below) instead of node objects, and the last parameters whose ranges multiply to at most 64
// (typically booleans and small vector widths) are not stored as levels at all but as one 64-bit mask per node of
// the last stored level, bit i set when the i-th combination of their values (mixed radix) is valid.
// A permutation with too many orders to list (Range::enumerated() false) is the group's last parameter and never a
// level: each node of the last stored level names the PermutationSet of its valid orders (one per read tuple), so
// a group of 20-element permutations holds a few sets, not 20! nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "support/error.h"
#include "tuner/space/parameter.h"
#include "tuner/space/permutation_set.h"

namespace mdh::tuner {

/// A group's parameter with its constraint reads resolved to positions (earlier parameters of the same group).
struct GroupParameter {
  const Parameter* parameter = nullptr;
  std::vector<std::vector<size_t>> constraint_reads;  // per constraint, the positions it reads, in declared order
};

/// The most nodes a group's tree may store (16 bytes or more each): a group with more valid partial configurations is
/// refused at once rather than filling memory for minutes (every integer of LT_SIZE, PT_SIZE, NUM_WI and NUM_WG of an
/// extent of thousands makes tens of millions).
inline constexpr uint64_t kMaxGroupTreeNodes = uint64_t{1} << 24;

/// The error of a group whose tree would store more than kMaxGroupTreeNodes nodes.
class GroupTooLarge : public UserError {
 public:
  using UserError::UserError;
};

class GroupTree {
 public:
  /// Generates the tree depth-first, dropping a value as soon as a constraint fails and a subtree once it turns
  /// out to hold no leaf; the first level is split across `threads` threads. Throws mdh::UserError when a
  /// parameter whose range is not enumerated is not the group's last or has a constraint given only as a predicate,
  /// and GroupTooLarge once the tree would store more than kMaxGroupTreeNodes nodes.
  static GroupTree build(std::vector<GroupParameter> parameters, unsigned threads);

  uint64_t leaf_count() const { return leaf_count_; }
  size_t parameter_count() const { return parameters_.size(); }
  const Parameter& parameter(size_t position) const { return *parameters_[position].parameter; }

  /// The range indices of the leaf's values, one per parameter of the group (leaves in lexicographic order).
  void path_of_leaf(uint64_t leaf, std::span<uint64_t> range_indices) const;
  /// The leaf with these range indices, or nullopt when that combination is not valid.
  std::optional<uint64_t> leaf_of_path(std::span<const uint64_t> range_indices) const;
  /// All leaves that differ from `leaf` in exactly one parameter's value, as (parameter position, leaf). For a
  /// permutation that is not enumerated: the valid orders one transposition away (n(n-1)/2 at most, not n!).
  void neighbours(uint64_t leaf, std::vector<std::pair<size_t, uint64_t>>& out) const;

  /// The sorted range indices that occur for a parameter in some valid configuration (not for a permutation that
  /// is not enumerated: see is_used).
  const std::vector<uint32_t>& used_values(size_t position) const { return used_values_[position]; }
  /// Whether the value with this range index occurs for the parameter in some valid configuration.
  bool is_used(size_t position, uint64_t range_index) const;
  /// A parameter value's place among its used values (those in some valid configuration), scaled to [0, 1]
  /// (0 for a parameter with one used value).
  double coordinate(size_t position, uint64_t range_index) const;
  /// A valid leaf close to the given coordinates (one per parameter): greedy descent choosing the closest value
  /// level by level, then the closest combination of the mask-stored parameters.
  uint64_t closest(std::span<const double> coordinates) const;

  size_t memory_bytes() const;
  /// Nodes stored over all levels (a permutation that is not enumerated adds none).
  size_t stored_nodes() const;
  /// Distinct PermutationSets of the last parameter (0 when it is enumerated).
  size_t permutation_set_count() const { return permutation_sets_.size(); }

  struct Level {
    std::vector<uint32_t> value;        // range index of the node's value
    std::vector<uint32_t> child_begin;  // first child in the next level; one sentinel at the end
    std::vector<uint64_t> leaf_begin;   // first leaf below the node; one sentinel at the end
  };

 private:
  uint64_t tail_mask(size_t node) const { return tail_masks_.empty() ? 1 : tail_masks_[node]; }
  const PermutationSet& set_of(size_t node) const { return permutation_sets_[set_of_node_[node]]; }
  // Decodes a tail bit into range indices / encodes them.
  void decode_tail(unsigned bit, std::span<uint64_t> range_indices) const;
  unsigned encode_tail(std::span<const uint64_t> range_indices) const;
  // The last-stored-level node reached by following `range_indices` from sibling range [begin, end) of level l.
  std::optional<size_t> follow(size_t level, size_t begin, size_t end, std::span<const uint64_t> range_indices) const;
  uint64_t leaf_in_node(size_t node, unsigned bit) const;
  // The first leaf below a node of the last stored level (0 for the root when no level is stored).
  uint64_t node_leaf_begin(size_t node) const;
  // The leaf below a node of the last stored level whose remaining values are these (nullopt: not valid there).
  std::optional<uint64_t> leaf_at(size_t node, std::span<const uint64_t> range_indices) const;
  void collect_used_values();

  std::vector<GroupParameter> parameters_;
  size_t stored_levels_ = 0;  // parameters [0, stored_levels_) are levels; the rest live in tail masks
  std::vector<Level> levels_;
  std::vector<uint64_t> tail_masks_;  // one per node of the last level (one root mask when no level is stored)
  std::vector<uint32_t> tail_radix_;  // range sizes of the tail parameters
  uint64_t leaf_count_ = 0;
  bool lazy_ = false;                             // the last parameter is a permutation that is not enumerated
  std::vector<PermutationSet> permutation_sets_;  // lazy: the distinct sets of valid orders
  std::vector<uint32_t> set_of_node_;             // lazy: per node of the last stored level (or the root), its set
  std::optional<PermutationSet> used_orders_;     // lazy: the orders that occur in some set
  std::vector<std::vector<uint32_t>> used_values_;
  std::vector<std::vector<int32_t>> rank_of_value_;  // per parameter, range index -> rank among used values or -1
};

}  // namespace mdh::tuner
