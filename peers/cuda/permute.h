// A tensor permutation on the GPU, the transposes of TTGT (transpose-transpose-GEMM-transpose) contractions.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mdh::peers {

constexpr int kMaxPermuteRank = 8;

/// out has extents in_extents[perm[0]], ..., in_extents[perm[rank-1]] (row-major) and
/// out[c_0]...[c_{rank-1}] = in[...] with input coordinate perm[d] = c_d. Enqueued on `stream`; returns the launch
/// status.
cudaError_t launch_permute(const float* in, float* out, int rank, const int64_t* in_extents, const int* perm,
                           cudaStream_t stream);

}  // namespace mdh::peers
