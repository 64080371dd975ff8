// Where the tunable kernel's `int` indices end: every extent and every buffer's element count must stay below 2^31.
// The positions the kernel forms along a dimension from its tile sizes may pass 2^31 near that end; such a kernel
// computes them in `long` (needs_wide_indices), every other kernel in `int`.
#pragma once

#include <cstdint>

#include "codegen/kernel_config.h"
#include "mdh/bind.h"

namespace mdh {

/// Throws UserError, at the dimension's or buffer's place in the spec, where an extent or a buffer's element count
/// passes the tunable kernel's `int` indices (2^31 - 1).
void check_tunable_index_range(const BoundMdh& bound);

/// The largest position the tunable kernel forms along a dimension of `extent` with these sizes (saturated at 2^63 -
/// 1): the tile count's numerator EXTENT + LT_SIZE - 1, PRIVATE_STEPS's LT_SIZE + STEP - 1, and the furthest end a
/// private step reaches, the last work-group's last tile start plus PRIVATE_STEPS * STEP. At most 6 * extent (NUM_WG <=
/// ceil(extent / LT_SIZE), NUM_WI <= ceil(LT_SIZE / PT_SIZE)), so only extents above 2^31 / 6 can pass 2^31 - 1.
int64_t tunable_index_reach(int64_t extent, int64_t local_tile, int64_t work_groups, int64_t work_items,
                            int64_t private_tile);

/// Whether the tunable kernel of `config` computes its positions along the dimensions (tile and private tile
/// bounds, element indices, the size macros) in `long`: where some dimension's tunable_index_reach passes
/// 2^31 - 1. Only extents above 2^31 / 6 can, so kernels of smaller extents keep `int` (and their bytes).
bool needs_wide_indices(const BoundMdh& bound, const KernelConfig& config);

}  // namespace mdh
