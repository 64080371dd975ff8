// Integer arithmetic that stops at the type's limits instead of wrapping: products of sizes, tile counts and bytes
// over up to 20 dimensions pass 2^63, and a saturated count still exceeds every limit it is checked against, where a
// wrapped one could pass.
#pragma once

#include <limits>
#include <type_traits>

namespace mdh {

/// a * b, or the type's maximum (minimum for a negative product) where it does not fit.
template <typename T>
constexpr T saturating_mul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T r{};
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  if constexpr (std::is_signed_v<T>)
    if ((a < 0) != (b < 0)) return std::numeric_limits<T>::min();
  return std::numeric_limits<T>::max();
}

/// a + b, or the type's maximum (minimum below it) where it does not fit.
template <typename T>
constexpr T saturating_add(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T r{};
  if (!__builtin_add_overflow(a, b, &r)) return r;
  if constexpr (std::is_signed_v<T>)
    if (a < 0) return std::numeric_limits<T>::min();
  return std::numeric_limits<T>::max();
}

/// Whether `value` is a saturated maximum, i.e. "at least this many" rather than an exact count.
template <typename T>
constexpr bool is_saturated(T value) {
  return value == std::numeric_limits<T>::max();
}

}  // namespace mdh
