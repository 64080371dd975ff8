// What a view touches: the range of buffer indices an affine access reads or writes when the dimensions range
// over a box. Used by size binding (every access inside its buffer over the whole iteration space) and by the
// tunable kernel (the extent of an input tile to cache, halo included).
#pragma once

#include <cstdint>
#include <vector>

#include "mdh/bind.h"

namespace mdh {

/// A closed integer interval [lo, hi]; empty when lo > hi.
struct IndexRange {
  int64_t lo = 0;
  int64_t hi = -1;
  bool empty() const { return lo > hi; }
  int64_t extent() const { return empty() ? 0 : hi - lo + 1; }
  bool operator==(const IndexRange&) const = default;
};

/// An index range before size binding has checked it against its buffer: coefficients and offsets are any 64-bit
/// values, so coefficient × extent needs more than 64 bits.
struct WideIndexRange {
  __int128 lo = 0;
  __int128 hi = -1;
  bool empty() const { return lo > hi; }
};

/// The range of one bound index (window included) when dimension d ranges over dim_ranges[d]; empty when a
/// dimension range is. Exact for every bound index.
WideIndexRange wide_index_range(const BoundIndex& index, const std::vector<IndexRange>& dim_ranges);

/// The same for an index of a bound md_hom, whose accesses size binding has proven to stay inside their buffers,
/// so the range fits 64 bits; an internal error where it does not.
IndexRange index_range(const BoundIndex& index, const std::vector<IndexRange>& dim_ranges);

/// The ranges of every index of an access over a box: the access's bounding box in buffer coordinates.
std::vector<IndexRange> access_footprint(const BoundAccess& access, const std::vector<IndexRange>& dim_ranges);

/// The box of the whole iteration space: [0, extent-1] per dimension.
std::vector<IndexRange> full_iteration_space(const BoundMdh& bound);

}  // namespace mdh
