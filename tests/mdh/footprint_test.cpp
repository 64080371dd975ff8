// Footprints of affine accesses over boxes: against brute force over every point, windows (halos), empty boxes,
// ranges beyond 64 bits, and the tile extents the tunable kernel caches. Binding's use of them (bounds over the
// whole iteration space, 128-bit ranges in the message) is pinned in bind_test.cpp.
#include "mdh/footprint.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "mdh/parser.h"

namespace mdh {
namespace {

BoundIndex affine(std::vector<int64_t> coefficient, int64_t offset) {
  BoundIndex index;
  index.coefficient = std::move(coefficient);
  index.offset = offset;
  return index;
}

// Smallest and largest value of the index over every point of the box and every window offset.
IndexRange brute_force(const BoundIndex& index, const std::vector<IndexRange>& box) {
  IndexRange r{INT64_MAX, INT64_MIN};
  std::vector<int64_t> point(box.size());
  for (size_t d = 0; d < box.size(); ++d) point[d] = box[d].lo;
  for (;;) {
    int64_t value = index.offset;
    for (size_t d = 0; d < box.size(); ++d) value += index.coefficient[d] * point[d];
    const int64_t window_lo = index.has_window ? index.window_lo : 0;
    const int64_t window_extent = index.has_window ? index.window_extent : 1;
    for (int64_t w = 0; w < window_extent; ++w) {
      r.lo = std::min(r.lo, value + window_lo + w);
      r.hi = std::max(r.hi, value + window_lo + w);
    }
    size_t d = box.size();
    while (d-- > 0) {
      if (++point[d] <= box[d].hi) break;
      point[d] = box[d].lo;
    }
    if (d == static_cast<size_t>(-1)) return r;
  }
}

TEST(Footprint, IndexRangeMatchesEveryPointOfRandomBoxes) {
  std::mt19937_64 rng(11);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 500; ++trial) {
    const size_t dims = static_cast<size_t>(uniform(1, 3));
    std::vector<IndexRange> box;
    BoundIndex index = affine({}, uniform(-20, 20));
    for (size_t d = 0; d < dims; ++d) {
      const int64_t lo = uniform(0, 5);
      box.push_back({lo, lo + uniform(0, 4)});
      index.coefficient.push_back(uniform(-6, 6));
    }
    if (uniform(0, 1) == 1) {
      index.has_window = true;
      index.window_lo = uniform(-3, 3);
      index.window_extent = uniform(1, 5);
    }
    EXPECT_EQ(index_range(index, box), brute_force(index, box)) << "trial " << trial;
  }
}

TEST(Footprint, AnEmptyDimensionGivesAnEmptyRange) {
  const BoundIndex index = affine({1, 2}, 3);
  EXPECT_TRUE(index_range(index, {{0, 3}, {0, -1}}).empty());
  EXPECT_EQ(index_range(index, {{0, 3}, {0, -1}}).extent(), 0);
  EXPECT_TRUE(wide_index_range(index, {{5, 4}, {0, 1}}).empty());
}

TEST(Footprint, RangesBeyond64BitsAreExactWideAndRejectedNarrow) {
  // 2^62 * (2^31 - 2) + 2^62: what a bad view over a large dimension asks before binding rejects it.
  const BoundIndex index = affine({int64_t{1} << 62}, int64_t{1} << 62);
  const WideIndexRange wide = wide_index_range(index, {{0, (int64_t{1} << 31) - 2}});
  EXPECT_EQ(wide.lo, static_cast<__int128>(1) << 62);
  EXPECT_EQ(wide.hi, (static_cast<__int128>(1) << 93) - (static_cast<__int128>(1) << 62));
  EXPECT_THROW(index_range(index, {{0, (int64_t{1} << 31) - 2}}), InternalError);
}

TEST(Footprint, GaussianTilesCarryTheirHalo) {
  auto m = parse_spec(
      "md_hom g\nsize I J\ninput img : float[I+4][J+4]\noutput out : float[I][J]\n"
      "view (i < I, j < J) : img[i + 0..4][j + 0..4] -> out[i][j]\nscalar (w) = w(0, 0)\ncombine (++, ++)\n",
      "g.mdh");
  const BoundMdh bound = bind(m, parse_size_binding("I=30,J=20"));
  // The whole iteration space reads the whole input, halo included, and writes the whole output.
  EXPECT_EQ(access_footprint(bound.inputs[0], full_iteration_space(bound)),
            (std::vector<IndexRange>{{0, 33}, {0, 23}}));
  EXPECT_EQ(access_footprint(bound.output, full_iteration_space(bound)), (std::vector<IndexRange>{{0, 29}, {0, 19}}));
  // An 8x4 tile at (16, 12) reads a 12x8 block from (16, 12).
  EXPECT_EQ(access_footprint(bound.inputs[0], {{16, 23}, {12, 15}}), (std::vector<IndexRange>{{16, 27}, {12, 19}}));
}

}  // namespace
}  // namespace mdh
