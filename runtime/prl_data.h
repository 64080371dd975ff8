// Synthetic person records for PRL (probabilistic record linkage, PACT'19 §VII-C, SAC'19). The registry data of
// the paper is not public; this seeded generator produces records with the same shape: 14 coded uchar fields
// drawn from skewed per-field distributions, a second set built partly from near-duplicates of the first, and
// the per-field value frequencies u_i(x) the weight function looks up.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "mdh/bind.h"
#include "runtime/host_buffer.h"

namespace mdh {

constexpr int kPrlFields = 14;
constexpr int kPrlValues = 256;
/// Field order, as apps/prl.mdh's m_prob table has it.
enum PrlField {
  kSurname1,
  kSurname2,
  kSurname3,
  kForename1,
  kForename2,
  kForename3,
  kBirthName1,
  kBirthName2,
  kBirthName3,
  kBirthDay,
  kBirthMonth,
  kBirthYear,
  kGender,
  kMunicipality
};
using PrlRecord = std::array<uint8_t, kPrlFields>;

struct PrlRecords {
  std::vector<PrlRecord> a;       // the first set, n records
  std::vector<PrlRecord> b;       // the second set, m records
  std::vector<int64_t> b_source;  // per record of b: the record of a it was copied (and perturbed) from, or -1
  std::vector<float> freq;        // [kPrlFields][kPrlValues] row-major: relative frequency over a and b
};

/// Generates n + m records from `seed` (identical on every platform):
///  - name fields: Zipf-like over codes 1..255 (code 0 = no 2nd/3rd name, frequent for those fields);
///    day 1..31, month 1..12, year coded 0..99 (births 1920..2019, bell-shaped), gender 1..2, municipality
///    Zipf-like over 1..250;
///  - half of b (in expectation) are copies of random records of a with 0 to 3 fields changed to another value;
///  - freq[f][v] = share of records of a and b whose field f is v, clamped into [1e-6, 1 - 1e-6] so that both
///    log(m / u) and log((1 - m) / (1 - u)) stay finite.
PrlRecords generate_prl_records(int64_t n, int64_t m, uint64_t seed);

/// m_i of SAC'19: names 0.975, birth date 0.99, gender 0.999, municipality 0.9 (apps/prl.mdh's m_prob).
constexpr float kPrlMatchProbability[kPrlFields] = {0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f,
                                                    0.975f, 0.975f, 0.99f,  0.99f,  0.99f,  0.999f, 0.9f};

/// The weights of a field's value, precomputed once: a pair's weight is the sum, in field order, of agree[f][x_f]
/// where field f agrees and differ[f][x_f] where it differs, x_f being the value in a's record.
struct PrlWeights {
  std::vector<float> agree, differ;  // [kPrlFields][kPrlValues] row-major
};

/// From the table freq[14][256] of relative frequencies u, in float: agree = log(m / u) and
/// differ = log((1 - m) / (1 - u)), the expressions of apps/prl.mdh's scalar function. apps/prl_weights.mdh, the
/// PRL peers and their references all take their tables from here, so their sums are the same bits.
PrlWeights prl_weights(const std::vector<float>& freq);

struct PrlData {
  HostBuffer a, b;
  std::optional<HostBuffer> freq, agree, differ;  // the tables the spec declares

  /// a, b and the tables present, to move into a run's inputs.
  std::vector<HostBuffer*> buffers();
};

/// The generated records as the spec's buffers `a`, `b` (a 14-byte record of uchar fields, alignment 1), and the
/// tables `freq` (float[14][256], apps/prl.mdh) and/or `agree`, `differ` (float[14][256] each, prl_weights of
/// freq: apps/prl_weights.mdh), with n and m taken from the bound extents of a and b. Throws UserError when the
/// spec does not declare buffers of that shape, or none of those tables.
PrlData make_prl_data(const BoundMdh& bound, uint64_t seed);

}  // namespace mdh
