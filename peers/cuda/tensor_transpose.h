// A tensor permutation on the GPU for TTGT contractions, as a library would do it (planned by peers/ttgt_plan.h):
// a 2-D transpose is cublasSgeam; a permutation that keeps the innermost dimension copies contiguous rows; any other
// is a tiled shared-memory transpose of ours, coalesced on both sides (reads along the input's innermost dimension,
// writes along the output's). Index arithmetic is done per row or per tile, not per element.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "peers/ttgt_plan.h"

namespace mdh::peers {

constexpr int kMaxTransposeRank = 8;

/// Enqueues out = permute(in) as `walk` says on `stream` (cuBLAS `handle` must use the same stream); UserError on
/// failure or a walk of more than kMaxTransposeRank dimensions.
void enqueue_transpose(const TransposeWalk& walk, const float* in, float* out, cudaStream_t stream,
                       cublasHandle_t handle);

}  // namespace mdh::peers
