// HostBuffer: shapes, seeded random contents, float <-> double, `--param` parsing.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "mdh/parser.h"
#include "runtime/host_buffer.h"

namespace mdh {
namespace {

const char* kSpec = R"(md_hom mixed
size   N
type   pair { char tag; float weight; }
param  alpha : float
param  count : int
param  small : uchar
param  big : ulong
param  p : pair
input  x : float[N][3]
input  i : int[N]
input  u : ushort[N]
input  s : pair[N]
output y : float[N]
view   (n < N) : x[n][0], i[n], u[n], s[n] -> y[n]
scalar (a, b, c, d) = a + b + c + d.weight
combine (++)
)";

BoundMdh bound_spec(int64_t n) {
  return bind(parse_spec(kSpec, "mixed.mdh"), {{"N", n}});
}

template <class T>
T element(const HostBuffer& b, int64_t e, size_t offset = 0) {
  T v;
  std::memcpy(&v, b.bytes.data() + e * b.element_size + offset, sizeof(T));
  return v;
}

TEST(HostBuffer, ShapeFromTheBoundSpec) {
  BoundMdh bound = bound_spec(5);
  const Mdh& mdh = *bound.mdh;
  HostBuffer x = make_host_buffer(bound, mdh.find_buffer("x"));
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.extents, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(x.element_size, 4u);
  EXPECT_EQ(x.bytes, std::vector<unsigned char>(60, 0));
  EXPECT_EQ(x.declaration(), "float[5][3]");
  HostBuffer s = make_host_buffer(bound, mdh.find_buffer("s"));
  EXPECT_EQ(s.element_size, 8u);  // char, 3 bytes padding, float
  EXPECT_EQ(s.declaration(), "pair[5]");
}

TEST(FillRandom, DeterministicRangesAndIndependentPerBuffer) {
  BoundMdh bound = bound_spec(4000);
  const Mdh& mdh = *bound.mdh;
  HostBuffer x = make_host_buffer(bound, mdh.find_buffer("x")), i = make_host_buffer(bound, mdh.find_buffer("i")),
             u = make_host_buffer(bound, mdh.find_buffer("u")), s = make_host_buffer(bound, mdh.find_buffer("s"));
  fill_random(x, mdh, 42);
  fill_random(i, mdh, 42);
  fill_random(u, mdh, 42);
  fill_random(s, mdh, 42);

  // Same seed, same bytes, whatever else was filled before; another seed, other bytes.
  HostBuffer x2 = make_host_buffer(bound, mdh.find_buffer("x"));
  fill_random(x2, mdh, 42);
  EXPECT_EQ(x.bytes, x2.bytes);
  fill_random(x2, mdh, 43);
  EXPECT_NE(x.bytes, x2.bytes);
  EXPECT_NE(buffer_seed(42, "x"), buffer_seed(42, "i"));

  std::vector<int> seen_int(17, 0), seen_uint(17, 0);
  double sum = 0.0;
  for (int64_t e = 0; e < x.element_count(); ++e) {
    float v = element<float>(x, e);
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / static_cast<double>(x.element_count()), 0.5, 0.02);
  for (int64_t e = 0; e < 4000; ++e) {
    int32_t vi = element<int32_t>(i, e);
    ASSERT_GE(vi, -8);
    ASSERT_LE(vi, 8);
    ++seen_int[vi + 8];
    uint16_t vu = element<uint16_t>(u, e);
    ASSERT_LE(vu, 16);
    ++seen_uint[vu];
    // Struct: char field in [-8, 8], padding zero, float field in [0, 1).
    int8_t tag = element<int8_t>(s, e, 0);
    ASSERT_GE(tag, -8);
    ASSERT_LE(tag, 8);
    for (size_t pad = 1; pad < 4; ++pad) ASSERT_EQ(s.bytes[e * 8 + pad], 0);
    float w = element<float>(s, e, 4);
    ASSERT_GE(w, 0.0f);
    ASSERT_LT(w, 1.0f);
  }
  for (int k = 0; k < 17; ++k) {
    EXPECT_GT(seen_int[k], 150) << k;
    EXPECT_GT(seen_uint[k], 150) << k;
  }
}

TEST(FillRandom, PinnedValuesAreTheSameOnEveryPlatform) {
  // The generator is std::mt19937_64 (fully specified by the C++ standard) with our own mapping to values, so
  // these numbers must never change; if they do, every stored benchmark input changes with them.
  // Values computed independently (Python) from the documented formula: splitmix64(seed ^ splitmix64(fnv1a64(name))).
  EXPECT_EQ(buffer_seed(0, ""), 0x21fa69a58f3d62f5ull);
  EXPECT_EQ(buffer_seed(42, "x"), 0x60aa8164beead3f9ull);
  BoundMdh bound = bound_spec(2);
  HostBuffer i = make_host_buffer(bound, bound.mdh->find_buffer("i"));
  fill_random(i, *bound.mdh, 1);
  std::mt19937_64 rng(buffer_seed(1, "i"));
  EXPECT_EQ(element<int32_t>(i, 0), static_cast<int32_t>(rng() % 17) - 8);
  EXPECT_EQ(element<int32_t>(i, 1), static_cast<int32_t>(rng() % 17) - 8);
}

TEST(FloatDouble, RoundTrip) {
  BoundMdh bound = bound_spec(3);
  HostBuffer y = make_host_buffer(bound, bound.mdh->find_buffer("y"));
  const float values[3] = {1.5f, -0.1f, 3e38f};
  std::memcpy(y.bytes.data(), values, sizeof values);
  HostBuffer d = float_to_double(y);
  EXPECT_EQ(d.type.scalar, ScalarType::Double);
  EXPECT_EQ(d.element_size, 8u);
  EXPECT_EQ(element<double>(d, 1), static_cast<double>(-0.1f));
  EXPECT_EQ(double_to_float(d).bytes, y.bytes);
  EXPECT_THROW(double_to_float(y), InternalError);
}

template <class T>
std::vector<unsigned char> bytes_of(T v) {
  std::vector<unsigned char> out(sizeof v);
  std::memcpy(out.data(), &v, sizeof v);
  return out;
}

std::string param_error(const Mdh& mdh, const std::string& name, const std::string& text) {
  try {
    param_bytes(mdh, name, text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParamBytes, ParsesByTheParamType) {
  auto mdh = parse_spec(kSpec, "mixed.mdh");
  EXPECT_EQ(param_bytes(*mdh, "alpha", "2.5"), bytes_of(2.5f));
  EXPECT_EQ(param_bytes(*mdh, "alpha", " -1e-3 "), bytes_of(-1e-3f));
  EXPECT_EQ(param_bytes(*mdh, "count", "-17"), bytes_of<int32_t>(-17));
  EXPECT_EQ(param_bytes(*mdh, "small", "255"), bytes_of<uint8_t>(255));
  EXPECT_EQ(param_bytes(*mdh, "big", "18446744073709551615"), bytes_of<uint64_t>(UINT64_MAX));
}

TEST(ParamBytes, Diagnostics) {
  auto mdh = parse_spec(kSpec, "mixed.mdh");
  EXPECT_EQ(param_error(*mdh, "beta", "1"), "unknown param 'beta'; the spec declares: alpha, count, small, big, p");
  EXPECT_EQ(param_error(*mdh, "p", "1"),
            "param 'p' has struct type 'pair'; struct params are not supported on the command line");
  EXPECT_EQ(param_error(*mdh, "alpha", "2.5x"), "param 'alpha' is a float: '2.5x' is not a number");
  EXPECT_EQ(param_error(*mdh, "alpha", ""), "param 'alpha' is a float: '' is not a number");
  EXPECT_EQ(param_error(*mdh, "alpha", "1e39"), "param 'alpha' is a float: '1e39' is out of its range");
  EXPECT_EQ(param_error(*mdh, "count", "2.5"), "param 'count' is an int: '2.5' is not a decimal integer");
  EXPECT_EQ(param_error(*mdh, "count", "2147483648"),
            "param 'count' is an int: '2147483648' is out of its range [-2147483648, 2147483647]");
  EXPECT_EQ(param_error(*mdh, "small", "256"), "param 'small' is a uchar: '256' is out of its range [0, 255]");
  EXPECT_EQ(param_error(*mdh, "small", "-1"), "param 'small' is a uchar: '-1' is negative, but uchar is unsigned");
  EXPECT_EQ(param_error(*mdh, "big", "18446744073709551616"),
            "param 'big' is a ulong: '18446744073709551616' is out of its range [0, 18446744073709551615]");
}

}  // namespace
}  // namespace mdh
