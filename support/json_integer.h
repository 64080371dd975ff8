// Integers read from JSON (configurations, journals, results) without silent wrap-around: nlohmann's
// get<int64_t>() turns 2^64-1 into -1, and a float beyond the type's range into undefined behaviour.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace mdh {

/// The value of a JSON integer that fits int64_t; nullopt for anything else (a float, a string, 2^63 and above).
inline std::optional<int64_t> json_int64(const nlohmann::json& json) {
  if (json.is_number_unsigned()) {
    const uint64_t value = json.get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(value);
  }
  if (json.is_number_integer()) return json.get<int64_t>();
  return std::nullopt;
}

}  // namespace mdh
