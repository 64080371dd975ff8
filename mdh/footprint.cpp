// Footprints of affine accesses over boxes of the iteration space.
#include "mdh/footprint.h"

#include <limits>

namespace mdh {

WideIndexRange wide_index_range(const BoundIndex& index, const std::vector<IndexRange>& dim_ranges) {
  MDH_INTERNAL_ASSERT(index.coefficient.size() == dim_ranges.size(), "one range per dimension expected");
  // An affine function over a box takes its extremes at corners: per term, the low or high end by the sign.
  // Terms are below 2^63 * 2^31 and there are few of them, so 128 bits hold every sum.
  WideIndexRange r{index.offset, index.offset};
  for (size_t d = 0; d < dim_ranges.size(); ++d) {
    if (dim_ranges[d].empty()) return WideIndexRange{};
    const __int128 c = index.coefficient[d];
    if (c >= 0) {
      r.lo += c * dim_ranges[d].lo;
      r.hi += c * dim_ranges[d].hi;
    } else {
      r.lo += c * dim_ranges[d].hi;
      r.hi += c * dim_ranges[d].lo;
    }
  }
  if (index.has_window) {
    r.lo += index.window_lo;
    r.hi += index.window_lo + index.window_extent - 1;
  }
  return r;
}

IndexRange index_range(const BoundIndex& index, const std::vector<IndexRange>& dim_ranges) {
  const WideIndexRange wide = wide_index_range(index, dim_ranges);
  if (wide.empty()) return IndexRange{};
  constexpr __int128 kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  MDH_INTERNAL_ASSERT(wide.lo >= kMin && wide.hi <= kMax, "an index range beyond 64 bits in a bound md_hom");
  return IndexRange{static_cast<int64_t>(wide.lo), static_cast<int64_t>(wide.hi)};
}

std::vector<IndexRange> access_footprint(const BoundAccess& access, const std::vector<IndexRange>& dim_ranges) {
  std::vector<IndexRange> out;
  out.reserve(access.indices.size());
  for (const auto& index : access.indices) out.push_back(index_range(index, dim_ranges));
  return out;
}

std::vector<IndexRange> full_iteration_space(const BoundMdh& bound) {
  std::vector<IndexRange> box;
  for (int64_t e : bound.dim_extents) box.push_back({0, e - 1});
  return box;
}

}  // namespace mdh
