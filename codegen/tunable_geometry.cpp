// Tile counts, shares, cached tile extents, NDRange and local memory of one tunable kernel configuration.
#include "codegen/tunable_geometry.h"

#include <algorithm>

#include "codegen/parameter_families.h"
#include "mdh/footprint.h"
#include "support/saturating.h"

namespace mdh {

namespace {
// For a >= 0, b > 0; without a + b - 1, which passes 2^63 for saturated counts.
int64_t ceil_div(int64_t a, int64_t b) {
  return a / b + (a % b != 0);
}
uint64_t bytes_of(int64_t count, uint64_t element_bytes) {
  return saturating_mul(static_cast<uint64_t>(count), element_bytes);
}
}  // namespace

int64_t CachedTile::elements() const {
  int64_t n = 1;
  for (int64_t e : extents) n = saturating_mul(n, e);
  return n;
}

int64_t CachedTile::allocated_elements() const {
  if (row_pad == 0 || dim_order.empty()) return elements();
  const int64_t row = extents[static_cast<size_t>(dim_order.back())];
  return saturating_mul(elements() / row, row + row_pad);
}

TunableGeometry tunable_geometry(const BoundMdh& bound, const KernelConfig& c, int full_tiles_along) {
  const Mdh& mdh = *bound.mdh;
  const int dims = static_cast<int>(mdh.dims.size());
  TunableGeometry g;
  g.concat_dims = mdh.concat_dims();
  g.reduction_dims = mdh.reduction_dims();
  g.result_bytes = mdh.compute_size_of(mdh.result_type());
  for (int d = 0; d < dims; ++d) {
    const int64_t n = bound.dim_extents[d];
    g.local_tiles.push_back(ceil_div(n, c.local_tile_size[d]));
    g.tiles_per_wg.push_back(ceil_div(g.local_tiles[d], c.num_wg[d]));
    const int64_t lt = c.local_tile_size[d], step = saturating_mul(c.num_wi[d], c.private_tile_size[d]);
    g.private_steps.push_back(ceil_div(lt, step));
    const Fullness local = (n % lt == 0 && g.local_tiles[d] % c.num_wg[d] == 0) || d == full_tiles_along
                               ? Fullness::Always
                           : n < lt ? Fullness::Never
                                    : Fullness::Sometimes;
    g.local_tile_fullness.push_back(local);
    g.step_fullness.push_back(local == Fullness::Always && lt % step == 0 ? Fullness::Always
                              : step > std::min(lt, n)                    ? Fullness::Never
                                                                          : Fullness::Sometimes);
    g.tile_slots_fullness.push_back(g.step_fullness[d] == Fullness::Always       ? Fullness::Always
                                    : lt % step != 0 || local == Fullness::Never ? Fullness::Never
                                                                                 : Fullness::Sometimes);
    // Products over up to 20 dimensions saturate: a count past 2^63 exceeds every limit it is checked against.
    g.work_group_size = saturating_mul(g.work_group_size, c.num_wi[d]);
    g.work_groups = saturating_mul(g.work_groups, c.num_wg[d]);
    const bool concat = mdh.dims[d].combine.is_concat();
    if (concat) {
      g.result_slots = saturating_mul(g.result_slots, saturating_mul(g.private_steps[d], c.private_tile_size[d]));
      g.concat_work_items = saturating_mul(g.concat_work_items, c.num_wi[d]);
      g.output_points = saturating_mul(g.output_points, n);
    } else {
      g.reduction_work_items = saturating_mul(g.reduction_work_items, c.num_wi[d]);
      g.reduction_work_groups = saturating_mul(g.reduction_work_groups, c.num_wg[d]);
    }
    g.num_groups[c.ocl_dim[0][d]] = saturating_mul(g.num_groups[c.ocl_dim[0][d]], static_cast<uint64_t>(c.num_wg[d]));
    g.local_size[c.ocl_dim[1][d]] = saturating_mul(g.local_size[c.ocl_dim[1][d]], static_cast<uint64_t>(c.num_wi[d]));
    g.work_dims = std::max({g.work_dims, c.ocl_dim[0][d] + 1, c.ocl_dim[1][d] + 1});
  }

  g.tiles_decide_steps = !(g.combines_work_items() && c.combine_layer == Layer::Private);
  bool sometimes = false;
  for (int d = 0; d < dims; ++d) {
    if (g.step_fullness[d] == Fullness::Never) g.tiles_decide_steps = false;
    if (g.step_fullness[d] != Fullness::Sometimes) continue;
    sometimes = true;
    if (g.local_tile_fullness[d] == Fullness::Never ||
        c.local_tile_size[d] % saturating_mul(c.num_wi[d], c.private_tile_size[d]) != 0)
      g.tiles_decide_steps = false;
  }
  g.tiles_decide_steps = g.tiles_decide_steps && sometimes;
  g.edge_points_computed.assign(static_cast<size_t>(dims), false);
  if (g.tiles_decide_steps && has_label(c, "EDGE_POINTS", "computed"))
    for (int d : g.concat_dims) {
      if (g.step_fullness[d] != Fullness::Sometimes) continue;
      bool inside = true;
      for (size_t a = 0; a < mdh.inputs.size(); ++a)
        if (moves_with(bound.inputs[a], d) && c.input_memory[static_cast<int>(Layer::Local)][a] != Memory::Local)
          inside = false;
      g.edge_points_computed[d] = inside;
    }

  // Cached tiles: the footprint of a full tile (local: LT_SIZE, private: PT_SIZE per dimension) through the view.
  for (Layer layer : {Layer::Local, Layer::Private}) {
    const int li = static_cast<int>(layer);
    std::vector<IndexRange> box;
    for (int d = 0; d < dims; ++d)
      box.push_back({0, (layer == Layer::Local ? c.local_tile_size[d] : c.private_tile_size[d]) - 1});
    for (size_t a = 0; a < mdh.inputs.size(); ++a) {
      const Memory m = c.input_memory[li][a];
      if (m == Memory::None) continue;
      CachedTile t;
      t.layer = layer;
      t.access = static_cast<int>(a);
      t.memory = m;
      for (const auto& r : access_footprint(bound.inputs[a], box)) t.extents.push_back(r.extent());
      t.dim_order = c.cache_dim_order[li][a];
      if (layer == Layer::Private && m == Memory::Local) t.copies = g.work_group_size;
      if (layer == Layer::Local && m == Memory::Local && t.extents.size() >= 2)
        t.row_pad = c.local_pad_of(static_cast<int>(a));
      const uint64_t bytes = bytes_of(saturating_mul(t.allocated_elements(), t.copies),
                                      mdh.compute_size_of(mdh.buffers[mdh.inputs[a].buffer].type));
      uint64_t& memory = m == Memory::Local ? g.local_memory_bytes : g.private_memory_bytes;
      memory = saturating_add(memory, bytes);
      g.cached_tiles.push_back(t);
    }
  }
  // Double buffering (see prefetch_dimension): each work-item holds its share of the next tile of every local cache.
  bool copies_fit = false, edges = false;
  uint64_t prefetch_bytes = 0;
  for (const CachedTile& t : g.cached_tiles) {
    if (t.layer != Layer::Local || t.memory != Memory::Local) continue;
    copies_fit = true;
    // Along a dimension whose tiles are sometimes full, the next tile's loads are guarded in edge tiles; its box
    // must start at the tile's begin (an index that grows with it) to stay the box of a full tile moved by LT_SIZE.
    for (const BoundIndex& index : bound.inputs[t.access].indices)
      for (int d = 0; d < dims; ++d) {
        if (index.coefficient[d] == 0 || g.local_tile_fullness[d] == Fullness::Always) continue;
        if (g.local_tile_fullness[d] == Fullness::Sometimes && index.coefficient[d] > 0)
          edges = true;
        else
          copies_fit = false;
      }
    if (!copies_fit) break;
    prefetch_bytes =
        saturating_add(prefetch_bytes, bytes_of(ceil_div(t.elements(), g.work_group_size),
                                                mdh.compute_size_of(mdh.buffers[mdh.inputs[t.access].buffer].type)));
  }
  for (auto d = c.loop_order[0].rbegin(); d != c.loop_order[0].rend() && !mdh.dims[*d].combine.is_concat(); ++d)
    if (g.tiles_per_wg[*d] > 1) {
      g.innermost_reduction_tile_loop = *d;
      break;
    }
  if (g.innermost_reduction_tile_loop >= 0)
    for (int64_t u = std::min(kMaxUnrolledTiles, g.tiles_per_wg[g.innermost_reduction_tile_loop]); u > 1; --u)
      if (g.tiles_per_wg[g.innermost_reduction_tile_loop] % u == 0) {
        g.tile_loop_unroll = u;
        break;
      }
  // Edge tiles are pipelined through registers, not with two local tiles (DOUBLE_BUFFER local): configurations
  // tuned at such sizes before edges were pipelined were checked against the local memory of one tile.
  copies_fit = copies_fit && !(edges && c.double_buffer == DoubleBuffer::local);
  if (copies_fit) g.prefetch_dimension = g.innermost_reduction_tile_loop;
  if (const int d = g.innermost_reduction_tile_loop;
      d >= 0 && c.unroll_tiles == UnrollTiles::on && g.tile_loop_unroll > 1 &&
      c.work_group_ownership_of(d) == Ownership::strided && g.local_tile_fullness[d] == Fullness::Sometimes &&
      !(c.double_buffer != DoubleBuffer::off && g.prefetch_dimension == d))
    g.peeled_tile_loop = d;
  // Counted whenever DOUBLE_BUFFER is on and the copies are full, even where the loop order leaves no tile loop to
  // pipeline (the emitter then holds no prefetch registers): the memory constraints then read only the array
  // families and DOUBLE_BUFFER, not the loop order, a permutation whose d! values would join their group in the
  // search space. The "off" twin of such a configuration is the same kernel without the overestimate.
  if (copies_fit && c.double_buffer != DoubleBuffer::off)
    g.private_memory_bytes = saturating_add(g.private_memory_bytes, prefetch_bytes);
  // The second tile of every local cache (DOUBLE_BUFFER local), counted likewise.
  if (copies_fit && c.double_buffer == DoubleBuffer::local)
    for (const CachedTile& t : g.cached_tiles)
      if (t.layer == Layer::Local && t.memory == Memory::Local)
        g.local_memory_bytes = saturating_add(
            g.local_memory_bytes,
            bytes_of(t.allocated_elements(), mdh.compute_size_of(mdh.buffers[mdh.inputs[t.access].buffer].type)));

  // Partial results in local memory: every work-item's slots (MEM_RES[P]), the leaders' slots (MEM_RES[L]).
  const int p = static_cast<int>(Layer::Private), l = static_cast<int>(Layer::Local);
  const uint64_t slot_bytes = bytes_of(g.result_slots, g.result_bytes);
  const auto times = [](uint64_t bytes, int64_t count) { return saturating_mul(bytes, static_cast<uint64_t>(count)); };
  switch (c.result_memory[p]) {
    case Memory::Private:
      g.private_memory_bytes = saturating_add(g.private_memory_bytes, slot_bytes);
      g.stages_results = g.combines_work_items();
      if (g.stages_results)  // res_shared
        g.local_memory_bytes = saturating_add(g.local_memory_bytes, times(slot_bytes, g.work_group_size));
      break;
    case Memory::Local:
      g.local_memory_bytes = saturating_add(g.local_memory_bytes, times(slot_bytes, g.work_group_size));
      break;
    case Memory::Global:
      g.global_private_results_bytes = times(times(slot_bytes, g.work_group_size), g.work_groups);
      break;
    case Memory::None:
      break;
  }
  if (g.combines_work_items()) {
    switch (c.result_memory[l]) {
      case Memory::Private:
        g.private_memory_bytes = saturating_add(g.private_memory_bytes, slot_bytes);
        break;
      case Memory::Local:
        g.local_memory_bytes = saturating_add(g.local_memory_bytes, times(slot_bytes, g.concat_work_items));
        break;
      case Memory::Global:
        g.global_local_results_bytes = times(times(slot_bytes, g.concat_work_items), g.work_groups);
        break;
      case Memory::None:
        break;
    }
  }
  const bool atomic = g.combines_work_groups() && c.work_group_combine == WorkGroupCombine::atomic;
  if (g.combines_work_groups() && !atomic)
    g.partial_results_bytes = bytes_of(saturating_mul(g.reduction_work_groups, g.output_points), g.result_bytes);
  // WG_COMBINE = last or atomic: one count per work-group of the `++` dimensions. With last, the folding
  // work-group's work-items give each point of a tile as many shares as they can (up to the partial results per
  // point), the rest of them to further points at the same time; with atomic, each copies every WG_SIZE-th point.
  if (g.combines_work_groups() && c.work_group_combine != WorkGroupCombine::kernel) {
    int64_t tile_points = 1;
    for (int d : g.concat_dims) {
      g.concat_work_groups = saturating_mul(g.concat_work_groups, c.num_wg[d]);
      tile_points = saturating_mul(tile_points, std::min(c.local_tile_size[d], bound.dim_extents[d]));
    }
    g.work_group_count_bytes = bytes_of(g.concat_work_groups, sizeof(int32_t));
    g.local_memory_bytes = saturating_add<uint64_t>(g.local_memory_bytes, sizeof(int32_t));  // the folding flag
    if (atomic) {
      g.accumulator_bytes = bytes_of(g.output_points, g.result_bytes);
    } else {
      const int64_t most_shares =
          std::min(g.work_group_size / std::min(g.work_group_size, tile_points), g.reduction_work_groups);
      while (g.fold_shares <= most_shares / 2) g.fold_shares *= 2;
      g.fold_point_groups = g.work_group_size / g.fold_shares;
      if (g.fold_shares > 1)
        g.local_memory_bytes = saturating_add(g.local_memory_bytes, bytes_of(g.work_group_size, g.result_bytes));
    }
  }
  if (const int d = store_dimension(bound);
      d >= 0 && !g.combines_work_groups() && !g.concat_dims.empty() && g.concat_dims.back() == d) {
    g.store_run = c.ownership_of(d) == Ownership::strided ? c.strided_run_of(d) : c.private_tile_size[d];
  }
  return g;
}

bool moves_with(const BoundAccess& access, int d) {
  for (const BoundIndex& index : access.indices)
    if (index.coefficient[d] != 0) return true;
  return false;
}

bool private_copy_unguarded(const BoundMdh& bound, const KernelConfig& c, int a) {
  const BoundAccess& access = bound.inputs[a];
  if (c.input_memory[static_cast<int>(Layer::Local)][a] == Memory::None ||
      c.input_memory[static_cast<int>(Layer::Private)][a] != Memory::Private)
    return false;
  for (size_t d = 0; d < bound.dim_extents.size(); ++d) {
    if (!moves_with(access, static_cast<int>(d))) continue;
    for (const BoundIndex& index : access.indices)
      if (index.coefficient[d] < 0) return false;
    if (c.local_tile_size[d] % (c.num_wi[d] * c.private_tile_size[d]) != 0) return false;
  }
  return true;
}

bool indexed_plainly(const BoundAccess& access, int d) {
  for (const BoundIndex& index : access.indices) {
    if (index.coefficient[d] == 0) continue;
    if (index.coefficient[d] != 1 || (index.has_window && index.window_extent > 1)) return false;
    for (size_t other = 0; other < index.coefficient.size(); ++other)
      if (static_cast<int>(other) != d && index.coefficient[other] != 0) return false;
  }
  return true;
}

}  // namespace mdh
