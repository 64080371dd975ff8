#include "views/footprint.h"

namespace mdh {

IndexRange index_range(const BoundIndex& index, const std::vector<IndexRange>& dim_ranges) {
  MDH_INTERNAL_ASSERT(index.coefficient.size() == dim_ranges.size(), "one range per dimension expected");
  // An affine function over a box takes its extremes at corners: per term, the low or high end by the sign.
  // Bound sizes are below 2^31 per dimension, so these sums stay far from 64-bit overflow.
  IndexRange r{index.offset, index.offset};
  for (size_t d = 0; d < dim_ranges.size(); ++d) {
    if (dim_ranges[d].empty()) return IndexRange{};
    const int64_t c = index.coefficient[d];
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
