// Sets of permutations addressed by lexicographic rank without listing them: what a tree level holds for a
// permutation parameter with too many values to enumerate (20 elements have 2.4e18 orders). A set is either every
// permutation that keeps given element classes in order (all permutations when there is one class), or an explicit
// sorted list of ranks (a restriction, a pinned value).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace mdh::tuner {

/// The most elements a permutation parameter may permute: 20! is the largest factorial that fits 64 bits.
inline constexpr int kMaxPermutationLength = 20;

/// n! for 0 <= n <= kMaxPermutationLength.
uint64_t permutation_count(int n);
/// Lexicographic rank of a permutation of 0..n-1, and back (factorial number system).
int64_t rank_of_permutation(const std::vector<int>& permutation);
std::vector<int> permutation_of_rank(int64_t rank, int n);

class PermutationSet {
 public:
  /// The permutations of 0..n-1 that place every element of a smaller class before every element of a larger one
  /// (`class_of_element[e]`; empty: one class, i.e. all n! permutations).
  static PermutationSet class_ordered(int n, std::vector<int> class_of_element);
  /// Exactly these ranks (any order, duplicates allowed).
  static PermutationSet listed(int n, std::vector<int64_t> ranks);

  int length() const { return n_; }
  bool is_listed() const { return listed_; }
  uint64_t size() const { return listed_ ? ranks_.size() : size_; }
  /// The rank of the k-th member in ascending rank order; k < size().
  int64_t at(uint64_t k) const;
  /// The position of a rank among the members, or nullopt when it is not one.
  std::optional<uint64_t> index_of(int64_t rank) const;
  /// The members that also occur in `ranks`, as a listed set.
  PermutationSet intersected_with_list(const std::vector<int64_t>& ranks) const;
  /// Positions of the members one transposition (swap of two elements) away from member `rank`, ascending. For a
  /// listed set: every other member (lists are short).
  void transposition_neighbours(int64_t rank, std::vector<uint64_t>& out) const;

  bool operator==(const PermutationSet& other) const;

 private:
  int n_ = 0;
  bool listed_ = false;
  std::vector<int64_t> ranks_;             // listed: sorted, unique
  std::vector<std::vector<int>> classes_;  // class-ordered: elements of each class, ascending, classes ascending
  std::vector<int> class_of_element_;      // class-ordered: the class index (into classes_) of each element
  uint64_t size_ = 0;                      // class-ordered: product of the classes' factorials
};

}  // namespace mdh::tuner
