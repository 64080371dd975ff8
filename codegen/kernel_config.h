// One configuration of the tunable kernel (PACT'19 §V, Table I) for one md_hom and size binding: the values the
// tuner sets. A typed struct, read from and written to JSON (`--config cfg.json`). Whether a configuration is
// valid for a device is decided by the constraints of the parameter families (codegen/parameter_families.h).
//
// Adding a parameter family: its module under codegen/families/ (with its MDH_FAMILY_MODULE line), and its
// tests (codegen/README.md). Its values live in family_values unless the family has a typed field here: the tile
// geometry and the families whose code runs through the emitter's loop nest do (codegen/DESIGN.md, "Family modules").
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/device_limits.h"
#include "mdh/bind.h"

namespace mdh {

/// The three layers of the kernel: work-groups over local tiles (G), work-items over private tiles (L), one
/// work-item's private tile element by element (P).
enum class Layer { Global = 0, Local = 1, Private = 2 };
inline constexpr int kLayerCount = 3;
const char* layer_name(Layer layer);  // "G", "L", "P"

/// A memory region: where an input tile is cached (None = read through from the user's buffer) or where partial
/// results live.
enum class Memory { None, Private, Local, Global };
const char* memory_name(Memory memory);  // "none", "private", "local", "global"

/// OWNERSHIP's values (see KernelConfig::ownership).
enum class Ownership { block, strided };
/// CMB_WI's values (see KernelConfig::work_item_combine).
enum class WorkItemCombine { serial, tree, shuffle };
/// DOUBLE_BUFFER's values (see KernelConfig::double_buffer).
enum class DoubleBuffer { off, on, local };
/// UNROLL_STEPS' values (see KernelConfig::unroll_steps).
enum class UnrollSteps { off, on };
/// UNROLL_TILES' values (see KernelConfig::unroll_tiles).
enum class UnrollTiles { off, on };
/// WG_COMBINE's values (see KernelConfig::work_group_combine).
enum class WorkGroupCombine { kernel, last, atomic };
/// Where WG_COMBINE can exist: the md_hom reduces. (At a size whose reductions have a single element the family is
/// left out: codegen/families/work_group_combine.cpp.)
inline bool work_group_combine_applies(const Mdh& mdh) {
  return !mdh.reduction_dims().empty();
}
/// Where WG_COMBINE may be `atomic`: every reduction dimension adds, and the result is a float, int or uint, which
/// every OpenCL device adds atomically (int and uint with atomic_add, float through atomic_cmpxchg on its bits or,
/// under NVIDIA's driver, red.global.add.f32) into an accumulator that starts at zero bytes (the identity of +).
bool work_group_combine_atomic_applies(const Mdh& mdh);

struct KernelConfig {
  // Per dimension of the md_hom, in dimension order.
  std::vector<int64_t> num_wg;             // NUM_WG: work-groups
  std::vector<int64_t> num_wi;             // NUM_WI: work-items per work-group
  std::vector<int64_t> local_tile_size;    // LT_SIZE
  std::vector<int64_t> private_tile_size;  // PT_SIZE
  // OWNERSHIP: which elements of a private step a work-item owns along the dimension: a consecutive block of
  // PT_SIZE (block: w*PT_SIZE .. w*PT_SIZE + PT_SIZE - 1), or every NUM_WI-th (strided: w, w + NUM_WI, ...), so
  // that neighbouring work-items touch neighbouring elements in each of their steps (coalesced global accesses,
  // no local-memory bank conflicts).
  std::vector<Ownership> ownership;
  // Missing members are block.
  Ownership ownership_of(int d) const {
    return static_cast<size_t>(d) < ownership.size() ? ownership[static_cast<size_t>(d)] : Ownership::block;
  }
  // WG_OWNERSHIP (reduction dimensions whose operator commutes): which of the dimension's local tiles a work-group
  // owns: a consecutive block of TILES_PER_WG (block: g*TILES_PER_WG ..), or every NUM_WG-th (strided: g, g + NUM_WG,
  // ...), so that the work-groups running together stream one window of the inputs instead of NUM_WG places far
  // apart (faster on the H200: docs/decisions.md). Missing members are block.
  std::vector<Ownership> work_group_ownership;
  Ownership work_group_ownership_of(int d) const {
    return static_cast<size_t>(d) < work_group_ownership.size() ? work_group_ownership[static_cast<size_t>(d)]
                                                                : Ownership::block;
  }
  // STRIDED_RUN: with strided ownership, the work-item owns runs of this many consecutive elements, every
  // NUM_WI-th run (w*RUN .. w*RUN + RUN - 1, then NUM_WI*RUN further on, ...): neighbouring work-items still
  // touch neighbouring runs, and each run is one vector read into a private cache (a 128-bit read of a float4
  // instead of four 32-bit ones, from a local cache, or from global memory along a streamed reduction); the results
  // are still stored element by element. 1: every NUM_WI-th element. Missing members are 1.
  std::vector<int64_t> strided_run;
  int64_t strided_run_of(int d) const {
    return static_cast<size_t>(d) < strided_run.size() && strided_run[static_cast<size_t>(d)] > 0
               ? strided_run[static_cast<size_t>(d)]
               : 1;
  }

  // MEM_INP[layer][input access]: where the input tile of that layer is cached (see codegen/DESIGN.md).
  std::array<std::vector<Memory>, kLayerCount> input_memory;
  // MEM_RES[layer]: where the partial results of that layer live.
  std::array<Memory, kLayerCount> result_memory{Memory::Global, Memory::Private, Memory::Private};
  // ORDER_OCL[G] and ORDER_OCL[L]: the OpenCL dimension (0..2) that each md_hom dimension's work-group id and
  // work-item id are taken from; md_hom dimensions sharing an OpenCL dimension split its id, the later dimension
  // varying fastest.
  std::array<std::vector<int>, 2> ocl_dim;
  // BUF_ORDER[layer][input access]: the order of the buffer's dimensions in the cached copy, outermost first
  // (identity = the buffer's own row-major layout; {1, 0} stores a 2-D tile transposed).
  std::array<std::vector<std::vector<int>>, kLayerCount> cache_dim_order;
  // LOOP_ORDER[layer]: the order in which that layer iterates the dimensions, outermost first.
  std::array<std::vector<int>, kLayerCount> loop_order;
  // CMB_RES: when the partial results of different work-items of a work-group are combined: after each private
  // tile (P), after each local tile (L), or once after the work-group's last local tile (G).
  Layer combine_layer = Layer::Private;
  // CMB_WI: how those work-items combine at a combine point: the leader folds their partial results one after
  // another (serial, NUM_WI steps), or they combine pairwise in ceil(log2 NUM_WI) rounds separated by barriers
  // (tree; neighbours pair up where the operator does not commute, so the order of the fold is kept), or in the
  // same rounds within sub-groups of DeviceLimits::subgroup_width work-items, then across the sub-groups' results
  // (shuffle: under NVIDIA's driver the sub-groups exchange registers with shfl.sync, two barriers in all instead of
  // one per round; elsewhere the rounds go through memory).
  WorkItemCombine work_item_combine = WorkItemCombine::serial;
  // DOUBLE_BUFFER: the work-group loads the next local tile of its cached inputs into registers (global loads in
  // flight) while it computes the current one from local memory, then stores them into the caches: the loads'
  // latency hides behind the arithmetic instead of stalling the whole work-group at each tile. Along the innermost
  // reduction tile loop with several tiles (TunableGeometry::prefetch_dimension); where the sizes give none, no
  // effect. `local` also keeps two local tiles of each cache and alternates between them: the registers go into the
  // tile not being read, so one barrier per tile separates the stores from the reads instead of two (with one
  // work-group per compute unit nothing else runs while the work-items wait).
  DoubleBuffer double_buffer = DoubleBuffer::off;
  // UNROLL_STEPS: `#pragma unroll` on the loops over a work-item's private steps within a local tile (trip counts
  // LT_SIZE / (NUM_WI * PT_SIZE), constants), so that the compiler can schedule one step's cached reads during the
  // previous step's arithmetic. It speeds some md_homs up and slows register-tiled GEMMs down: a choice for the
  // tuner (docs/decisions.md).
  UnrollSteps unroll_steps = UnrollSteps::off;
  // UNROLL_TILES (md_homs with a reduction): the work-group's loop over its local tiles along the innermost reduction
  // tile loop (TunableGeometry::innermost_reduction_tile_loop) takes TunableGeometry::tile_loop_unroll tiles (up to
  // 8, a divisor of TILES_PER_WG) per iteration, their code one after another, so that the compiler can issue one
  // tile's global and local loads during the previous tile's arithmetic across the barriers. NVIDIA's compiler
  // unrolls this loop by itself only now and then, and ignores `#pragma unroll` there (docs/decisions.md). Where the
  // sizes give no such loop, no effect.
  UnrollTiles unroll_tiles = UnrollTiles::off;
  // WG_COMBINE (md_homs with a reduction): how a reduction split over work-groups (NUM_WG > 1 along
  // reduction dimensions; elsewhere no effect) is finished. `kernel`: a second kernel folds the work-groups' partial
  // results. `last`: the same kernel does: each work-group stores its partial results, counts itself in with an
  // atomic per work-group of the `++` dimensions, and the last of them to arrive folds the partial results of those
  // `++` tiles with all its work-items (strided shares and a tree in local memory, work-group order kept for
  // operators that do not commute). One launch instead of two: the second kernel's launch, ramp-up and tail cost a
  // bandwidth-bound reduction much of its time (docs/decisions.md). The count lives in a
  // scratch buffer that is zero when the kernel starts and that the folding work-group leaves zero. `atomic` (where
  // work_group_combine_atomic_applies: +, and float, int or uint results): each work-group adds its partial results
  // atomically into an accumulator per output point (zero before the launch), counts itself in as with `last`, and
  // the last to arrive copies its tiles' accumulators into the output and sets them back to zero. The last
  // work-group then reads one value per point instead of REDUCTION_WG, and folds none (docs/decisions.md).
  // The order of the additions varies from launch to launch, so floating results may differ in their last bits.
  WorkGroupCombine work_group_combine = WorkGroupCombine::kernel;
  // VECTOR_WIDTH per input access: the elements its cached copies move at a time along the buffer's unit-stride
  // (innermost) dimension: vector loads from global memory (or from the local cache, for a private cache filled
  // from it) and vector stores into a local cache that keeps that dimension innermost. 1: one element at a time.
  // Edge tiles copy element by element; a copy whose start the generator cannot prove aligned (a view's offset, a
  // stencil's halo) loads with vloadN, which needs only the element's alignment. Missing members are 1.
  std::vector<int64_t> vector_width;
  // STORE_WIDTH: results a work-item writes at a time (vstoreN) along the output's unit-stride dimension
  // (store_dimension in parameter_families.h), where its run of consecutive results is a multiple of it.
  int64_t store_width = 1;
  int64_t vector_width_of(int access) const {
    return static_cast<size_t>(access) < vector_width.size() ? vector_width[static_cast<size_t>(access)] : 1;
  }

  // LOCAL_PAD per input access: elements left unused after each innermost row of the access's cache in local
  // memory (its last dimension in BUF_ORDER_L), so that work-items walking the cache's outer dimension at once reach
  // different memory banks rather than one. 0: rows packed. Missing members are 0.
  std::vector<int64_t> local_pad;
  int64_t local_pad_of(int access) const {
    return static_cast<size_t>(access) < local_pad.size() ? local_pad[static_cast<size_t>(access)] : 0;
  }

  // The values of families that keep no field here (ParameterFamily::get left unset), by family name and member.
  std::map<std::pair<std::string, int>, int64_t> family_values;
  /// A value of such a family; an internal error where the configuration lacks it (config_frame sets every
  /// member's neutral value).
  int64_t value(const std::string& family, int member = 0) const;
  /// The same, or `otherwise` where the configuration lacks it (a member the md_hom does not have).
  int64_t value_or(const std::string& family, int member, int64_t otherwise) const;

  // VECTOR_LANES (where vector_lanes_dimension in codegen/vector_lanes.h finds a dimension): the private element
  // loop along that dimension, innermost, computes this many consecutive results at a time as one OpenCL vector
  // (f and the combine operator on floatN, the results of a private tile an array of vectors). CPU compilers
  // vectorise scalar element loops at their preferred width (256 bits on PoCL's AVX-512 targets) and split
  // vectors they assemble themselves; explicit vector types keep 512-bit registers (docs/decisions.md). Where the
  // configuration leaves the loop elsewhere (another innermost loop, strided ownership, results outside private
  // memory, an input cached with another dimension innermost, a private tile the lanes do not divide) and in edge
  // steps, elements are computed one by one.
  int64_t vector_lanes = 1;

  bool operator==(const KernelConfig&) const = default;
};

/// The name under which an input access appears in configs: its buffer's name, or `buffer@argument` where a
/// buffer is read by several accesses.
std::string input_access_name(const Mdh& mdh, int access);

/// Checks the shape of a config against the md_hom: one value per dimension / input access / layer, positive
/// sizes, OpenCL dimensions in 0..2, permutations that are permutations. Throws UserError("config: ...").
/// Whether the values fit together and the device is the tuning space's business (check_config there).
void check_config_shape(const BoundMdh& bound, const KernelConfig& config);

/// Throws UserError("config: " + message): every complaint about a config is worded alike.
[[noreturn]] void config_error(const std::string& message);
/// The rank of the buffer that input access `access` reads.
int input_rank(const Mdh& mdh, int access);

}  // namespace mdh
