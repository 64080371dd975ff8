// Default configuration: reductions shared by the work-items of a work-group, or split over work-groups.
#include <algorithm>
#include <set>

#include "codegen/defaults/default_config_steps.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "support/saturating.h"

namespace mdh::defaults {

// The dimension along which the most input bytes are contiguous in memory (the unit-stride index of their
// accesses), the output's unit-stride dimension on a tie; -1 when no access has one.
int most_read_contiguous_dimension(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  std::vector<double> bytes(mdh.dims.size(), 0);
  for (const BoundAccess& access : bound.inputs)
    if (const int d = unit_stride_dimension(access); d >= 0)
      bytes[d] += static_cast<double>(bound.byte_size(access.buffer));
  const int output_dim = unit_stride_dimension(bound.output);
  int best = output_dim;
  for (size_t d = 0; d < bytes.size(); ++d)
    if (bytes[d] > 0 && (best < 0 || bytes[d] > bytes[best])) best = static_cast<int>(d);
  return best;
}

// How many output points read each element of the input that streams the most bytes along r: the product of the
// extents of the `++` dimensions its access leaves out (GEMV's A: 1; GEMM's A along k: J).
int64_t reuse_of_streamed_input(const BoundMdh& bound, int r) {
  const Mdh& mdh = *bound.mdh;
  const BoundAccess* streamed = nullptr;
  for (const BoundAccess& access : bound.inputs)
    if (unit_stride_dimension(access) == r &&
        (!streamed || bound.byte_size(access.buffer) > bound.byte_size(streamed->buffer)))
      streamed = &access;
  if (!streamed) return 1;
  int64_t reuse = 1;
  for (int d : mdh.concat_dims()) {
    const bool read = std::any_of(streamed->indices.begin(), streamed->indices.end(),
                                  [&](const BoundIndex& index) { return index.coefficient[d] != 0; });
    if (!read) reuse = saturating_mul(reuse, bound.dim_extents[d]);
  }
  return reuse;
}

// The shared-reduction layout (see kSharedReductionWorkItems): work-items along reduction dimension r, on OpenCL
// dimension 0, each owning every NUM_WI-th element (private tiles of 1); their partial results meet in local
// memory and are combined once at the end (CMB_RES = G); a long reduction is split over work-groups. The `++`
// dimensions take a few elements per work-group each, as a register tile that reuses what r reads.
void share_reduction(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  // On a CPU (local memory in global memory, vector registers) a few work-items, each reading consecutive blocks
  // through private caches moved in vectors (kCpuReductionWorkItems).
  const bool cpu = !limits.local_memory_dedicated && limits.float_vector_width >= 2;
  int64_t wi = cpu ? kCpuReductionWorkItems : kSharedReductionWorkItems;
  while (wi > 1 && (static_cast<uint64_t>(wi) > limits.max_work_group_size ||
                    static_cast<uint64_t>(wi) > limits.max_work_item_sizes[0]))
    wi /= 2;
  const int64_t extent = bound.dim_extents[r];
  c.num_wi[r] = wi;
  c.private_tile_size[r] = cpu ? dividing_tile(extent / wi, kCpuReductionElements) : 1;
  const int64_t step = wi * c.private_tile_size[r];
  c.num_wg[r] =
      extent > step * kSharedReductionSteps
          ? std::min<int64_t>(1024, (extent + step * kSharedReductionSteps - 1) / (step * kSharedReductionSteps))
          : 1;
  c.local_tile_size[r] = (extent + c.num_wg[r] - 1) / c.num_wg[r];
  if (cpu) {
    // Every input read along r cached privately, moved in vectors where the width divides the cache's row.
    const int priv = static_cast<int>(Layer::Private);
    for (size_t a = 0; a < bound.inputs.size(); ++a)
      if (unit_stride_dimension(bound.inputs[a]) == r) c.input_memory[priv][a] = Memory::Private;
    copy_private_caches_in_vectors(bound, kCpuReductionVectorWidth, c);
  }
  c.ocl_dim[0][r] = 0;
  c.ocl_dim[1][r] = 0;
  int rank = 0;
  for (int d : mdh.concat_dims()) {
    c.num_wi[d] = 1;
    c.private_tile_size[d] = std::min<int64_t>(kRowsPerWorkGroup, bound.dim_extents[d]);
    c.local_tile_size[d] = c.private_tile_size[d];
    c.num_wg[d] = (bound.dim_extents[d] + c.local_tile_size[d] - 1) / c.local_tile_size[d];
    c.ocl_dim[0][d] = c.ocl_dim[1][d] = std::min(++rank, 2);
  }
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.result_memory[static_cast<int>(Layer::Local)] = Memory::Private;
  c.combine_layer = Layer::Global;
  c.work_item_combine = WorkItemCombine::tree;
}

// Small outputs on a device with dedicated local memory (a GPU). The layouts above give each work-item one or more
// output points and fold their reductions alone; where the output has fewer points than the device has room for
// work-items (a work-group of the largest size on every compute unit), they leave most of it idle, however small
// the register tiles. Where the reductions' operator lets partial results meet in any order (built-in, commutative:
// the work-items' tree, CMB_WI = tree), the device is filled by splitting the longest reduction instead: first among
// the work-items of a work-group (one kernel), then, where fewer work-groups than compute units remain, among
// work-groups (a second kernel folds their partial results). A user operator that need not commute keeps one
// work-item per reduction (its ordered fold). GEMM 10x500x64 and MCC 1x7x7x512 are such outputs (docs/decisions.md).

// The work-items that fill the device: a work-group of the largest size on every compute unit.
uint64_t device_work_items(const DeviceLimits& limits) {
  return std::max<uint64_t>(1, limits.compute_units) * std::max<uint64_t>(1, limits.max_work_group_size);
}

uint64_t output_points(const BoundMdh& bound) {
  uint64_t n = 1;
  for (int d : bound.mdh->concat_dims()) n = saturating_mul(n, static_cast<uint64_t>(bound.dim_extents[d]));
  return n;
}

// Whether the output is too small to fill the device and the reductions may be split (see above); the reduction
// to split (the longest, the first on a tie) or -1.
int reduction_to_split_for_small_output(const BoundMdh& bound, const DeviceLimits& limits) {
  const Mdh& mdh = *bound.mdh;
  if (!limits.local_memory_dedicated || output_points(bound) >= device_work_items(limits)) return -1;
  int longest = -1;
  for (int r : mdh.reduction_dims()) {
    if (!mdh.dims[r].combine.is_commutative()) return -1;
    if (longest < 0 || bound.dim_extents[r] > bound.dim_extents[longest]) longest = r;
  }
  return longest;
}

uint64_t work_item_count(const KernelConfig& c) {
  uint64_t n = 1;
  for (size_t d = 0; d < c.num_wg.size(); ++d) n = saturating_mul(n, static_cast<uint64_t>(c.num_wg[d] * c.num_wi[d]));
  return n;
}

uint64_t work_group_size(const KernelConfig& c) {
  uint64_t n = 1;
  for (int64_t w : c.num_wi) n = saturating_mul(n, static_cast<uint64_t>(w));
  return n;
}

// Where even one point per work-item leaves each compute unit fewer than kWorkItemsPerComputeUnit work-items, a
// register tile has nothing to share and a local cache nothing to pay for its barriers: one output point per
// work-item (the `++` work-items of the plain layout), and the reduction r shared by the most work-items, a power
// of two, that keep the device's work-items within device_work_items, each folding a block of at least
// kCachedReductionTile elements (GEMM 10x500x64: 4 work-items of 16 along k), on OpenCL dimension 2 (the `++`
// dimensions keep 0 and 1, so that a warp reads consecutive elements of the output's innermost dimension); their
// partial results meet in local memory, combined by a tree. Then fewer `++` work-items per work-group, the
// outermost OpenCL dimension's first, until every compute unit has a work-group (GEMM 10x500x64: 2 x 16 x 4
// work-items, 160 work-groups). False (and `c` unchanged) where the output is not that small, r is too short to
// share or the layout is not valid.
bool share_reduction_per_point(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  const uint64_t points = output_points(bound);
  if (points >= kWorkItemsPerComputeUnit * limits.compute_units || c.num_wg[r] > 1) return false;
  const int64_t extent = bound.dim_extents[r];
  int64_t sharing = 1;
  while (points * static_cast<uint64_t>(2 * sharing) <= device_work_items(limits) &&
         2 * sharing * kCachedReductionTile <= extent &&
         static_cast<uint64_t>(2 * sharing) <= std::min(limits.max_work_item_sizes[2], limits.max_work_group_size))
    sharing *= 2;
  if (sharing < 2) return false;
  KernelConfig t = c;
  auto set_concat_work_items = [&](int d, int64_t work_items) {
    t.num_wi[d] = work_items;
    t.private_tile_size[d] = 1;
    t.local_tile_size[d] = work_items;
    t.num_wg[d] = (bound.dim_extents[d] + work_items - 1) / work_items;
  };
  for (int d : mdh.concat_dims()) set_concat_work_items(d, t.num_wi[d]);
  t.num_wi[r] = sharing;
  t.local_tile_size[r] = extent;
  // A power of two (on PT_SIZE's lattice, so that the tuner can start from the default), in as many steps as needed.
  t.private_tile_size[r] = 1;
  while (2 * t.private_tile_size[r] * sharing <= extent) t.private_tile_size[r] *= 2;
  t.ocl_dim[0][r] = t.ocl_dim[1][r] = 2;
  // Whole warps where the default space requires them (whole_warps_apply): the plain layout's `++` work-items
  // hold them, and so does a power of two of work-items along r; a halving that would break them stops the loop.
  const bool whole_warps = whole_warps_apply(bound, limits);
  while (work_group_count(t) < limits.compute_units || work_group_size(t) > limits.max_work_group_size) {
    int outermost = -1;  // the highest OpenCL dimension with several work-items, the outer md_hom dimension on a tie
    for (int d : mdh.concat_dims())
      if (t.num_wi[d] > 1 && (outermost < 0 || t.ocl_dim[1][d] > t.ocl_dim[1][outermost])) outermost = d;
    if (outermost < 0) break;
    const bool too_large = work_group_size(t) > limits.max_work_group_size;
    const int64_t before = t.num_wi[outermost];
    set_concat_work_items(outermost, before / 2);
    if (!too_large && whole_warps && work_group_size(t) % limits.warp_size != 0) {
      set_concat_work_items(outermost, before);
      break;
    }
  }
  t.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  t.result_memory[static_cast<int>(Layer::Local)] = Memory::Private;
  t.combine_layer = Layer::Global;
  t.work_item_combine = WorkItemCombine::tree;
  try {
    check_config(bound, t, limits);
  } catch (const UserError&) {
    return false;
  }
  c = t;
  return true;
}

// Where a small output's layout still leaves fewer work-groups than compute units (MCC's register tiles: 32 of 32 x 7
// work-items for 132), the reduction r is split over the most work-groups, a power of two, that keep the device's
// work-items within device_work_items, at least kCachedReductionTile elements per work-item sharing r (MCC: 16
// along c, 512 work-groups). A layout with several local tiles along r gives each work-group whole tiles (MCC: 4 of
// 8); one with a single tile (share_reduction_per_point) cuts it into one per work-group. `c` is unchanged where that
// leaves a single work-group or is not valid.
void split_reduction_over_work_groups(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c) {
  if (work_group_count(c) >= limits.compute_units || c.num_wg[r] > 1) return;
  const int64_t extent = bound.dim_extents[r];
  const bool one_tile = c.local_tile_size[r] >= extent;
  const int64_t tiles = one_tile ? extent : (extent + c.local_tile_size[r] - 1) / c.local_tile_size[r];
  const uint64_t work_items = work_item_count(c);
  int64_t groups = 1;
  while (work_items * static_cast<uint64_t>(2 * groups) <= device_work_items(limits) && 2 * groups <= tiles &&
         2 * groups * c.num_wi[r] * kCachedReductionTile <= extent)
    groups *= 2;
  if (groups < 2) return;
  KernelConfig t = c;
  t.num_wg[r] = groups;
  if (one_tile) {
    t.local_tile_size[r] = (extent + groups - 1) / groups;
    t.private_tile_size[r] = std::min(t.private_tile_size[r], (t.local_tile_size[r] + t.num_wi[r] - 1) / t.num_wi[r]);
  }
  try {
    check_config(bound, t, limits);
  } catch (const UserError&) {
    return;
  }
  c = t;
}

}  // namespace mdh::defaults
