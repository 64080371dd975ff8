// Exact search-space sizes and configuration indices: a space is the product of its group trees, and 1024^14-sized
// products do not fit into 64 or 128 bits.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <limits>
#include <string>

namespace mdh::tuner {

// Boost's unbounded unsigned cpp_int (unsigned_magnitude, MaxBits 0) rejects or mangles values in Boost 1.74, so the
// signed one holds what is never negative here: counts and indices.
using BigUnsigned = boost::multiprecision::cpp_int;

inline bool fits_uint64(const BigUnsigned& value) {
  return value >= 0 && value <= std::numeric_limits<uint64_t>::max();
}

/// Decimal with thousands separators ("5,651,696"), for reports.
inline std::string to_grouped_decimal(const BigUnsigned& value) {
  const std::string plain = value.str();
  std::string grouped;
  for (size_t i = 0; i < plain.size(); ++i) {
    if (i > 0 && (plain.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(plain[i]);
  }
  return grouped;
}

}  // namespace mdh::tuner
