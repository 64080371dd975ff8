// Rank arithmetic of permutation sets: a class-ordered permutation is one permutation per class, concatenated in
// class order, so its place among the members is a mixed-radix number of the classes' own ranks.
#include "tuner/space/permutation_set.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "support/error.h"

namespace mdh::tuner {

uint64_t permutation_count(int n) {
  MDH_INTERNAL_ASSERT(n >= 0 && n <= kMaxPermutationLength, "n! of n = " + std::to_string(n) + " exceeds 64 bits");
  uint64_t result = 1;
  for (int i = 2; i <= n; ++i) result *= static_cast<uint64_t>(i);
  return result;
}

int64_t rank_of_permutation(const std::vector<int>& permutation) {
  const int n = static_cast<int>(permutation.size());
  int64_t rank = 0;
  for (int i = 0; i < n; ++i) {
    int64_t smaller_later = 0;
    for (int j = i + 1; j < n; ++j) smaller_later += permutation[j] < permutation[i] ? 1 : 0;
    rank += smaller_later * static_cast<int64_t>(permutation_count(n - 1 - i));
  }
  return rank;
}

std::vector<int> permutation_of_rank(int64_t rank, int n) {
  MDH_INTERNAL_ASSERT(rank >= 0 && static_cast<uint64_t>(rank) < permutation_count(n), "permutation rank out of range");
  std::vector<int> remaining(n);
  std::iota(remaining.begin(), remaining.end(), 0);
  std::vector<int> result;
  result.reserve(n);
  for (int i = n; i >= 1; --i) {
    const int64_t block = static_cast<int64_t>(permutation_count(i - 1));
    const auto digit = static_cast<size_t>(rank / block);
    rank %= block;
    result.push_back(remaining[digit]);
    remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(digit));
  }
  return result;
}

PermutationSet PermutationSet::class_ordered(int n, std::vector<int> class_of_element) {
  MDH_INTERNAL_ASSERT(n >= 1 && n <= kMaxPermutationLength, "permutation length out of range");
  if (class_of_element.empty()) class_of_element.assign(n, 0);
  MDH_INTERNAL_ASSERT(class_of_element.size() == static_cast<size_t>(n), "one class per element");
  PermutationSet set;
  set.n_ = n;
  std::map<int, std::vector<int>> by_class;
  for (int e = 0; e < n; ++e) by_class[class_of_element[e]].push_back(e);
  set.class_of_element_.assign(n, 0);
  set.size_ = 1;
  for (auto& [label, elements] : by_class) {
    for (int e : elements) set.class_of_element_[e] = static_cast<int>(set.classes_.size());
    set.size_ *= permutation_count(static_cast<int>(elements.size()));
    set.classes_.push_back(std::move(elements));
  }
  return set;
}

PermutationSet PermutationSet::listed(int n, std::vector<int64_t> ranks) {
  PermutationSet set;
  set.n_ = n;
  set.listed_ = true;
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  set.ranks_ = std::move(ranks);
  return set;
}

int64_t PermutationSet::at(uint64_t k) const {
  MDH_INTERNAL_ASSERT(k < size(), "permutation set index out of range");
  if (listed_) return ranks_[k];
  // Class 0 is the most significant digit: its elements come first, so they decide the order first.
  std::vector<uint64_t> digits(classes_.size());
  for (size_t c = classes_.size(); c-- > 0;) {
    const uint64_t radix = permutation_count(static_cast<int>(classes_[c].size()));
    digits[c] = k % radix;
    k /= radix;
  }
  std::vector<int> permutation;
  permutation.reserve(n_);
  for (size_t c = 0; c < classes_.size(); ++c)
    for (int i : permutation_of_rank(static_cast<int64_t>(digits[c]), static_cast<int>(classes_[c].size())))
      permutation.push_back(classes_[c][i]);
  return rank_of_permutation(permutation);
}

std::optional<uint64_t> PermutationSet::index_of(int64_t rank) const {
  if (rank < 0 || static_cast<uint64_t>(rank) >= permutation_count(n_)) return std::nullopt;
  if (listed_) {
    auto it = std::lower_bound(ranks_.begin(), ranks_.end(), rank);
    if (it == ranks_.end() || *it != rank) return std::nullopt;
    return static_cast<uint64_t>(it - ranks_.begin());
  }
  const std::vector<int> permutation = permutation_of_rank(rank, n_);
  uint64_t index = 0;
  size_t position = 0;
  for (const std::vector<int>& elements : classes_) {
    // The class's block: its elements' places within the class, as a permutation of 0..m-1.
    std::vector<int> block;
    for (size_t i = 0; i < elements.size(); ++i, ++position) {
      const int e = permutation[position];
      if (&classes_[class_of_element_[e]] != &elements) return std::nullopt;
      block.push_back(static_cast<int>(std::lower_bound(elements.begin(), elements.end(), e) - elements.begin()));
    }
    index = index * permutation_count(static_cast<int>(elements.size())) +
            static_cast<uint64_t>(rank_of_permutation(block));
  }
  return index;
}

PermutationSet PermutationSet::intersected_with_list(const std::vector<int64_t>& ranks) const {
  std::vector<int64_t> kept;
  for (int64_t r : ranks)
    if (index_of(r)) kept.push_back(r);
  return listed(n_, std::move(kept));
}

void PermutationSet::transposition_neighbours(int64_t rank, std::vector<uint64_t>& out) const {
  const auto self = index_of(rank);
  MDH_INTERNAL_ASSERT(self.has_value(), "not a member of the permutation set");
  const size_t first = out.size();
  if (listed_) {
    for (uint64_t k = 0; k < ranks_.size(); ++k)
      if (k != *self) out.push_back(k);
    return;
  }
  std::vector<int> permutation = permutation_of_rank(rank, n_);
  for (int i = 0; i < n_; ++i)
    for (int j = i + 1; j < n_; ++j) {
      if (class_of_element_[permutation[i]] != class_of_element_[permutation[j]]) continue;
      std::swap(permutation[i], permutation[j]);
      out.push_back(*index_of(rank_of_permutation(permutation)));
      std::swap(permutation[i], permutation[j]);
    }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

bool PermutationSet::operator==(const PermutationSet& other) const {
  return n_ == other.n_ && listed_ == other.listed_ && ranks_ == other.ranks_ && classes_ == other.classes_;
}

}  // namespace mdh::tuner
