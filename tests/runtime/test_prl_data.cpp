// The synthetic PRL records: determinism, the shape of the distributions, near-duplicates, frequencies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mdh/parser.h"
#include "runtime/prl_data.h"

namespace mdh {
namespace {

int differing_fields(const PrlRecord& x, const PrlRecord& y) {
  int d = 0;
  for (int f = 0; f < kPrlFields; ++f) d += x[f] != y[f];
  return d;
}

TEST(PrlRecords, Deterministic) {
  PrlRecords r1 = generate_prl_records(300, 200, 7), r2 = generate_prl_records(300, 200, 7);
  EXPECT_EQ(r1.a, r2.a);
  EXPECT_EQ(r1.b, r2.b);
  EXPECT_EQ(r1.freq, r2.freq);
  PrlRecords other = generate_prl_records(300, 200, 8);
  EXPECT_NE(r1.a, other.a);
  EXPECT_NE(r1.b, other.b);
  // The first set does not depend on the size of the second.
  EXPECT_EQ(generate_prl_records(300, 50, 7).a, r1.a);
}

TEST(PrlRecords, FieldRangesAndSkew) {
  PrlRecords r = generate_prl_records(4000, 4000, 1);
  ASSERT_EQ(r.a.size(), 4000u);
  ASSERT_EQ(r.b.size(), 4000u);
  std::vector<std::vector<int>> count(kPrlFields, std::vector<int>(kPrlValues, 0));
  for (const auto* set : {&r.a, &r.b})
    for (const PrlRecord& rec : *set) {
      ASSERT_GE(rec[kSurname1], 1);
      ASSERT_GE(rec[kForename1], 1);
      ASSERT_GE(rec[kBirthDay], 1);
      ASSERT_LE(rec[kBirthDay], 31);
      ASSERT_GE(rec[kBirthMonth], 1);
      ASSERT_LE(rec[kBirthMonth], 12);
      ASSERT_LT(rec[kBirthYear], 100);
      ASSERT_TRUE(rec[kGender] == 1 || rec[kGender] == 2);
      ASSERT_GE(rec[kMunicipality], 1);
      ASSERT_LE(rec[kMunicipality], 250);
      for (int f = 0; f < kPrlFields; ++f) ++count[f][rec[f]];
    }
  // Zipf-like names: the most common surname code is far more frequent than the 50th.
  EXPECT_GT(count[kSurname1][1], 10 * count[kSurname1][50]);
  EXPECT_GT(count[kForename1][1], count[kForename1][2]);
  // Second and third names are often missing (code 0).
  EXPECT_NEAR(count[kSurname2][0] / 8000.0, 0.70, 0.05);
  EXPECT_NEAR(count[kForename3][0] / 8000.0, 0.85, 0.05);
  EXPECT_NEAR(count[kGender][1] / 8000.0, 0.49, 0.03);
  // Birth years cluster around code 45 (1965).
  EXPECT_GT(count[kBirthYear][45], 3 * count[kBirthYear][5]);
}

TEST(PrlRecords, NearDuplicatesAndFrequencies) {
  const int64_t n = 2000, m = 3000;
  PrlRecords r = generate_prl_records(n, m, 3);
  ASSERT_EQ(r.b_source.size(), static_cast<size_t>(m));
  int64_t copies = 0, exact = 0;
  for (int64_t j = 0; j < m; ++j) {
    if (r.b_source[j] < 0) continue;
    ++copies;
    ASSERT_LT(r.b_source[j], n);
    int d = differing_fields(r.b[j], r.a[r.b_source[j]]);
    ASSERT_LE(d, 3) << j;
    exact += d == 0;
  }
  EXPECT_NEAR(static_cast<double>(copies) / m, 0.5, 0.05);
  EXPECT_NEAR(static_cast<double>(exact) / copies, 0.25, 0.05);  // 0..3 changes, uniformly

  ASSERT_EQ(r.freq.size(), static_cast<size_t>(kPrlFields * kPrlValues));
  for (int f = 0; f < kPrlFields; ++f) {
    double row = 0.0;
    for (int v = 0; v < kPrlValues; ++v) {
      float u = r.freq[f * kPrlValues + v];
      ASSERT_GE(u, 1e-6f);
      ASSERT_LE(u, 1.0f - 1e-6f);
      row += u;
    }
    EXPECT_NEAR(row, 1.0, kPrlValues * 1e-6 + 1e-5) << f;
  }
  // freq is measured over both sets.
  int64_t gender_one = 0;
  for (const auto* set : {&r.a, &r.b})
    for (const PrlRecord& rec : *set) gender_one += rec[kGender] == 1;
  EXPECT_FLOAT_EQ(r.freq[kGender * kPrlValues + 1], static_cast<float>(gender_one / 5000.0));
  EXPECT_FLOAT_EQ(r.freq[kGender * kPrlValues + 0], 1e-6f);
}

const char* kPrlSpec = R"(md_hom prl
size   N M
type   record { uchar field[14]; }
type   match { float weight; int index; }
input  a : record[N]
input  b : record[M]
table  freq : float[14][256]
output best : match[N]
view   (i < N, j < M) : a[i], b[j] -> best[i]
scalar (x, y) {
  float w = 0.0f;
  for (int f = 0; f < 14; ++f) w += (x.field[f] == y.field[f]) ? log(1.0f / freq[f][x.field[f]]) : 0.0f;
  match r; r.weight = w; r.index = j;
  return r;
}
operator best_of(match p, match q) = (q.weight > p.weight || (q.weight == p.weight && q.index < p.index)) ? q : p identity (match){-INFINITY, -1}
combine (++, best_of)
)";

TEST(PrlData, BuffersMatchTheSpec) {
  BoundMdh bound = bind(parse_spec(kPrlSpec, "prl.mdh"), {{"N", 100}, {"M", 60}});
  PrlData data = make_prl_data(bound, 11);
  PrlRecords r = generate_prl_records(100, 60, 11);
  EXPECT_EQ(data.a.declaration(), "record[100]");
  EXPECT_EQ(data.b.declaration(), "record[60]");
  ASSERT_EQ(data.a.bytes.size(), 1400u);
  EXPECT_EQ(std::memcmp(data.a.bytes.data() + 14 * 99, r.a[99].data(), 14), 0);
  EXPECT_EQ(std::memcmp(data.b.bytes.data(), r.b[0].data(), 14), 0);
  ASSERT_TRUE(data.freq.has_value());
  EXPECT_EQ(data.freq->declaration(), "float[14][256]");
  EXPECT_EQ(std::memcmp(data.freq->bytes.data(), r.freq.data(), r.freq.size() * 4), 0);
  EXPECT_FALSE(data.agree.has_value());
  EXPECT_EQ(data.buffers().size(), 3u);
}

// apps/prl_weights.mdh's tables: the weights of the generated freq, in float as the expressions of apps/prl.mdh
// compute them, checked here against those expressions at a few values.
TEST(PrlData, WeightTablesComeFromTheGeneratedFrequencies) {
  std::string spec = kPrlSpec;
  spec.replace(spec.find("table  freq : float[14][256]"), 28,
               "table  agree : float[14][256]\ntable  differ : float[14][256]");
  BoundMdh bound = bind(parse_spec(spec, "prl_weights.mdh"), {{"N", 100}, {"M", 60}});
  PrlData data = make_prl_data(bound, 11);
  PrlRecords r = generate_prl_records(100, 60, 11);
  EXPECT_FALSE(data.freq.has_value());
  ASSERT_TRUE(data.agree.has_value() && data.differ.has_value());
  EXPECT_EQ(data.buffers().size(), 4u);
  EXPECT_EQ(data.differ->declaration(), "float[14][256]");
  const PrlWeights w = prl_weights(r.freq);
  EXPECT_EQ(std::memcmp(data.agree->bytes.data(), w.agree.data(), w.agree.size() * 4), 0);
  EXPECT_EQ(std::memcmp(data.differ->bytes.data(), w.differ.data(), w.differ.size() * 4), 0);
  for (int at : {0, kGender * kPrlValues + 1, kMunicipality * kPrlValues + 3}) {
    const float u = r.freq[at], m = kPrlMatchProbability[at / kPrlValues];
    EXPECT_EQ(w.agree[at], std::log(m / u)) << at;
    EXPECT_EQ(w.differ[at], std::log((1.0f - m) / (1.0f - u))) << at;
  }
}

TEST(PrlData, SpecsWithoutWeightsOrFrequenciesAreRefused) {
  std::string spec = kPrlSpec;
  spec.replace(spec.find("table  freq : float[14][256]"), 28, "table  agree : float[14][256]");
  spec.replace(spec.find("freq[f][x.field[f]]"), 19, "agree[f][x.field[f]]");
  BoundMdh bound = bind(parse_spec(spec, "prl.mdh"), {{"N", 4}, {"M", 4}});
  try {
    make_prl_data(bound, 1);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "the PRL data generator needs buffers a, b (14-byte records) and freq : float[14][256] or agree, "
                 "differ : float[14][256]; spec 'prl' has no buffer 'freq' and not both of 'agree', 'differ'");
  }
}

TEST(PrlData, OtherSpecsAreRefused) {
  std::string spec = kPrlSpec;
  spec.replace(spec.find("uchar field[14]"), 15, "uchar field[12]");
  BoundMdh bound = bind(parse_spec(spec, "prl.mdh"), {{"N", 4}, {"M", 4}});
  try {
    make_prl_data(bound, 1);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "the PRL data generator needs buffer a : RECORD[n] with RECORD a 14-byte struct of uchar fields; "
                 "spec 'prl' declares a : record with 1 extent(s)");
  }
}

}  // namespace
}  // namespace mdh
