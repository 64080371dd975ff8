// The default configuration: the plain layout of every md_hom, then the layout of its kind (codegen/defaults/).
#include "codegen/default_config.h"

#include <algorithm>
#include <limits>

#include "codegen/defaults/default_config_steps.h"
#include "codegen/parameter_families.h"
#include "codegen/tensor_core.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "support/saturating.h"

namespace mdh {

namespace defaults {

// The dimension with which an access's unit-stride (last) index moves, alone and by one element per index; -1 where
// none does (a scalar, a constant index, several dimensions or a stride).
int unit_stride_dimension(const BoundAccess& access) {
  if (access.indices.empty()) return -1;
  const BoundIndex& last = access.indices.back();
  int found = -1;
  for (size_t d = 0; d < last.coefficient.size(); ++d)
    if (last.coefficient[d] != 0) {
      if (found >= 0 || (last.coefficient[d] != 1 && last.coefficient[d] != -1)) return -1;
      found = static_cast<int>(d);
    }
  return found;
}

// Buffer dimension k of a cached copy innermost in its BUF_ORDER, the others in their order.
void place_innermost(std::vector<int>& order, int k) {
  order.erase(std::find(order.begin(), order.end(), k));
  order.push_back(k);
}

// The first buffer index of the access that moves with dimension d; -1 where none does.
int first_index_moving_with(const BoundAccess& access, int d) {
  for (size_t k = 0; k < access.indices.size(); ++k)
    if (access.indices[k].coefficient[d] != 0) return static_cast<int>(k);
  return -1;
}

uint64_t work_group_count(const KernelConfig& c) {
  uint64_t n = 1;
  for (int64_t g : c.num_wg) n = saturating_mul(n, static_cast<uint64_t>(g));
  return n;
}

// Each `++` dimension's private tile multiplies the partial results a work-item keeps: with 16 dimensions of
// extent 2 the shapes above gave it 2^14 of them, past the private memory, so the default was no valid
// configuration and `mdh generate` refused it. Halving the outermost private tiles first (then the reductions')
// until the configuration is valid leaves a default that was valid as it was.
void shrink_private_tiles_until_valid(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  TuningSpace space = make_tuning_space(bound, limits);
  space.full_ranges = true;  // validity, as check_config: the warp constraint is the search's, not the kernel's
  std::vector<int> order = mdh.concat_dims();
  for (int d : mdh.reduction_dims()) order.push_back(d);
  while (first_violation(space, assignment_from_config(space, c))) {
    auto it = std::find_if(order.begin(), order.end(), [&](int d) { return c.private_tile_size[d] > 1; });
    if (it == order.end()) return;  // not a matter of private tiles: check_config names what is wrong
    const int d = *it;
    c.private_tile_size[d] /= 2;
    if (!mdh.dims[d].combine.is_concat()) continue;  // a reduction's local tile does not follow its private tile
    c.local_tile_size[d] = std::min<int64_t>(bound.dim_extents[d], c.num_wi[d] * c.private_tile_size[d]);
    c.num_wg[d] = (bound.dim_extents[d] + c.local_tile_size[d] - 1) / c.local_tile_size[d];
  }
}

}  // namespace defaults

KernelConfig default_config(const BoundMdh& bound, const DeviceLimits& limits) {
  using namespace defaults;
  if (kernel_shape(bound) == KernelShape::tensor_core) return tensor_core_default(bound, limits);
  const Mdh& mdh = *bound.mdh;
  const int dims = static_cast<int>(mdh.dims.size());
  KernelConfig c = config_frame(bound);  // every family at its neutral value; the paper's families set below
  c.num_wg.assign(dims, 1);
  c.num_wi.assign(dims, 1);
  c.private_tile_size.assign(dims, 1);
  c.local_tile_size = bound.dim_extents;  // reductions: one local tile per work-group, done by one work-item
  for (int l = 0; l < 2; ++l) c.ocl_dim[l].assign(dims, 2);

  // The innermost two `++` dimensions get up to 16 work-items each (OpenCL dimensions 0 and 1, so that
  // neighbouring work-items touch neighbouring output elements); every `++` dimension is split into local tiles
  // of work-items x 2 elements spread over as many work-groups as needed. 2-D stencils take the stencil shape
  // (kStencilRowWorkItems), stencils of more dimensions on GPUs the volume stencil's (kVolumeStencilRowWorkItems),
  // where it still gives every compute unit a work-group: on small images the launch is too small for it
  // (docs/decisions.md).
  const std::vector<int> concat = mdh.concat_dims();
  bool windowed = false;
  for (const auto& input : mdh.inputs) windowed = windowed || input.has_window();
  const bool whole_warps = whole_warps_apply(bound, limits);
  enum class Shape { plain, plane_stencil, volume_stencil };
  auto shape_concat_dimensions = [&](Shape shape) {
    uint64_t work_group_size = 1, work_groups = 1;
    for (int n = static_cast<int>(concat.size()) - 1, rank = 0; n >= 0 && rank < 2; --n, ++rank) {
      const int d = concat[n];
      const int64_t desired =
          shape == Shape::plane_stencil    ? (rank == 0 ? kStencilRowWorkItems : kStencilColumnWorkItems)
          : shape == Shape::volume_stencil ? (rank == 0 ? kVolumeStencilRowWorkItems : kVolumeStencilColumnWorkItems)
                                           : 16;
      int64_t wi = std::min<int64_t>(desired, bound.dim_extents[d]);
      while (wi > 1 && (work_group_size * wi > limits.max_work_group_size ||
                        static_cast<uint64_t>(wi) > limits.max_work_item_sizes[rank]))
        wi /= 2;
      work_group_size *= wi;
      c.num_wi[d] = wi;
    }
    // Whole warps where the default space requires them (whole_warps_apply): the innermost dimension's work-items
    // double, then the next one's, within the extents and limits. PRL's single `++` dimension had 16 work-items,
    // MCC's 16 x 7 (Q = 7), half a warp idle in each work-group (or in one warp of four).
    auto double_to_whole_warps = [&] {
      for (int n = static_cast<int>(concat.size()) - 1, rank = 0; whole_warps && n >= 0 && rank < 2; --n, ++rank) {
        const int d = concat[n];
        int64_t& wi = c.num_wi[d];
        while (work_group_size % limits.warp_size != 0 && 2 * wi <= bound.dim_extents[d] &&
               2 * work_group_size <= limits.max_work_group_size &&
               static_cast<uint64_t>(2 * wi) <= limits.max_work_item_sizes[rank])
          wi *= 2, work_group_size *= 2;
      }
    };
    double_to_whole_warps();
    // Extents that are not powers of two can leave no doubling that reaches a whole warp (16 x 15 work-items for
    // extents 23 x 15): then those dimensions take the largest power of two within them, and double again.
    if (whole_warps && work_group_size % limits.warp_size != 0) {
      work_group_size = 1;
      for (int n = static_cast<int>(concat.size()) - 1, rank = 0; n >= 0 && rank < 2; --n, ++rank) {
        int64_t& wi = c.num_wi[concat[n]];
        while (wi & (wi - 1)) wi &= wi - 1;
        work_group_size *= static_cast<uint64_t>(wi);
      }
      double_to_whole_warps();
    }
    for (int n = static_cast<int>(concat.size()) - 1, rank = 0; n >= 0; --n, ++rank) {
      const int d = concat[n];
      const int ocl = std::min(rank, 2);
      const int64_t wi = c.num_wi[d];
      const int64_t elements = shape == Shape::plane_stencil ? (rank == 0 ? 1 : kStencilColumnElements)
                               : shape == Shape::volume_stencil
                                   ? (rank < 2 ? kVolumeStencilRowElements : kVolumeStencilOuterElements)
                                   : 2;
      c.private_tile_size[d] = std::min<int64_t>(elements, std::max<int64_t>(1, bound.dim_extents[d] / wi));
      c.local_tile_size[d] = std::min<int64_t>(bound.dim_extents[d], wi * c.private_tile_size[d]);
      c.num_wg[d] = (bound.dim_extents[d] + c.local_tile_size[d] - 1) / c.local_tile_size[d];
      work_groups = saturating_mul(work_groups, static_cast<uint64_t>(c.num_wg[d]));
      c.ocl_dim[0][d] = ocl;
      c.ocl_dim[1][d] = ocl;
    }
    return work_groups;
  };
  const bool stencil = windowed && mdh.reduction_dims().empty() && concat.size() >= 2;
  const Shape stencil_shape = !stencil                        ? Shape::plain
                              : concat.size() == 2            ? Shape::plane_stencil
                              : limits.local_memory_dedicated ? Shape::volume_stencil
                                                              : Shape::plain;
  if (stencil_shape == Shape::plain || shape_concat_dimensions(stencil_shape) < limits.compute_units)
    shape_concat_dimensions(Shape::plain);
  // The splits of all long reductions share one cap of 1024 work-groups (1024 each made 2^190 of them for 19
  // long reductions), lowered so that their partial results, one per output point each, fit the largest
  // allocation and the kernel's int indices.
  const int64_t points = bound.output_points();
  const int64_t result_bytes = static_cast<int64_t>(mdh.compute_size_of(mdh.result_type()));
  const int64_t most_splits = std::min<int64_t>(
      {1024, std::numeric_limits<int32_t>::max() / points,
       static_cast<int64_t>(std::min<uint64_t>(limits.max_alloc_bytes, INT64_MAX) / result_bytes) / points});
  int64_t split_work_groups = 1;  // of all long reductions together
  for (int d : mdh.reduction_dims()) {
    c.private_tile_size[d] = std::min<int64_t>(4, bound.dim_extents[d]);
    // A long reduction is split over work-groups (one work-item each; a second kernel combines the partial
    // results in order): one work-item folding 2^24 floats in a row loses most of its precision, and all of the
    // device's parallelism when there is a single output point (DOT).
    const int64_t extent = bound.dim_extents[d];
    if (extent > kLongReduction && split_work_groups * 2 <= most_splits) {
      c.num_wg[d] =
          std::min<int64_t>(most_splits / split_work_groups, (extent + kReductionChunk - 1) / kReductionChunk);
      split_work_groups *= c.num_wg[d];
      c.local_tile_size[d] = (extent + c.num_wg[d] - 1) / c.num_wg[d];
    }
  }

  // No caching, identity orders, partial results in private memory: config_frame's neutral values.
  c.result_memory = {Memory::Global, Memory::Private, Memory::Private};
  c.combine_layer = Layer::Private;
  // Where most bytes stream along one long reduction dimension with a built-in operator and are read for few output
  // points (GEMV, DOT), work-items share it; a non-commutative user operator keeps one work-item per reduction (its
  // ordered fold).
  const std::vector<int> reductions = mdh.reduction_dims();
  const int contiguous = most_read_contiguous_dimension(bound);
  if (!limits.local_memory_dedicated && tile_for_vectors(bound, limits, c)) {
    // A CPU: register tiles in vectors, ahead of the shared reduction (docs/decisions.md).
  } else if (reductions.size() == 1 && contiguous == reductions[0] && mdh.dims[contiguous].combine.is_commutative() &&
             bound.dim_extents[contiguous] >= kSharedReductionMinimum &&
             reuse_of_streamed_input(bound, contiguous) < kRegisterTileElements) {
    KernelConfig shared = c;
    share_reduction(bound, limits, contiguous, shared);
    try {
      check_config(bound, shared, limits);
      c = shared;
    } catch (const UserError&) {
      // A device too small for the shared layout (local memory, work-group size) keeps the layout above.
    }
  } else if (limits.local_memory_dedicated && !reductions.empty()) {
    const int split = reduction_to_split_for_small_output(bound, limits);
    if (split < 0 || !share_reduction_per_point(bound, limits, split, c)) tile_for_reuse(bound, limits, c);
    if (split >= 0) split_reduction_over_work_groups(bound, limits, split, c);
  }
  // On CPUs mdh's own log, which the compiler inlines (families/scalar_code.cpp); INLINE_MATH exists only where
  // user code calls log.
  if (!limits.local_memory_dedicated && find_family("INLINE_MATH")->has_member(bound, 0))
    set_label(c, "INLINE_MATH", "mdh");
  // And f with a loop inlined into the loop nest, its loops unrolled (families/scalar_code.cpp).
  if (!limits.local_memory_dedicated && find_family("F_INLINE")->has_member(bound, 0))
    set_label(c, "F_INLINE", "unrolled");
  // Reductions last in the work-group loop nest: the space requires it (LOOP_ORDER_G in families/loop_order.cpp).
  std::stable_partition(c.loop_order[0].begin(), c.loop_order[0].end(),
                        [&](int d) { return mdh.dims[d].combine.is_concat(); });
  shrink_private_tiles_until_valid(bound, limits, c);
  if (limits.local_memory_dedicated) {
    copy_local_caches_in_vectors(bound, c);
    const TunableGeometry g = tunable_geometry(bound, c);
    store_in_vectors(bound, g, c);
    unroll_short_loops(g, c);
  }
  // Edge tiles computed whole where that is harmless: guarded code for them raised GEMM's registers into spills on
  // NVIDIA and made 1000^3 3.8x slower (families/edge_points.cpp). Set last, where the tiles are final: without edge
  // tiles it applies to, the value is the guarded one (the same kernel), as the space holds it.
  if (find_family("EDGE_POINTS")->has_member(bound, 0)) set_label(c, "EDGE_POINTS", "computed");
  reset_values_without_effect(bound, c);
  check_config(bound, c, limits);
  return c;
}

}  // namespace mdh
