// half (IEEE 754 binary16) and bfloat16 values as the 16-bit patterns that mdh's buffers of those element types hold,
// converted to and from float on the host. Narrowing rounds to nearest, ties to even, as the kernels' stores do
// (codegen/preamble.h store_element); a NaN stays a NaN (made quiet), and magnitudes past the largest finite value
// become infinities.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mdh {

inline uint32_t bits_of_float(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float float_of_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// bfloat16 is the upper half of a float: widening appends 16 zero bits.
inline float bfloat16_to_float(uint16_t bits) {
  return float_of_bits(uint32_t{bits} << 16);
}

inline uint16_t float_to_bfloat16(float value) {
  const uint32_t bits = bits_of_float(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits; exponent 0 holds the subnormals (units of
/// 2^-24), exponent 31 the infinities and NaNs.
inline float half_to_float(uint16_t bits) {
  const uint32_t exponent = (bits >> 10) & 0x1fu, fraction = bits & 0x3ffu;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(fraction), -24);
  else if (exponent == 31)
    magnitude = fraction != 0 ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(fraction | 0x400u), static_cast<int>(exponent) - 25);
  return (bits & 0x8000u) != 0 ? -magnitude : magnitude;
}

inline uint16_t float_to_half(float value) {
  const uint32_t bits = bits_of_float(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  // 65520 = 0x477ff000, halfway between the largest half (65504) and 2^16, rounds to even: to infinity.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {
    // Below 2^-14, the smallest normal half: a count of 2^-24 units, rounded to nearest even (the scaling by 2^24 is
    // exact; 1024 units is the smallest normal's pattern, 0x0400).
    const float units = std::nearbyint(float_of_bits(magnitude) * 0x1p24f);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
  }
  // Rebias the exponent (127 to 15) and round away the 13 fraction bits half has less; a carry moves into the exponent.
  uint32_t rebiased = magnitude - (112u << 23);
  rebiased += 0x0fffu + ((rebiased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rebiased >> 13));
}

}  // namespace mdh
