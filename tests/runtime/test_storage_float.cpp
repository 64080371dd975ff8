// support/storage_float.h: the host's half and bfloat16 conversions against the formats' definitions, over every bit
// pattern, and their rounding against the nearest of all finite values found by search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "support/storage_float.h"

namespace mdh {
namespace {

// The value of a pattern with `fraction` fraction bits and 15 - fraction exponent bits, from the definition.
double defined_value(uint16_t bits, int fraction) {
  const int exponent_bits = 15 - fraction, bias = (1 << (exponent_bits - 1)) - 1;
  const int exponent = (bits >> fraction) & ((1 << exponent_bits) - 1), mantissa = bits & ((1 << fraction) - 1);
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == (1 << exponent_bits) - 1) return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - bias - fraction);
  return sign * std::ldexp(mantissa + (1 << fraction), exponent - bias - fraction);
}

TEST(StorageFloat, EveryPatternWidensToItsValueAndNarrowsBack) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const double half = defined_value(bits, 10), bf16 = defined_value(bits, 7);
    if (std::isnan(half)) {
      EXPECT_TRUE(std::isnan(half_to_float(bits))) << b;
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(half_to_float(bits))))) << b;
    } else {
      EXPECT_EQ(static_cast<double>(half_to_float(bits)), half) << b;
      EXPECT_EQ(float_to_half(half_to_float(bits)), bits) << b;
    }
    if (std::isnan(bf16)) {
      EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(bfloat16_to_float(bits))))) << b;
    } else {
      EXPECT_EQ(static_cast<double>(bfloat16_to_float(bits)), bf16) << b;
      EXPECT_EQ(float_to_bfloat16(bfloat16_to_float(bits)), bits) << b;
    }
  }
}

// Narrowing picks the nearest value, the even pattern on a tie, infinity past the largest value's half unit.
TEST(StorageFloat, NarrowingRoundsToNearestEven) {
  for (int fraction : {10, 7}) {
    std::vector<std::pair<double, uint16_t>> finite;  // non-negative finite values, ascending
    for (uint32_t b = 0; b < 0x8000; ++b)
      if (std::isfinite(defined_value(static_cast<uint16_t>(b), fraction)))
        finite.push_back({defined_value(static_cast<uint16_t>(b), fraction), static_cast<uint16_t>(b)});
    const double largest = finite.back().first;
    const double overflow = largest + (largest - finite[finite.size() - 2].first) / 2;
    std::mt19937_64 rng(5);
    for (int n = 0; n < 200000; ++n) {
      // Random float patterns across the whole range, and exact ties between neighbours.
      float x;
      if (n % 2 == 0) {
        const auto bits = static_cast<uint32_t>(rng() & 0x7fffffffu);
        std::memcpy(&x, &bits, 4);
        if (!std::isfinite(x)) continue;
      } else {
        const size_t k = rng() % (finite.size() - 1);
        x = static_cast<float>((finite[k].first + finite[k + 1].first) / 2);
        if (static_cast<double>(x) != (finite[k].first + finite[k + 1].first) / 2) continue;
      }
      uint16_t expected;
      if (static_cast<double>(x) >= overflow) {
        expected = fraction == 10 ? 0x7c00 : 0x7f80;
      } else {
        auto above =
            std::lower_bound(finite.begin(), finite.end(), std::make_pair(static_cast<double>(x), uint16_t{0}));
        if (above == finite.end()) above = finite.end() - 1;
        auto below = above == finite.begin() ? above : above - 1;
        const double up = above->first - x, down = x - below->first;
        expected = up < down   ? above->second
                   : down < up ? below->second
                               : (above->second % 2 == 0 ? above->second : below->second);
        if (above->first == x) expected = above->second;
      }
      const uint16_t got = fraction == 10 ? float_to_half(x) : float_to_bfloat16(x);
      ASSERT_EQ(got, expected) << "fraction bits " << fraction << ", x = " << x;
      const uint16_t negative = fraction == 10 ? float_to_half(-x) : float_to_bfloat16(-x);
      ASSERT_EQ(negative, expected | 0x8000) << "fraction bits " << fraction << ", x = " << -x;
    }
  }
}

}  // namespace
}  // namespace mdh
