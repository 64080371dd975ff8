// The numbers a configuration implies for the tunable kernel: tile counts, work-item shares, cached tile extents,
// OpenCL NDRange, local memory and scratch use. Computed in one place so that the tuning space (local memory
// constraint) and the emitter (array sizes, launch) can never disagree.
//
// Decomposition of dimension d with extent N (see codegen/DESIGN.md, "Decomposition"):
//   local tiles:  N is cut into ceil(N / LT_SIZE) tiles of LT_SIZE consecutive indices (the last may be short);
//                 work-group g takes the contiguous block of tiles [g*T, min((g+1)*T, tiles)), T = ceil(tiles/NUM_WG).
//   private tiles: a local tile is processed in steps of NUM_WI*PT_SIZE indices; in step s work-item w owns the
//                 PT_SIZE consecutive indices from s*NUM_WI*PT_SIZE + w*PT_SIZE (clipped to the tile).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codegen/kernel_config.h"

namespace mdh {

/// One input tile cached by the kernel.
struct CachedTile {
  Layer layer = Layer::Local;  // Local: per local tile, shared by the work-group; Private: per private tile
  int access = 0;              // input access index
  Memory memory = Memory::Local;
  std::vector<int64_t> extents;  // per buffer dimension (buffer order): the footprint of a full tile, halo included
  std::vector<int> dim_order;    // BUF_ORDER: buffer dimensions, outermost first, in the cached copy
  int64_t elements() const;      // of one copy
  int64_t copies = 1;            // work-items holding a copy in this memory (private tiles cached in local memory)
  // LOCAL_PAD: unused elements after each innermost row (the last of dim_order); local caches in local memory only.
  int64_t row_pad = 0;
  int64_t allocated_elements() const;  // of one copy: elements() with every row padded
};

/// Whether the tiles of one dimension are full, over every tile that some work-group visits. Sizes are bound when
/// the kernel is generated, so the emitter knows where guards are needed: code for full tiles has none.
enum class Fullness {
  Always,     // every one is full: emit the unguarded code only
  Sometimes,  // some are: decide once per tile (a work-group-uniform condition) between unguarded and guarded code
  Never,      // none is: emit the guarded code only
};

/// The most tiles UNROLL_TILES puts into one iteration of a tile loop (copies of its body).
inline constexpr int64_t kMaxUnrolledTiles = 8;

struct TunableGeometry {
  std::vector<int> concat_dims, reduction_dims;
  std::vector<int64_t> local_tiles;    // per dimension: ceil(N / LT_SIZE)
  std::vector<int64_t> tiles_per_wg;   // per dimension: ceil(local_tiles / NUM_WG)
  std::vector<int64_t> private_steps;  // per dimension: ceil(LT_SIZE / (NUM_WI * PT_SIZE))
  // Per dimension. A local tile is full when it holds LT_SIZE indices: Always when LT_SIZE divides N and NUM_WG
  // divides the tile count (else the work-groups' blocks run past the last tile: empty tiles); Never when N < LT.
  std::vector<Fullness> local_tile_fullness;
  // A private step (the NUM_WI*PT_SIZE indices the work-items cover together) is full when every work-item's private
  // tile in it is: Always when local tiles always are and the step divides LT_SIZE; Never when the step is longer
  // than every tile (NUM_WI*PT_SIZE > min(LT_SIZE, N)).
  std::vector<Fullness> step_fullness;
  // All PRIVATE_STEPS steps of a local tile full, so that every result slot of a work-item lies in the tile (the
  // result write-back): Always as step_fullness; Never when the step does not divide LT_SIZE or N < LT_SIZE.
  std::vector<Fullness> tile_slots_fullness;
  // Whether a local tile's fullness decides its private steps' (one test per tile instead of one per step): some
  // dimension's steps are sometimes full, each such step divides LT_SIZE (a full tile then holds full steps only) and
  // its local tiles are sometimes full, no dimension's steps are never full, and no work-item combine after each step
  // (CMB_RES = P with shared reductions) puts barriers in the step loops, which must stay outside branches.
  bool tiles_decide_steps = false;
  // Per dimension: whether the steps of the dimension's edge tiles run the full tiles' code, computing f also on the
  // points past the extent, whose results are never stored (the write-back tests each point). With EDGE_POINTS
  // `computed` (which exists only where f's arithmetic on any float value is harmless), along a `++` dimension whose
  // steps tiles decide and every input that moves with it is read through a local cache (allocated for the full
  // tile, so every read stays inside it). An edge work-group then runs the interior's code; only a reduction's short
  // last tile still runs guarded code.
  std::vector<bool> edge_points_computed;
  int64_t result_slots = 1;                     // per work-item: product over `++` dims of private_steps * PT_SIZE
  int64_t work_group_size = 1;                  // product of NUM_WI
  int64_t concat_work_items = 1;                // product of NUM_WI over `++` dimensions
  int64_t reduction_work_items = 1;             // product of NUM_WI over reduction dimensions (W_R)
  int64_t reduction_work_groups = 1;            // product of NUM_WG over reduction dimensions (G_R)
  int64_t work_groups = 1;                      // product of NUM_WG
  int64_t output_points = 1;                    // product of the `++` extents
  std::array<uint64_t, 3> num_groups{1, 1, 1};  // per OpenCL dimension
  std::array<uint64_t, 3> local_size{1, 1, 1};  // per OpenCL dimension
  int work_dims = 1;
  std::vector<CachedTile> cached_tiles;
  // The innermost reduction tile loop (LOOP_ORDER_G) with more than one tile per work-group, every reduction tile
  // loop inside it having one; -1 where there is none. UNROLL_TILES unrolls it; DOUBLE_BUFFER pipelines it.
  int innermost_reduction_tile_loop = -1;
  // The tiles of that loop that UNROLL_TILES makes one iteration: the largest divisor of its TILES_PER_WG up to
  // kMaxUnrolledTiles (1 without such a loop).
  int64_t tile_loop_unroll = 1;
  // The reduction dimension whose tile loop DOUBLE_BUFFER pipelines, -1 where it cannot: the innermost reduction
  // tile loop, where at least one input is cached in local memory and every local cache is full in every tile, or
  // sometimes full along dimensions that its indices grow with (edge tiles load the next tile guarded, zero past the
  // tile's end; not with DOUBLE_BUFFER local). Each work-item holds ceil(SIZE / WG_SIZE) elements of the next tile
  // per cache. Whatever DOUBLE_BUFFER says otherwise.
  int prefetch_dimension = -1;
  // The tile loop that UNROLL_TILES unrolls where only its last tile can be short or empty: WG_OWNERSHIP strided and
  // tiles sometimes full along it. Work-group g's tile t is local tile t*NUM_WG + g, and for t < TILES_PER_WG - 1
  // that is below (TILES_PER_WG - 1)*NUM_WG <= local_tiles - 1: never the dimension's last tile, the only one that
  // can be short. The emitter runs every other tile unguarded (tunable_geometry(..., full_tiles_along)) and tests
  // the last one alone. -1 where there is none, or where DOUBLE_BUFFER pipelines that loop.
  int peeled_tile_loop = -1;
  uint64_t local_memory_bytes = 0;            // every __local array of the kernel, exactly
  uint64_t private_memory_bytes = 0;          // every private array of one work-item
  uint64_t partial_results_bytes = 0;         // scratch: G_R partial results per output point (0: not needed)
  uint64_t global_private_results_bytes = 0;  // scratch for MEM_RES[P] = global (0: not used)
  uint64_t global_local_results_bytes = 0;    // scratch for MEM_RES[L] = global (0: not used)
  size_t result_bytes = 0;                    // sizeof the result type
  // WG_COMBINE = last with work-groups combining (folds_in_last_group()): the folding work-group's work-items split
  // into FOLD_POINT_GROUPS groups of FOLD_SHARES (a power of two) work-items; each group folds one output point of
  // the tiles at a time, each share a stride of the partial results, and a tree in local memory combines the shares.
  int64_t fold_shares = 1;
  int64_t fold_point_groups = 1;
  int64_t concat_work_groups = 1;  // product of NUM_WG over `++` dimensions: one count each
  // The consecutive results a work-item writes along the output's unit-stride dimension (store_dimension), its
  // private tile there or, with strided ownership, its strided run, where STORE_WIDTH can apply: the results go
  // through the output view (not as partials of a work-group) and that dimension is the innermost of the result
  // slots. 0 where it cannot.
  int64_t store_run = 0;
  uint64_t work_group_count_bytes = 0;  // scratch: the counts (0: not needed)
  uint64_t accumulator_bytes = 0;       // scratch: WG_COMBINE atomic's accumulators, one per output point (0: not used)
  // MEM_RES_P private where work-items share a reduction: each combine exchanges the partial results through
  // res_shared, one slot per work-item in local memory, into which every work-item first copies its own registers.
  bool stages_results = false;
  bool combines_work_items() const { return reduction_work_items > 1; }
  bool combines_work_groups() const { return reduction_work_groups > 1; }
  // Work-item 0 alone stores the work-group's results: work-items share the reduction and none is spread over `++`
  // points, so the leader of the one point group is work-item 0.
  bool only_first_work_item_stores() const { return combines_work_items() && concat_work_items == 1; }
  // WG_COMBINE last or atomic: the last work-group to count itself in finishes the reduction.
  bool folds_in_last_group() const { return work_group_count_bytes > 0; }
  // WG_COMBINE atomic: the work-groups add their partial results into the accumulators, which the last one copies.
  bool accumulates_atomically() const { return accumulator_bytes > 0; }
};

/// Assumes a config of the right shape (check_config_shape). `full_tiles_along` (a dimension, -1 for none): the
/// geometry of the tiles along it that are known to be full (local tiles Always there), whatever the sizes say: the
/// tiles before the last one of TunableGeometry::peeled_tile_loop.
TunableGeometry tunable_geometry(const BoundMdh& bound, const KernelConfig& config, int full_tiles_along = -1);

/// Whether some buffer index of the access moves with dimension d.
bool moves_with(const BoundAccess& access, int d);
/// Whether the private cache of input access `a`, filled from its local cache, copies a private tile's whole box in
/// every private step, full or not, without a guard: along every dimension that the access moves with, the index
/// grows with it (the local cache's box starts at the tile's begin, whatever its end) and the private steps divide
/// the local tile, so every work-item's box lies inside the local cache. Elements past an edge tile's end are read
/// but never used. The dimensions whose steps are not always full then rely on LT_SIZE % STEP == 0. Only for a
/// private cache in private memory (registers): the kernels that NVIDIA's ptxas miscompiled (tests/repro/
/// nvidia-ptxas) held theirs in local memory or had steps that do not divide their tiles, so they keep the guarded
/// copy and its workaround.
bool private_copy_unguarded(const BoundMdh& bound, const KernelConfig& config, int a);
/// Whether every buffer index of the access that moves with dimension d is d itself plus a constant (no other
/// dimension, no window): a private cache then holds one element per owned index of d, whatever the ownership.
bool indexed_plainly(const BoundAccess& access, int d);

}  // namespace mdh
