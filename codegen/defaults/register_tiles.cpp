// Default configuration on GPUs: register tiles whose shared inputs are cached in local memory, fed by vectors.
#include <algorithm>
#include <set>

#include "codegen/defaults/default_config_steps.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "support/saturating.h"

namespace mdh::defaults {

// Rows of a local cache stored transposed (its innermost dimension is not the buffer's unit-stride one) are
// kTransposedCacheRowPad elements longer (LOCAL_PAD): the copy reads the buffer along its unit stride and its
// neighbouring work-items store down a column of the cache, a row apart, into one bank where a row is a multiple of
// the 32 banks. Caches stored as read gain nothing from pads, or lose (docs/decisions.md).
constexpr int64_t kTransposedCacheRowPad = 2;

void pad_transposed_local_caches(const BoundMdh& bound, KernelConfig& c) {
  const int local = static_cast<int>(Layer::Local);
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const std::vector<int>& order = c.cache_dim_order[local][a];
    if (c.input_memory[local][a] != Memory::Local || order.size() < 2) continue;
    if (order.back() == static_cast<int>(order.size()) - 1) continue;  // stored as read
    member_slot(c.local_pad, static_cast<int>(a)) = kTransposedCacheRowPad;
  }
}

// The register tiles of the reuse layout, fed by vectors: along each strided dimension a work-item owns runs of up
// to kVectorRun elements (STRIDED_RUN), and each locally cached input indexed plainly along the strided
// dimensions it moves with gets a private cache, filled from its local cache run by run with vectors of a run's
// length (VECTOR_WIDTH): the local cache keeps the buffer dimension of a run innermost (the fastest dimension's
// where it has one), transposing it where needed. A work-item then reads two 128-bit vectors per input and
// reduction step instead of eight words (docs/decisions.md).
constexpr int64_t kVectorRun = 4;

void feed_register_tiles_with_vectors(const BoundMdh& bound, const std::vector<int>& tiled, int fastest,
                                      KernelConfig& t) {
  for (int d : tiled)
    if (t.ownership_of(d) == Ownership::strided)
      while (t.strided_run[d] * 2 <= kVectorRun && t.private_tile_size[d] >= 4 * t.strided_run[d])
        t.strided_run[d] *= 2;
  const int local = static_cast<int>(Layer::Local), priv = static_cast<int>(Layer::Private);
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const BoundAccess& access = bound.inputs[a];
    if (t.input_memory[local][a] == Memory::None) continue;
    int run_dimension = -1;  // the strided dimension whose runs the private copy reads as vectors
    bool plain = true;
    for (int d : tiled) {
      if (!moves_with(access, d) || t.ownership_of(d) != Ownership::strided) continue;
      plain = plain && indexed_plainly(access, d);
      if (run_dimension < 0 || d == fastest ||
          (run_dimension != fastest && t.strided_run_of(d) > t.strided_run_of(run_dimension)))
        run_dimension = d;
    }
    if (!plain || run_dimension < 0 || t.strided_run_of(run_dimension) < 2) continue;
    place_innermost(t.cache_dim_order[local][a], first_index_moving_with(access, run_dimension));
    t.input_memory[priv][a] = Memory::Private;
    if (t.vector_width.size() <= a) t.vector_width.resize(a + 1, 1);
    // Half and bfloat16 inputs have no VECTOR_WIDTH (codegen/families/vector_width.cpp): their copies move elements.
    const ElementType& type = bound.mdh->buffers[access.buffer].type;
    if (type.is_struct() || !is_storage_only(type.scalar)) t.vector_width[a] = t.strided_run_of(run_dimension);
  }
}

// Each of the work-group's `++` points a locally cached input's local tile serves: the product of the local tiles
// along the `++` dimensions it does not read.
int64_t input_reuse(const BoundMdh& bound, const KernelConfig& c, const BoundAccess& access) {
  int64_t reuse = 1;
  for (int d : bound.mdh->concat_dims())
    if (!moves_with(access, d)) reuse *= c.local_tile_size[d];
  return reuse;
}

// kMinimumInputReuse above: raises the least reused locally cached input of `t` where it is reused less often.
void raise_least_input_reuse(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& t) {
  const Mdh& mdh = *bound.mdh;
  const int local = static_cast<int>(Layer::Local);
  std::vector<int> cached;
  for (size_t a = 0; a < bound.inputs.size(); ++a)
    if (t.input_memory[local][a] == Memory::Local) cached.push_back(static_cast<int>(a));
  int least = -1;
  for (int a : cached)
    if (least < 0 || input_reuse(bound, t, bound.inputs[a]) < input_reuse(bound, t, bound.inputs[least])) least = a;
  if (least < 0 || input_reuse(bound, t, bound.inputs[least]) >= kMinimumInputReuse) return;
  const BoundAccess& starved = bound.inputs[least];
  auto set_tile = [&](KernelConfig& k, int d, int64_t elements) {
    k.private_tile_size[d] = elements;
    k.local_tile_size[d] = elements;
    k.num_wg[d] = (bound.dim_extents[d] + elements - 1) / elements;
  };
  auto others_reused = [&](const KernelConfig& k) {
    for (int a : cached)
      if (a != least && input_reuse(bound, k, bound.inputs[a]) < kMinimumInputReuse) return false;
    return true;
  };
  const std::vector<int> concat = mdh.concat_dims();
  for (int d : concat) {
    if (t.num_wi[d] != 1 || !moves_with(starved, d) || t.private_tile_size[d] == 1) continue;
    KernelConfig k = t;
    set_tile(k, d, 1);
    if (others_reused(k)) t = k;
  }
  // The dimensions to grow: no work-items, not read by the starved input; another cached input's unit-stride
  // dimension first, then from the innermost.
  std::vector<int> grow;
  for (int a : cached) {
    const int d = a == least ? -1 : unit_stride_dimension(bound.inputs[a]);
    if (d >= 0 && mdh.dims[d].combine.is_concat() && t.num_wi[d] == 1 && !moves_with(starved, d) &&
        std::find(grow.begin(), grow.end(), d) == grow.end())
      grow.push_back(d);
  }
  for (auto d = concat.rbegin(); d != concat.rend(); ++d)
    if (t.num_wi[*d] == 1 && !moves_with(starved, *d) && std::find(grow.begin(), grow.end(), *d) == grow.end())
      grow.push_back(*d);
  for (int d : grow)
    while (input_reuse(bound, t, starved) < kMinimumInputReuse && 2 * t.private_tile_size[d] <= bound.dim_extents[d]) {
      KernelConfig k = t;
      set_tile(k, d, 2 * t.private_tile_size[d]);
      if (work_group_count(k) < limits.compute_units) return;
      t = k;
    }
}

// The reuse layout described above; false (and `c` unchanged) where no input is shared or the result is invalid.
bool tile_for_reuse(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  auto shared_along = [&](int d) {
    if (c.num_wi[d] < 2) return false;
    for (const BoundAccess& access : bound.inputs)
      if (!moves_with(access, d)) return true;
    return false;
  };
  std::vector<int> tiled;
  int two_dimensional = 0;
  for (int d : mdh.concat_dims()) {
    if (shared_along(d)) tiled.push_back(d);
    if (c.num_wi[d] > 1) ++two_dimensional;
  }
  // A work-group with work-items along one dimension only shares too little to pay for the copies and barriers
  // (PRL: docs/decisions.md).
  if (tiled.empty() || two_dimensional < 2) return false;
  KernelConfig t = c;
  // Up to `elements` per work-item along d, and the local tiles and work-groups that follow from them.
  auto set_private_tile = [&](int d, int64_t elements) {
    t.private_tile_size[d] = std::max<int64_t>(1, std::min(elements, bound.dim_extents[d] / t.num_wi[d]));
    t.local_tile_size[d] = std::min(bound.dim_extents[d], t.num_wi[d] * t.private_tile_size[d]);
    t.num_wg[d] = (bound.dim_extents[d] + t.local_tile_size[d] - 1) / t.local_tile_size[d];
  };
  // Work-items that divide the extent where halving them does and they leave much of it idle (E = 24 in CCSD(T)
  // gdab-efgc: 16 work-items leave a half-empty second tile; kMostIdleShare), not below kDividingWorkItemsFloor.
  for (int d : mdh.concat_dims()) {
    const int64_t extent = bound.dim_extents[d], wi = t.num_wi[d];
    const int64_t idle = (extent + wi - 1) / wi * wi - extent;
    if (wi < 2 * kDividingWorkItemsFloor || extent % wi == 0 || extent % (wi / 2) != 0 ||
        idle * kMostIdleShare <= extent)
      continue;
    t.num_wi[d] /= 2;
    set_private_tile(d, t.private_tile_size[d]);
  }
  for (int d : tiled) set_private_tile(d, kRegisterTileElements);
  // Enough parallelism: halve the largest register tile (the inner dimension first) while fewer than
  // kWorkItemsPerComputeUnit work-items or half as many work-groups as compute units remain, down to the plain
  // default's 2 elements: a large tile that leaves the device few work-items runs many times slower
  // (docs/decisions.md).
  auto work_items = [&] {
    uint64_t n = 1;
    for (int d : mdh.concat_dims()) n = saturating_mul(n, static_cast<uint64_t>(t.num_wg[d] * t.num_wi[d]));
    return n;
  };
  while (work_group_count(t) * 2 < limits.compute_units ||
         work_items() < kWorkItemsPerComputeUnit * limits.compute_units) {
    int largest = -1;
    for (auto d = tiled.rbegin(); d != tiled.rend(); ++d)
      if (t.private_tile_size[*d] > 2 && (largest < 0 || t.private_tile_size[*d] > t.private_tile_size[largest]))
        largest = *d;
    if (largest < 0) break;
    set_private_tile(largest, t.private_tile_size[largest] / 2);
  }
  for (int d : tiled)
    if (t.private_tile_size[d] >= 2) t.ownership[d] = Ownership::strided;
  // Cache what several work-items read; in the copy, the buffer dimension indexed by the work-items' fastest
  // dimension (OpenCL dimension 0) innermost, so that a warp reads consecutive words (no bank conflicts).
  int fastest = -1;
  for (int d : mdh.concat_dims())
    if (t.ocl_dim[1][d] == 0 && t.num_wi[d] > 1) fastest = d;
  const int local = static_cast<int>(Layer::Local);
  bool cached = false;
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const BoundAccess& access = bound.inputs[a];
    bool shared = false;
    for (int d : tiled) shared = shared || !moves_with(access, d);
    // An input that neighbouring work-items read at a stride (the fastest dimension moves an outer buffer index,
    // not the innermost) is cached too: the copy reads it row by row, coalesced, and stores it transposed.
    const bool strided_reads = fastest >= 0 && !access.indices.empty() && moves_with(access, fastest) &&
                               access.indices.back().coefficient[fastest] == 0;
    if (!shared && !strided_reads) continue;
    t.input_memory[local][a] = Memory::Local;
    cached = true;
    std::vector<int>& order = t.cache_dim_order[local][a];
    if (fastest >= 0)
      for (size_t k = 0; k + 1 < access.indices.size(); ++k)
        if (access.indices[k].coefficient[fastest] != 0 && access.indices.back().coefficient[fastest] == 0) {
          place_innermost(order, static_cast<int>(k));
          break;
        }
  }
  if (!cached) return false;
  KernelConfig unraised = t;
  raise_least_input_reuse(bound, limits, t);
  // Reductions in cached tiles of up to kCachedReductionTile indices (a divisor of the extent where one is not much
  // shorter, kDividingReductionTileShare, so that no tile is short; else the last tile is short), private tiles of up
  // to 4 dividing them; shorter tiles where two work-groups' caches would not fit a compute unit's local memory (one
  // loads while the other computes). Double buffering where a reduction tile loop can prefetch. False where no such
  // layout is valid.
  auto finish = [&](KernelConfig& f, int64_t longest) {
    pad_transposed_local_caches(bound, f);
    auto set_reduction_tiles = [&](int64_t longest) {
      for (int r : mdh.reduction_dims()) {
        if (f.num_wg[r] > 1) continue;  // a long reduction split over work-groups keeps its split
        const int64_t extent = bound.dim_extents[r];
        const int64_t full = std::min(longest, extent);
        int64_t tile = full;
        while (tile * kDividingReductionTileShare[1] > full * kDividingReductionTileShare[0] && extent % tile != 0)
          --tile;
        if (extent % tile != 0) tile = full;
        f.local_tile_size[r] = tile;
        // Private steps that divide the tile: a tile's last step is then full, and edge steps copy whole private
        // tiles (private_copy_unguarded), as full ones do.
        int64_t step = std::min<int64_t>(4, tile);
        while (step > 1 && tile % (step * f.num_wi[r]) != 0) --step;
        f.private_tile_size[r] = step;
      }
    };
    set_reduction_tiles(longest);
    while (tunable_geometry(bound, f).local_memory_bytes * 2 > limits.local_mem_bytes && longest > 1)
      set_reduction_tiles(longest /= 2);
    if (tunable_geometry(bound, f).local_memory_bytes * 2 > limits.local_mem_bytes) return false;
    if (tunable_geometry(bound, f).prefetch_dimension >= 0) f.double_buffer = DoubleBuffer::on;
    try {
      check_config(bound, f, limits);
    } catch (const UserError&) {
      return false;  // e.g. the register budget
    }
    return true;
  };
  // Register tiles fed by vectors where they fit the registers, else fed element by element; the tiles of an
  // input's raised reuse where one of those fits, else the tiles as they were. The raised tiles keep the reduction
  // tiles that the tiles as they were got: the local memory they free must not lengthen them (longer reduction tiles
  // leave fewer work-groups per compute unit: docs/decisions.md).
  auto finish_shape = [&](const KernelConfig& shape, int64_t longest, KernelConfig& finished) {
    KernelConfig vectors = shape;
    feed_register_tiles_with_vectors(bound, tiled, fastest, vectors);
    if (finish(vectors, longest)) {
      finished = vectors;
      return true;
    }
    finished = shape;
    return finish(finished, longest);
  };
  KernelConfig as_they_were;
  const bool unraised_fits = finish_shape(unraised, kCachedReductionTile, as_they_were);
  int64_t longest_reduction_tile = kCachedReductionTile;
  if (unraised_fits) {
    longest_reduction_tile = 1;
    for (int r : mdh.reduction_dims())
      if (as_they_were.num_wg[r] == 1)  // a reduction split over work-groups keeps its split either way
        longest_reduction_tile = std::max(longest_reduction_tile, as_they_were.local_tile_size[r]);
  }
  KernelConfig raised;
  if (!(t == unraised) && finish_shape(t, longest_reduction_tile, raised)) {
    c = raised;
    return true;
  }
  if (!unraised_fits) return false;
  c = as_they_were;
  return true;
}

// On GPUs, the loops over a work-item's private steps within a local tile are unrolled (UNROLL_STEPS) where there
// are at most kMaxUnrolledSteps of them: few steps gain, many (a long f repeated) lose (docs/decisions.md).
constexpr int64_t kMaxUnrolledSteps = 16;

// On GPUs, a work-item's results go out kGpuVectorBytes at a time where it owns runs of consecutive ones along the
// output's unit-stride dimension (STORE_WIDTH: the widest vector dividing the run, TunableGeometry::store_run, at
// most 16 bytes; docs/decisions.md).
void store_in_vectors(const BoundMdh& bound, const TunableGeometry& g, KernelConfig& c) {
  if (g.store_run <= 0 || find_family("STORE_WIDTH")->members(bound).empty()) return;
  const Mdh& mdh = *bound.mdh;
  const size_t bytes = mdh.size_of(mdh.buffers[bound.output.buffer].type);
  int64_t width = static_cast<int64_t>(kGpuVectorBytes / std::max<size_t>(bytes, 1));
  while (width > 1 && g.store_run % width != 0) width /= 2;
  c.store_width = std::max<int64_t>(width, 1);
}

// On GPUs, short loops are unrolled. The loops over a work-item's private steps where there are at most
// kMaxUnrolledSteps of them (UNROLL_STEPS, above). The innermost reduction tile loop where UNROLL_TILES unrolls it
// completely (at most kMaxUnrolledTiles tiles per work-group); unrolling a long tile loop by a factor costs time
// (docs/decisions.md).
void unroll_short_loops(const TunableGeometry& g, KernelConfig& c) {
  int64_t steps = 1;
  for (int64_t s : g.private_steps) steps *= s;
  if (steps <= kMaxUnrolledSteps) c.unroll_steps = UnrollSteps::on;
  const int d = g.innermost_reduction_tile_loop;
  if (d >= 0 && g.tile_loop_unroll == g.tiles_per_wg[d]) c.unroll_tiles = UnrollTiles::on;
}

}  // namespace mdh::defaults
