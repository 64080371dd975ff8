#include "runtime/prl_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "support/error.h"

namespace mdh {

namespace {
// A distribution over the 256 codes of one field, sampled by inverting its cumulative weights.
class CodeDistribution {
 public:
  explicit CodeDistribution(std::vector<double> weights) : cumulative_(weights.size()) {
    double total = 0.0;
    for (size_t v = 0; v < weights.size(); ++v) cumulative_[v] = total += weights[v];
    for (double& c : cumulative_) c /= total;
  }
  uint8_t sample(std::mt19937_64& rng) const {
    // Own uniform double rather than std::uniform_real_distribution, whose output is implementation-defined.
    double u = static_cast<double>(rng() >> 11) * 0x1p-53;
    auto at = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    return static_cast<uint8_t>(std::min<ptrdiff_t>(at - cumulative_.begin(), kPrlValues - 1));
  }

 private:
  std::vector<double> cumulative_;
};

// Zipf-like: code k in [1, last] has weight 1 / k^exponent; code 0 ("no such name") has probability `missing`.
CodeDistribution zipf_codes(int last, double exponent, double missing = 0.0) {
  std::vector<double> w(kPrlValues, 0.0);
  double total = 0.0;
  for (int k = 1; k <= last; ++k) total += w[k] = 1.0 / std::pow(k, exponent);
  for (int k = 1; k <= last; ++k) w[k] *= (1.0 - missing) / total;
  w[0] = missing;
  return CodeDistribution(w);
}

CodeDistribution uniform_codes(int first, int last) {
  std::vector<double> w(kPrlValues, 0.0);
  for (int k = first; k <= last; ++k) w[k] = 1.0;
  return CodeDistribution(w);
}

std::vector<CodeDistribution> field_distributions() {
  std::vector<CodeDistribution> d;
  // Surnames, forenames, birth names: first names always present, further names ever rarer.
  d.push_back(zipf_codes(255, 1.0));
  d.push_back(zipf_codes(255, 1.0, 0.70));
  d.push_back(zipf_codes(255, 1.0, 0.90));
  d.push_back(zipf_codes(255, 1.2));
  d.push_back(zipf_codes(255, 1.2, 0.50));
  d.push_back(zipf_codes(255, 1.2, 0.85));
  d.push_back(zipf_codes(255, 1.0));
  d.push_back(zipf_codes(255, 1.0, 0.75));
  d.push_back(zipf_codes(255, 1.0, 0.92));
  std::vector<double> day(kPrlValues, 0.0);  // days 29-31 exist in fewer months
  for (int k = 1; k <= 31; ++k) day[k] = k <= 28 ? 1.0 : k <= 30 ? 11.0 / 12.0 : 7.0 / 12.0;
  d.push_back(CodeDistribution(day));
  d.push_back(uniform_codes(1, 12));
  std::vector<double> year(kPrlValues, 0.0);  // births 1920 + code, most around 1965
  for (int k = 0; k < 100; ++k) year[k] = std::exp(-0.5 * std::pow((k - 45) / 22.0, 2));
  d.push_back(CodeDistribution(year));
  std::vector<double> gender(kPrlValues, 0.0);
  gender[1] = 0.49, gender[2] = 0.51;
  d.push_back(CodeDistribution(gender));
  d.push_back(zipf_codes(250, 0.9));
  MDH_INTERNAL_ASSERT(d.size() == kPrlFields, "one distribution per PRL field");
  return d;
}

PrlRecord fresh_record(const std::vector<CodeDistribution>& fields, std::mt19937_64& rng) {
  PrlRecord r;
  for (int f = 0; f < kPrlFields; ++f) r[f] = fields[f].sample(rng);
  return r;
}

// A typo, a moved person, a married name: 0 to 3 distinct fields get another value of their distribution.
void perturb(PrlRecord& r, const std::vector<CodeDistribution>& fields, std::mt19937_64& rng) {
  int changes = static_cast<int>(rng() % 4);
  std::array<int, kPrlFields> order;
  for (int f = 0; f < kPrlFields; ++f) order[f] = f;
  for (int k = 0; k < changes; ++k) {
    std::swap(order[k], order[k + static_cast<int>(rng() % (kPrlFields - k))]);
    int f = order[k];
    uint8_t old = r[f];
    for (int attempt = 0; attempt < 32 && r[f] == old; ++attempt) r[f] = fields[f].sample(rng);
    if (r[f] == old) r[f] = static_cast<uint8_t>(old + 1);  // a field with (almost) one value: still differ
  }
}

int find_buffer_or_fail(const Mdh& mdh, const std::string& name, const std::string& need) {
  int k = mdh.find_buffer(name);
  if (k < 0)
    throw UserError("the PRL data generator needs " + need + "; spec '" + mdh.name + "' has no buffer '" + name + "'");
  return k;
}

void check_record_buffer(const BoundMdh& bound, int k) {
  const Mdh& mdh = *bound.mdh;
  const Buffer& buffer = mdh.buffers[k];
  const std::string need = "buffer " + buffer.name + " : RECORD[n] with RECORD a 14-byte struct of uchar fields";
  bool ok = buffer.type.is_struct() && bound.buffer_extents[k].size() == 1;
  if (ok) {
    const StructType& st = mdh.structs[mdh.find_struct(buffer.type.struct_name)];
    ok = st.size == kPrlFields && st.alignment == 1 &&
         std::all_of(st.fields.begin(), st.fields.end(),
                     [](const StructField& f) { return f.type == ScalarType::Uchar; });
  }
  if (!ok)
    throw UserError("the PRL data generator needs " + need + "; spec '" + mdh.name + "' declares " + buffer.name +
                    " : " + mdh.type_name(buffer.type) + " with " + std::to_string(bound.buffer_extents[k].size()) +
                    " extent(s)");
}

// One of the float[14][256] tables, filled with `values`.
HostBuffer table_buffer(const BoundMdh& bound, int k, const std::vector<float>& values) {
  const Mdh& mdh = *bound.mdh;
  const std::string& name = mdh.buffers[k].name;
  if (mdh.buffers[k].type != ElementType{ScalarType::Float, ""} ||
      bound.buffer_extents[k] != std::vector<int64_t>{kPrlFields, kPrlValues})
    throw UserError("the PRL data generator needs " + name + " : float[14][256]; spec '" + mdh.name + "' declares " +
                    name + " : " + make_host_buffer(bound, k).declaration());
  HostBuffer out = make_host_buffer(bound, k);
  MDH_INTERNAL_ASSERT(out.bytes.size() == values.size() * sizeof(float), "table size");
  std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
  return out;
}

HostBuffer records_buffer(const BoundMdh& bound, int k, const std::vector<PrlRecord>& records) {
  HostBuffer out = make_host_buffer(bound, k);
  MDH_INTERNAL_ASSERT(out.bytes.size() == records.size() * kPrlFields, "record buffer size");
  for (size_t r = 0; r < records.size(); ++r)
    std::memcpy(out.bytes.data() + r * kPrlFields, records[r].data(), kPrlFields);
  return out;
}
}  // namespace

PrlRecords generate_prl_records(int64_t n, int64_t m, uint64_t seed) {
  MDH_INTERNAL_ASSERT(n >= 0 && m >= 0, "negative record count");
  const std::vector<CodeDistribution> fields = field_distributions();
  // Separate streams for the two sets, so that a's records do not depend on m.
  std::mt19937_64 rng_a(buffer_seed(seed, "prl:a")), rng_b(buffer_seed(seed, "prl:b"));
  PrlRecords out;
  out.a.reserve(n);
  for (int64_t i = 0; i < n; ++i) out.a.push_back(fresh_record(fields, rng_a));
  out.b.reserve(m);
  out.b_source.reserve(m);
  for (int64_t j = 0; j < m; ++j) {
    if (n > 0 && rng_b() % 2 == 0) {
      int64_t source = static_cast<int64_t>(rng_b() % static_cast<uint64_t>(n));
      PrlRecord r = out.a[source];
      perturb(r, fields, rng_b);
      out.b.push_back(r);
      out.b_source.push_back(source);
    } else {
      out.b.push_back(fresh_record(fields, rng_b));
      out.b_source.push_back(-1);
    }
  }

  std::vector<int64_t> counts(kPrlFields * kPrlValues, 0);
  for (const auto* set : {&out.a, &out.b})
    for (const PrlRecord& r : *set)
      for (int f = 0; f < kPrlFields; ++f) ++counts[f * kPrlValues + r[f]];
  out.freq.resize(counts.size());
  const double total = static_cast<double>(std::max<int64_t>(n + m, 1));
  for (size_t k = 0; k < counts.size(); ++k)
    out.freq[k] = static_cast<float>(std::clamp(static_cast<double>(counts[k]) / total, 1e-6, 1.0 - 1e-6));
  return out;
}

PrlWeights prl_weights(const std::vector<float>& freq) {
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

std::vector<HostBuffer*> PrlData::buffers() {
  std::vector<HostBuffer*> out{&a, &b};
  for (std::optional<HostBuffer>* table : {&freq, &agree, &differ})
    if (*table) out.push_back(&**table);
  return out;
}

PrlData make_prl_data(const BoundMdh& bound, uint64_t seed) {
  const Mdh& mdh = *bound.mdh;
  const std::string need = "buffers a, b (14-byte records) and freq : float[14][256] or agree, differ : float[14][256]";
  int a = find_buffer_or_fail(mdh, "a", need);
  int b = find_buffer_or_fail(mdh, "b", need);
  const int freq = mdh.find_buffer("freq"), agree = mdh.find_buffer("agree"), differ = mdh.find_buffer("differ");
  if (freq < 0 && (agree < 0 || differ < 0))
    throw UserError("the PRL data generator needs " + need + "; spec '" + mdh.name +
                    "' has no buffer 'freq' and not both of 'agree', 'differ'");
  check_record_buffer(bound, a);
  check_record_buffer(bound, b);

  PrlRecords records = generate_prl_records(bound.buffer_extents[a][0], bound.buffer_extents[b][0], seed);
  PrlData data{records_buffer(bound, a, records.a), records_buffer(bound, b, records.b), {}, {}, {}};
  if (freq >= 0) data.freq = table_buffer(bound, freq, records.freq);
  if (agree >= 0 && differ >= 0) {
    const PrlWeights weights = prl_weights(records.freq);
    data.agree = table_buffer(bound, agree, weights.agree);
    data.differ = table_buffer(bound, differ, weights.differ);
  }
  return data;
}

}  // namespace mdh
