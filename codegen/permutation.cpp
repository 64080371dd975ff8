// Lexicographic ranks of permutations through the factorial number system.
#include "codegen/permutation.h"

#include <algorithm>

#include "support/error.h"

namespace mdh {

int64_t factorial(int n) {
  MDH_INTERNAL_ASSERT(n >= 0 && n <= 20, "factorial of " + std::to_string(n) + " does not fit 64 bits");
  int64_t f = 1;
  for (int k = 2; k <= n; ++k) f *= k;
  return f;
}

int64_t permutation_rank(const std::vector<int>& permutation) {
  const int n = static_cast<int>(permutation.size());
  int64_t rank = 0;
  for (int k = 0; k < n; ++k) {
    int smaller_later = 0;
    for (int m = k + 1; m < n; ++m) smaller_later += permutation[m] < permutation[k];
    rank += smaller_later * factorial(n - 1 - k);
  }
  return rank;
}

std::vector<int> permutation_from_rank(int64_t rank, int n) {
  std::vector<int> pool(n), out;
  for (int k = 0; k < n; ++k) pool[k] = k;
  for (int k = n; k >= 1; --k) {
    const int64_t f = factorial(k - 1);
    const int64_t pick = rank / f;
    rank %= f;
    out.push_back(pool.at(pick));
    pool.erase(pool.begin() + pick);
  }
  return out;
}

bool is_permutation_of_iota(const std::vector<int>& order, int n) {
  if (static_cast<int>(order.size()) != n) return false;
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < n; ++k)
    if (sorted[k] != k) return false;
  return true;
}

}  // namespace mdh
