// An arbitrary-precision unsigned integer, just big enough for exact search-space sizes and configuration indices:
// a space is the product of its group trees, and 1024^14-sized products do not fit into 64 or 128 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::tuner {

class BigUnsigned {
 public:
  BigUnsigned() = default;
  BigUnsigned(uint64_t value);  // NOLINT(google-explicit-constructor): sizes mix freely with machine integers.

  /// Parses a non-empty string of decimal digits; throws mdh::UserError otherwise.
  static BigUnsigned from_decimal(const std::string& digits);

  BigUnsigned& operator+=(const BigUnsigned& other);
  BigUnsigned& operator*=(const BigUnsigned& other);
  friend BigUnsigned operator+(BigUnsigned a, const BigUnsigned& b) { return a += b; }
  friend BigUnsigned operator*(BigUnsigned a, const BigUnsigned& b) { return a *= b; }

  /// Divides in place by a non-zero machine integer and returns the remainder (mixed-radix digit extraction).
  uint64_t divide_by(uint64_t divisor);

  friend bool operator==(const BigUnsigned& a, const BigUnsigned& b) { return a.limbs_ == b.limbs_; }
  friend bool operator<(const BigUnsigned& a, const BigUnsigned& b);
  friend bool operator<=(const BigUnsigned& a, const BigUnsigned& b) { return !(b < a); }

  bool is_zero() const { return limbs_.empty(); }
  bool fits_uint64() const { return limbs_.size() <= 2; }
  /// Requires fits_uint64().
  uint64_t to_uint64() const;
  double to_double() const;
  std::string to_decimal() const;
  /// Decimal with thousands separators ("5,651,696"), for reports.
  std::string to_grouped_decimal() const;

 private:
  void trim();
  std::vector<uint32_t> limbs_;  // little-endian base 2^32, no leading zero limbs (zero is empty)
};

}  // namespace mdh::tuner
