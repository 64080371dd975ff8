// The tensor-core kernel shape: which md_homs are matrix products in disguise, and the roles their dimensions
// play. An md_hom whose scalar function multiplies its two inputs and whose reductions all add is
// C[m, n] = sum_k A[m, k] * B[k, n] once its dimensions are grouped: M = the `++` dimensions only the first input
// reads, N = those only the second reads, K = the reductions (both read each), batch = the `++` dimensions both
// read. GEMM, batched GEMM, tensor contractions and multi-channel convolution (whose input index p+r is affine in
// an M and a K dimension) all have this shape, with float inputs (TF32 m16n8k8 fragments) or inputs of one storage
// type (half, bfloat16: m16n8k16 fragments of that type, converted as the tiles are loaded). Where the request asks for
// TF32 (BoundMdh::precision), such an md_hom is generated as the tensor-core kernel (codegen/emitter/mma_kernel.cpp)
// with the tuning parameters of codegen/families/tensor_core.cpp; every other md_hom and precision keeps the tile
// kernel.
#pragma once

#include <optional>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/launch_plan.h"
#include "codegen/preamble.h"
#include "mdh/bind.h"

namespace mdh {

/// The kernel shapes the generator emits; each family belongs to one (ParameterFamily::shape).
enum class KernelShape { tiles, tensor_core };

struct TensorCoreRoles {
  int a = 0, b = 1;  // the input accesses playing A (reads M and K) and B (reads K and N)
  // Each group ordered outermost first, so that the last dimension varies fastest along the flattened index: M and N
  // by the strides of their input, or of the output where it is the larger buffer (its stores are then the
  // traffic), K by A's, so that neighbouring cells of a tile are neighbours in memory.
  std::vector<int> m_dims, n_dims, k_dims, batch_dims;
  int64_t m_extent = 1, n_extent = 1, k_extent = 1, batch_extent = 1;
  // Whether an input's tile is kept K-major in local memory (its unit-stride index moves with its free group,
  // M or N) rather than free-major (the unit-stride index moves with K).
  bool a_k_major = false, b_k_major = false;
  // The widest vector (1, 2 or 4 floats) in which each input's tile can be loaded: the tile's fastest index moves
  // along the input's unit stride, and every vector of that many cells starts aligned and lies wholly inside or
  // wholly outside the extents.
  int64_t a_vector = 1, b_vector = 1;
  // Whether the inputs hold floats (false: half or bfloat16, converted as the tiles are loaded; their cells are
  // neither vectors nor copied asynchronously, since local tiles hold floats).
  bool stored_as_computed = true;
};

/// The roles, where the md_hom is a matrix product computed in float: two input accesses of one type (float, half or
/// bfloat16) without windows, an output of float, half or bfloat16, `scalar (x, y) = x * y`, every reduction `+` and
/// read by both inputs, at least one `++` dimension read by A alone and one by B alone. Nullopt elsewhere.
std::optional<TensorCoreRoles> tensor_core_roles(const BoundMdh& bound);

/// tensor_core where the request asks for TF32 and the md_hom has roles; tiles elsewhere.
KernelShape kernel_shape(const BoundMdh& bound);

/// The default configuration of the tensor-core kernel (codegen/families/tensor_core.cpp).
KernelConfig tensor_core_default(const BoundMdh& bound, const DeviceLimits& limits);

/// The tensor-core kernel `<mdh name>_tunable` (codegen/emitter/mma_kernel.cpp) for an md_hom of that shape and a
/// configuration of its families; arguments as the tile kernel's (inputs, output, params, tables). Under NVIDIA's
/// driver it multiplies with inline PTX mma.sync; elsewhere through local memory (the same index arithmetic).
LaunchPlan generate_tensor_core_kernel(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits,
                                       const PreambleOptions& options);

}  // namespace mdh
