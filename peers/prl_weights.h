// The weights of apps/prl.mdh precomputed per field and value, shared by the PRL peers: a pair's weight is the sum,
// in field order, of agree[f][x_f] where the field agrees and differ[f][x_f] where it differs, x_f being the value in
// a's record. Computed in float exactly as the spec's scalar function computes them, so the sums are the same.
#pragma once

#include <cmath>
#include <vector>

#include "runtime/prl_data.h"
#include "support/error.h"

namespace mdh::peers {

// m_i of SAC'19: names 0.975, birth date 0.99, gender 0.999, municipality 0.9 (apps/prl.mdh's m_prob).
constexpr float kPrlMatchProbability[kPrlFields] = {0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f,
                                                    0.975f, 0.975f, 0.99f,  0.99f,  0.99f,  0.999f, 0.9f};

struct PrlWeights {
  std::vector<float> agree, differ;  // [kPrlFields][kPrlValues]
};

/// From the table freq[14][256] of relative frequencies u: agree = log(m / u), differ = log((1 - m) / (1 - u)).
inline PrlWeights prl_weights(const std::vector<float>& freq) {
  if (freq.size() != static_cast<size_t>(kPrlFields * kPrlValues)) throw UserError("table freq must be float[14][256]");
  PrlWeights w;
  w.agree.resize(freq.size());
  w.differ.resize(freq.size());
  for (int f = 0; f < kPrlFields; ++f)
    for (int v = 0; v < kPrlValues; ++v) {
      const size_t at = static_cast<size_t>(f * kPrlValues + v);
      const float u = freq[at], m = kPrlMatchProbability[f];
      w.agree[at] = std::log(m / u);
      w.differ[at] = std::log((1.0f - m) / (1.0f - u));
    }
  return w;
}

}  // namespace mdh::peers
