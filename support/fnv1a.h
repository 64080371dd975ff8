// FNV-1a, 64 bits: the one hash of text that names things on disk (spec hashes in journals and tuning results,
// md_hom signatures, binary-cache file names). Not cryptographic: it tells versions apart, it does not resist forgery.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace mdh {

inline uint64_t fnv1a_64(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// The hash as 16 lower-case hex digits.
inline std::string fnv1a_64_hex(const std::string& text) {
  char out[20];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(fnv1a_64(text)));
  return out;
}

}  // namespace mdh
