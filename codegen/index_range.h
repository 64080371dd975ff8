// Where the tunable kernel's `int` indices end: every extent and every buffer's element count must stay below 2^31,
// and so must every index the kernel forms along a dimension from its tile sizes, or its index arithmetic wraps.
#pragma once

#include <cstdint>

#include "mdh/bind.h"

namespace mdh {

/// Throws UserError, at the dimension's or buffer's place in the spec, where an extent or a buffer's element count
/// passes the tunable kernel's `int` indices (2^31 - 1).
void check_tunable_index_range(const BoundMdh& bound);

/// The largest int the tunable kernel forms along a dimension of `extent` with these sizes (saturated at 2^63 - 1):
/// the tile count's numerator EXTENT + LT_SIZE - 1, PRIVATE_STEPS's LT_SIZE + STEP - 1, and the furthest end a private
/// step reaches, the last work-group's last tile start plus PRIVATE_STEPS * STEP. At most 6 * extent (NUM_WG <=
/// ceil(extent / LT_SIZE), NUM_WI <= ceil(LT_SIZE / PT_SIZE)), so only extents above 2^31 / 6 can pass 2^31 - 1.
int64_t tunable_index_reach(int64_t extent, int64_t local_tile, int64_t work_groups, int64_t work_items,
                            int64_t private_tile);

}  // namespace mdh
