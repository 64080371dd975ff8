// Seeded randomness for techniques and sampling. std::mt19937_64's output sequence is fixed by the standard, but
// the std distributions are not, so the few distributions we need are written here: the same seed gives the same
// sequence with every standard library.
#pragma once

#include <cstdint>
#include <random>

namespace mdh::tuner {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t next() { return engine_(); }
  /// Uniform in [0, n); n > 0. Rejection sampling removes the modulo bias.
  uint64_t below(uint64_t n) {
    const uint64_t threshold = (0 - n) % n;
    for (;;) {
      uint64_t x = engine_();
      if (x >= threshold) return x % n;
    }
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform01(); }
  bool chance(double probability) { return uniform01() < probability; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace mdh::tuner
