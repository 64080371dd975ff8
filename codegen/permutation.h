// Permutations of 0..n-1 by lexicographic rank: the values of LOOP_ORDER and BUF_ORDER parameters.
#pragma once

#include <cstdint>
#include <vector>

namespace mdh {

/// n! (n <= 20; larger n is an internal error: the rank would not fit 64 bits).
int64_t factorial(int n);
/// The lexicographic rank of a permutation of 0..n-1 and its inverse.
int64_t permutation_rank(const std::vector<int>& permutation);
std::vector<int> permutation_from_rank(int64_t rank, int n);
/// Whether `order` is a permutation of 0..n-1.
bool is_permutation_of_iota(const std::vector<int>& order, int n);

}  // namespace mdh
