// The steps of default_config (codegen/default_config.h), shared by its files: the plain layout and the driver
// (default_config.cpp), register tiles reused through local memory on GPUs (register_tiles.cpp), vector register
// tiles on CPUs (vector_tiles.cpp), and reductions shared by the work-items of a work-group (shared_reductions.cpp).
// Internal to codegen/.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/tunable_geometry.h"
#include "mdh/bind.h"

namespace mdh::defaults {

inline constexpr int64_t kLongReduction = 65536;  // longer reduction dimensions are split over work-groups by default
inline constexpr int64_t kReductionChunk = 4096;  // elements per work-group of such a split
// A reduction dimension along which most input bytes are read contiguously is shared by this many work-items, when
// it is at least kSharedReductionMinimum long: consecutive work-items then read consecutive elements (coalesced on
// GPUs, one vector on CPUs) instead of one work-item streaming a row alone.
inline constexpr int64_t kSharedReductionWorkItems = 256;
inline constexpr int64_t kSharedReductionMinimum = 1024;
// ... and only where each element of that input is read for fewer output points than a register tile holds along a
// dimension (GEMV, DOT: 1): an input that many points reuse (GEMM's A when I > J) gains more from register tiles
// over cached inputs than from coalesced streaming.
inline constexpr int64_t kSharedReductionSteps = 64;  // private steps per work-item before a long reduction is split
// On a CPU through PoCL: kCpuReductionWorkItems work-items, each owning blocks of kCpuReductionElements consecutive
// elements, its private caches moved in vectors of kCpuReductionVectorWidth: PoCL runs a few work-items with vector
// copies faster than as many work-items as a vector has lanes (docs/decisions.md).
inline constexpr int64_t kCpuReductionWorkItems = 2;
inline constexpr int64_t kCpuReductionElements = 32;
inline constexpr int64_t kCpuReductionVectorWidth = 4;
inline constexpr int64_t kRowsPerWorkGroup = 4;  // `++` elements per work-group (register tile) on that path
// Stencils (an input read through a window, only `++` dimensions): kStencilRowWorkItems work-items along the
// innermost dimension (a warp: whole rows of the window are read together) and kStencilColumnWorkItems along the
// next, each owning kStencilColumnElements consecutive elements of that one, which share all but one of their
// window's rows (docs/decisions.md).
inline constexpr int64_t kStencilRowWorkItems = 32;
inline constexpr int64_t kStencilColumnWorkItems = 8;
inline constexpr int64_t kStencilColumnElements = 8;
// Stencils over three or more `++` dimensions, on GPUs: kVolumeStencilRowWorkItems work-items along the innermost
// dimension (two warps: long rows of every window plane are read together), kVolumeStencilColumnWorkItems along the
// next, each owning kVolumeStencilRowElements consecutive elements of the innermost (stored as one vector) and of the
// next, and kVolumeStencilOuterElements of each outer one, whose neighbours share all but one of their window's
// planes (docs/decisions.md).
inline constexpr int64_t kVolumeStencilRowWorkItems = 64;
inline constexpr int64_t kVolumeStencilColumnWorkItems = 4;
inline constexpr int64_t kVolumeStencilRowElements = 2;
inline constexpr int64_t kVolumeStencilOuterElements = 4;

// Where work-items of a work-group read the same input elements (GEMM: every work-item along j reads the same row
// of A), on a device with dedicated local memory: each work-item owns a register tile of up to
// kRegisterTileElements elements along each such dimension, every kRegisterTileElements-th (strided: neighbouring
// work-items touch neighbouring elements), the inputs they share are cached in local memory tile by tile, and the
// reductions advance kCachedReductionTile indices per cached tile (docs/decisions.md).
inline constexpr int64_t kRegisterTileElements = 8;
inline constexpr int64_t kCachedReductionTile = 16;
inline constexpr uint64_t kWorkItemsPerComputeUnit = 128;
inline constexpr int64_t kDividingWorkItemsFloor = 8;
// Work-items are halved to divide the extent only where they leave more than 1/kMostIdleShare of it idle in the
// last step (E = 24 with 16 work-items: 8 of 32); a few idle indices at the edge cost less than work-groups of a
// quarter of the size everywhere (1000 = 8 x 125 with 16 work-items: 8 of 1,008).
inline constexpr int64_t kMostIdleShare = 8;
// A reduction tile is cut to a divisor of the extent only where one is at least kDividingReductionTileShare
// (numerator, denominator) of the longest tile; otherwise the tiles keep the longest length and the last one is
// short: a shorter tile everywhere pays its barriers and copies in every tile, a short last tile only once.
inline constexpr int64_t kDividingReductionTileShare[2] = {3, 4};
// A locally cached input that every work-item dimension indexes is reused in a work-group only as often as the
// local tile extends along the dimensions it does not read, which carry no work-items and keep the plain default's 2
// elements (the CCSD(T) contraction gdab-efgc: 8 points per copied element of TB, one load and store per 8
// multiply-adds). Such an input is raised to kMinimumInputReuse: the dimensions without work-items that it reads drop
// to one element (their tiles only multiply the result slots) where the other cached inputs stay reused that often,
// and those it does not read double, the one along which another cached input is contiguous first (so that its copy
// reads longer rows), then the innermost, while every compute unit keeps a work-group (docs/decisions.md).
inline constexpr int64_t kMinimumInputReuse = 32;
// Bytes that a GPU default's copies into local memory and its result stores move at a time per work-item
// (VECTOR_WIDTH and STORE_WIDTH 4 for float): one 128-bit access (docs/decisions.md).
inline constexpr size_t kGpuVectorBytes = 16;

// Helpers of every layout (default_config.cpp).
int unit_stride_dimension(const BoundAccess& access);
void place_innermost(std::vector<int>& order, int k);
int first_index_moving_with(const BoundAccess& access, int d);
uint64_t work_group_count(const KernelConfig& c);
void shrink_private_tiles_until_valid(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c);

// GPUs: register tiles reused through local memory, stores and short loops (register_tiles.cpp).
void pad_transposed_local_caches(const BoundMdh& bound, KernelConfig& c);
void feed_register_tiles_with_vectors(const BoundMdh& bound, const std::vector<int>& tiled, int fastest,
                                      KernelConfig& t);
int64_t input_reuse(const BoundMdh& bound, const KernelConfig& c, const BoundAccess& access);
void raise_least_input_reuse(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& t);
bool tile_for_reuse(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c);
void store_in_vectors(const BoundMdh& bound, const TunableGeometry& g, KernelConfig& c);
void unroll_short_loops(const TunableGeometry& g, KernelConfig& c);

// CPUs: vector register tiles and vector copies (vector_tiles.cpp).
int64_t dividing_tile(int64_t extent, int64_t desired);
bool split_reduction_over_shared_slices(const BoundMdh& bound, KernelConfig& c);
void copy_private_caches_in_vectors(const BoundMdh& bound, int64_t width, KernelConfig& c);
void copy_local_caches_in_vectors(const BoundMdh& bound, KernelConfig& c);
bool tile_for_vectors(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c);

// Reductions shared by the work-items of a work-group or split over work-groups (shared_reductions.cpp).
int most_read_contiguous_dimension(const BoundMdh& bound);
int64_t reuse_of_streamed_input(const BoundMdh& bound, int r);
void share_reduction(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c);
uint64_t device_work_items(const DeviceLimits& limits);
uint64_t output_points(const BoundMdh& bound);
int reduction_to_split_for_small_output(const BoundMdh& bound, const DeviceLimits& limits);
uint64_t work_item_count(const KernelConfig& c);
uint64_t work_group_size(const KernelConfig& c);
bool share_reduction_per_point(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c);
void split_reduction_over_work_groups(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c);

}  // namespace mdh::defaults
