// Default configuration on CPUs: a vector register tile per work-item, its inputs copied in vectors.
#include <algorithm>
#include <set>

#include "codegen/defaults/default_config_steps.h"
#include "codegen/input_packing.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "codegen/vector_lanes.h"
#include "support/error.h"

namespace mdh::defaults {

// Where work-items share inputs on a device whose local memory is global memory (PoCL on a CPU), a register tile
// per work-item whose element loop the compiler vectorises: PoCL runs a work-group's work-items one after the other,
// so what makes a CPU fast is the loop nest of one work-item. Its private tile has one vector of the device's float
// width along every dimension that an input is contiguous along (so that the private caches are copied in vectors),
// kVectorTileRows elements along the lanes dimension where no input is (the output's innermost `++` dimension,
// innermost in the element loops and in every private cache that it indexes, so that the innermost loop reads
// consecutive floats), and kVectorTileRows rows along a `++` dimension that an input read along the lanes does not
// read (else one that some input is not read along); every input is cached privately, copied in vectors where the
// width divides the cached row; local caches are not used (their barriers split PoCL's work-item loops). The tile
// sizes were chosen by measurement on PoCL (docs/decisions.md).
constexpr int64_t kVectorTileRows = 8;
// Where results can be computed as vectors (VECTOR_LANES, codegen/vector_lanes.h) and an input moves along the
// lanes, the tile has this many vectors along the lanes dimension per row, with the inputs read through rather than
// cached: kVectorTileRows rows of 2 vectors keep 16 accumulators, half of AVX-512's 32 vector registers, enough to
// cover the multiply-add latency, the rest for the loaded row and broadcasts. Devices with narrower vectors (AVX2:
// 16 registers) take one. The private caches' copies cost more than they save once the element loop runs in full
// vectors (docs/decisions.md).
constexpr int64_t lane_vectors_per_row(int64_t width) {
  return width >= 16 ? 2 : 1;
}
// Work-items per work-group along the two innermost `++` dimensions: one, so that a work-group is one work-item's
// loop nest; several work-items per work-group ran slower on a many-core CPU's PoCL (docs/decisions.md).
constexpr int64_t kVectorTileWorkItems = 1;
// Where the inputs that many work-groups share (GEMM: A is read by every work-group along j, B by every one along i)
// are larger than this, the longest reduction is split over work-groups (a second kernel combines the partial
// results), into the fewest halves that bring those inputs' slice within it: the work-groups of one slice run
// together (the split is on OpenCL dimension 2, the outermost), and reread a slice that stays in a core's caches
// (about the L2 of one core) instead of streaming all of A and B from the L3 for every row of work-groups
// (docs/decisions.md).
constexpr uint64_t kSharedSliceBytes = 2u << 20;
// The partial results of the slices (a scratch buffer of slices x the output) stay within this: GEMM 4096^3 (128 MiB
// shared) would otherwise take 64 slices of its 64-MiB output, 4 GiB. GEMM 1024^3's 4 slices take 16 MiB.
constexpr uint64_t kSplitScratchBytes = 64u << 20;
// Only inputs that at least this many work-groups read count as shared: an input that few work-groups reread
// (MCC's F) gains nothing from slices, nor from a packed copy (PACK_INP) that costs a pass over it (docs/decisions.md).
constexpr int64_t kSplitMinimumRereads = 16;
// Work-groups per compute unit at least, so that PoCL's threads share the work evenly (fewer work-items per
// work-group first, then smaller tiles). A choice for load balance, not a measurement.
constexpr uint64_t kVectorTileWorkGroupsPerComputeUnit = 4;

// A private tile of about `desired` elements of a dimension of `extent`: the divisor of the extent nearest to it
// (by ratio, the smaller on a tie) between half and twice as many, else `desired`. On PoCL a short private tile at
// the edge costs more than a tile of another size (docs/decisions.md).
int64_t dividing_tile(int64_t extent, int64_t desired) {
  int64_t best = 0;
  auto ratio = [&](int64_t v) {
    return v > desired ? static_cast<double>(v) / desired : static_cast<double>(desired) / v;
  };
  for (int64_t v = (desired + 1) / 2; v <= 2 * desired && v <= extent; ++v)
    if (extent % v == 0 && (best == 0 || ratio(v) < ratio(best))) best = v;
  return best > 0 ? best : std::min(desired, extent);
}

namespace {

// The private tile along the lanes dimension, in whole vectors of `width`: a divisor of the extent near `desired`
// elements (by dividing_tile's ratio) that is a multiple of the vector, else of half the vector (the lanes then
// narrow to it), else `desired` itself where the shorter tile at the edge is at most one in kMostTilesPerEdgeTile;
// 0 where none of these exists (the tile is then computed element by element). On PoCL an edge tile costs several
// interior ones, but far less than a tile computed element by element everywhere (docs/decisions.md).
constexpr int64_t kMostTilesPerEdgeTile = 32;
int64_t lane_tile(int64_t extent, int64_t desired, int64_t width) {
  auto ratio = [&](int64_t v) {
    return v > desired ? static_cast<double>(v) / desired : static_cast<double>(desired) / v;
  };
  for (int64_t vector = width; vector >= std::max<int64_t>(2, width / 2); vector /= 2) {
    int64_t best = 0;
    for (int64_t v = vector; v <= 2 * desired && v <= extent; v += vector)
      if (2 * v >= desired && extent % v == 0 && (best == 0 || ratio(v) < ratio(best))) best = v;
    if (best > 0) return best;
  }
  return extent >= kMostTilesPerEdgeTile * desired ? desired : 0;
}

// The work-groups of `c` that read the same elements of an input: those along the `++` dimensions it does not move
// with.
int64_t rereads(const BoundMdh& bound, const KernelConfig& c, const BoundAccess& access) {
  int64_t n = 1;
  for (int d : bound.mdh->concat_dims())
    if (!moves_with(access, d)) n *= c.num_wg[d];
  return n;
}

}  // namespace

// The split of the longest reduction described at kSharedSliceBytes, for commutative operators (never a user
// operator: its ordered fold stays in one work-item) whose reductions are not split yet; false (and `c` unchanged)
// where the shared inputs fit or no even split into whole private tiles is left.
bool split_reduction_over_shared_slices(const BoundMdh& bound, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  int longest = -1;
  for (int r : mdh.reduction_dims()) {
    if (!mdh.dims[r].combine.is_commutative() || c.num_wg[r] > 1) return false;
    if (longest < 0 || bound.dim_extents[r] > bound.dim_extents[longest]) longest = r;
  }
  if (longest < 0) return false;
  uint64_t shared_bytes = 0;
  for (const BoundAccess& access : bound.inputs) {
    if (rereads(bound, c, access) >= kSplitMinimumRereads && moves_with(access, longest))
      shared_bytes += bound.byte_size(access.buffer);
  }
  const uint64_t output_bytes = bound.byte_size(bound.output.buffer);
  const int64_t extent = bound.dim_extents[longest];
  int64_t slices = 1;
  while (shared_bytes / static_cast<uint64_t>(slices) > kSharedSliceBytes && extent % (2 * slices) == 0 &&
         (extent / (2 * slices)) % c.private_tile_size[longest] == 0 &&
         static_cast<uint64_t>(2 * slices) * output_bytes <= kSplitScratchBytes)
    slices *= 2;
  if (slices < 2) return false;
  c.num_wg[longest] = slices;
  c.local_tile_size[longest] = extent / slices;
  return true;
}

// VECTOR_WIDTH of every vectorisable input cached in `layer`: width_of(access) where it divides the cache's rows, else
// the widest power of two below it that does; an access whose width_of is below 2 keeps its width.
template <typename WidthOf>
void copy_caches_in_vectors(const BoundMdh& bound, Layer layer, KernelConfig& c, WidthOf width_of) {
  const std::vector<int> vectorisable = find_family("VECTOR_WIDTH")->members(bound);
  for (const CachedTile& tile : tunable_geometry(bound, c).cached_tiles) {
    if (tile.layer != layer || std::find(vectorisable.begin(), vectorisable.end(), tile.access) == vectorisable.end())
      continue;
    int64_t v = width_of(tile.access);
    if (v < 2) continue;
    while (v > 1 && tile.extents.back() % v != 0) v /= 2;
    member_slot(c.vector_width, tile.access) = v;
  }
}
void copy_private_caches_in_vectors(const BoundMdh& bound, int64_t width, KernelConfig& c) {
  copy_caches_in_vectors(bound, Layer::Private, c, [width](int) { return width; });
}
// On GPUs, the copies into local memory of inputs that no register tile has given a width yet move
// kGpuVectorBytes at a time (float4: 128-bit loads, the widest a work-item issues on NVIDIA and AMD GPUs).
void copy_local_caches_in_vectors(const BoundMdh& bound, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  copy_caches_in_vectors(bound, Layer::Local, c, [&](int a) -> int64_t {
    if (c.vector_width_of(a) != 1) return 0;
    const size_t bytes = mdh.size_of(mdh.buffers[mdh.inputs[a].buffer].type);
    return static_cast<int64_t>(kGpuVectorBytes / std::max<size_t>(bytes, 1));
  });
}

namespace {

// PACK_INP on every input that has the choice (an index moving with the output's unit-stride dimension that is not
// its last) and that work-groups share (it does not move with some `++` dimension): its copy is made once per call
// and read by many work-groups, in place of a transposed copy into a cache at every reduction step
// (docs/decisions.md). False (and `c` unchanged) where no input is packed.
bool pack_shared_inputs(const BoundMdh& bound, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  bool packed = false;
  for (int a : find_family("PACK_INP")->members(bound)) {
    const std::vector<int> concat = mdh.concat_dims();
    if (std::all_of(concat.begin(), concat.end(), [&](int d) { return moves_with(bound.inputs[a], d); })) continue;
    set_label(c, "PACK_INP", "moving_innermost", a);
    packed = true;
  }
  return packed;
}

// The vector register tile described above for the layouts `c` reads its inputs in (PACK_INP); false (and `c`
// unchanged) where no input is shared or the result is invalid.
bool tile_for_vectors_in_layout(const BoundMdh& spec, const DeviceLimits& limits, KernelConfig& c) {
  const BoundMdh bound = packed_view(spec, c);
  const Mdh& mdh = *bound.mdh;
  const std::vector<int> concat = mdh.concat_dims();
  auto shared_along = [&](int d) {
    for (const BoundAccess& access : bound.inputs)
      if (!moves_with(access, d)) return true;
    return false;
  };
  if (std::none_of(concat.begin(), concat.end(), shared_along)) return false;
  int64_t width = 1;  // OpenCL's vector types: 2, 4, 8, 16 elements
  while (width * 2 <= std::min<int64_t>(16, static_cast<int64_t>(limits.float_vector_width))) width *= 2;
  // A device without vector registers (or limits that do not say) has no lanes to fill: the plain default.
  if (width < 2) return false;
  const std::vector<int> vectorisable = find_family("VECTOR_WIDTH")->members(bound);
  std::vector<bool> contiguous(mdh.dims.size(), false);  // some vectorisable input is contiguous along it
  for (int a : vectorisable)
    if (const int d = unit_stride_dimension(bound.inputs[a]); d >= 0) contiguous[d] = true;
  int lanes = unit_stride_dimension(bound.output);
  if (lanes < 0 || !mdh.dims[lanes].combine.is_concat()) lanes = concat.back();
  // Rows along a dimension that an input read along the lanes does not read (GEMM: B[k][j] is the same for every
  // i), so that both inputs are reused within the tile (as an outer product), else along any shared one.
  auto shared_with_lanes = [&](int d) {
    for (const BoundAccess& access : bound.inputs)
      if (moves_with(access, lanes) && !moves_with(access, d)) return true;
    return false;
  };
  int rows = -1;
  for (int d : concat)
    if (d != lanes && shared_along(d)) rows = d;  // the innermost such
  for (int d : concat)
    if (d != lanes && shared_with_lanes(d)) rows = d;

  KernelConfig t = c;
  // Work-items along the dimensions on OpenCL dimensions 0 and 1 (the innermost two `++` dimensions, see
  // shape_concat_dimensions), a block of work-items' tiles per work-group.
  auto set_concat_tile = [&](int d, int64_t elements, int64_t work_items) {
    const int64_t extent = bound.dim_extents[d];
    t.private_tile_size[d] = std::max<int64_t>(1, std::min(elements, extent));
    const int64_t private_tiles = (extent + t.private_tile_size[d] - 1) / t.private_tile_size[d];
    t.num_wi[d] = std::max<int64_t>(1, std::min(work_items, private_tiles));
    for (int64_t w = t.num_wi[d]; 2 * w > t.num_wi[d]; --w)
      if (private_tiles % w == 0) {
        t.num_wi[d] = w;
        break;
      }
    t.local_tile_size[d] = std::min(extent, t.num_wi[d] * t.private_tile_size[d]);
    t.num_wg[d] = (extent + t.local_tile_size[d] - 1) / t.local_tile_size[d];
  };
  // Where no input can be moved in vectors (struct elements: PRL's records), the tile has no lanes to fill: it only
  // repeats f per element in the work-item's loop body. One element per work-item then, along every dimension
  // (docs/decisions.md).
  const bool vectorless = vectorisable.empty();
  const int64_t lanes_tile = lane_tile(bound.dim_extents[lanes], lane_vectors_per_row(width) * width, width);
  const bool in_lanes = !vectorless && contiguous[lanes] && vector_lanes_dimension(bound) == lanes && lanes_tile > 0;
  for (int d : concat) {
    const int64_t elements = vectorless   ? 1
                             : d == lanes ? (in_lanes        ? lane_vectors_per_row(width) * width
                                             : contiguous[d] ? width
                                                             : kVectorTileRows)
                             : d == rows  ? kVectorTileRows
                                          : 1;
    const int64_t tile = d == lanes && in_lanes ? lanes_tile : dividing_tile(bound.dim_extents[d], elements);
    set_concat_tile(d, tile, c.ocl_dim[1][d] < 2 ? kVectorTileWorkItems : 1);
  }
  for (int r : mdh.reduction_dims())
    if (vectorless || in_lanes)
      t.private_tile_size[r] = 1;
    else if (contiguous[r])
      t.private_tile_size[r] = dividing_tile(t.local_tile_size[r], width);
  while (work_group_count(t) < kVectorTileWorkGroupsPerComputeUnit * limits.compute_units) {
    int most = -1;  // the most work-items, else the largest private tile, the innermost dimension on a tie
    for (int d : concat)
      if (t.num_wi[d] > 1 && (most < 0 || t.num_wi[d] >= t.num_wi[most])) most = d;
    if (most >= 0) {
      set_concat_tile(most, t.private_tile_size[most], t.num_wi[most] / 2);
      continue;
    }
    for (int d : concat)
      if (t.private_tile_size[d] > 1 && (most < 0 || t.private_tile_size[d] >= t.private_tile_size[most])) most = d;
    if (most < 0) break;
    const int64_t smaller = dividing_tile(bound.dim_extents[most], t.private_tile_size[most] / 2);
    set_concat_tile(most, smaller < t.private_tile_size[most] ? smaller : t.private_tile_size[most] / 2, 1);
  }
  // Reductions outermost in the element loops, the lanes dimension innermost.
  std::vector<int>& order = t.loop_order[static_cast<int>(Layer::Private)];
  order = mdh.reduction_dims();
  for (int d : concat)
    if (d != lanes) order.push_back(d);
  order.push_back(lanes);
  // Every input cached privately, the buffer dimension that the lanes dimension moves innermost; with VECTOR_LANES
  // read through.
  const int priv = static_cast<int>(Layer::Private);
  if (in_lanes) {  // the widest vector that divides the tile, which fewer work-groups may have shrunk
    t.vector_lanes = width;
    while (t.vector_lanes > 1 && t.private_tile_size[lanes] % t.vector_lanes != 0) t.vector_lanes /= 2;
  }
  for (size_t a = 0; a < bound.inputs.size() && !in_lanes; ++a) {
    const BoundAccess& access = bound.inputs[a];
    t.input_memory[priv][a] = Memory::Private;
    if (const int k = first_index_moving_with(access, lanes); k >= 0) place_innermost(t.cache_dim_order[priv][a], k);
  }
  copy_private_caches_in_vectors(bound, width, t);
  try {
    check_config(spec, t, limits);
  } catch (const UserError&) {
    return false;  // e.g. the private memory budget
  }
  KernelConfig split = t;
  if (split_reduction_over_shared_slices(bound, split)) {
    try {
      check_config(spec, split, limits);
      t = split;
    } catch (const UserError&) {
      // the tile without the split (e.g. where the device cannot hold the partial results)
    }
  }
  c = t;
  return true;
}

}  // namespace

// Packed inputs where the tile then computes its results in vector lanes (VECTOR_LANES) and at least
// kSplitMinimumRereads work-groups read each copy (one copy costs a pass over the input: MCC's filter, read by few
// work-groups, ran slower packed; docs/decisions.md), else the spec's layouts.
bool tile_for_vectors(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c) {
  KernelConfig packed = c;
  if (pack_shared_inputs(bound, packed) && tile_for_vectors_in_layout(bound, limits, packed) &&
      packed.vector_lanes > 1) {
    bool reread = true;
    for (size_t a = 0; a < bound.inputs.size(); ++a)
      if (packs_input(packed, static_cast<int>(a)))
        reread = reread && rereads(bound, packed, bound.inputs[a]) >= kSplitMinimumRereads;
    if (reread) {
      c = packed;
      return true;
    }
  }
  return tile_for_vectors_in_layout(bound, limits, c);
}

}  // namespace mdh::defaults
