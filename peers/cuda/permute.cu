#include "permute.h"

namespace mdh::peers {
namespace {

struct PermuteShape {
  int rank;
  int64_t out_extents[kMaxPermuteRank];
  int64_t in_strides_by_out_dim[kMaxPermuteRank];  // the input stride of the dimension output dim d comes from
  int64_t count;
};

// One thread per output element, in output order: consecutive threads write consecutive addresses; the reads
// follow the permutation (the simple transpose a TTGT baseline uses, no shared-memory tiling).
__global__ void permute_kernel(const float* __restrict__ in, float* __restrict__ out, PermuteShape shape) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < shape.count;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = o, offset = 0;
    for (int d = shape.rank - 1; d >= 0; --d) {
      const int64_t c = rest % shape.out_extents[d];
      rest /= shape.out_extents[d];
      offset += c * shape.in_strides_by_out_dim[d];
    }
    out[o] = in[offset];
  }
}

}  // namespace

cudaError_t launch_permute(const float* in, float* out, int rank, const int64_t* in_extents, const int* perm,
                           cudaStream_t stream) {
  if (rank < 1 || rank > kMaxPermuteRank) return cudaErrorInvalidValue;
  PermuteShape shape{};
  shape.rank = rank;
  int64_t in_strides[kMaxPermuteRank];
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_strides[d] = stride;
    stride *= in_extents[d];
  }
  shape.count = stride;
  for (int d = 0; d < rank; ++d) {
    shape.out_extents[d] = in_extents[perm[d]];
    shape.in_strides_by_out_dim[d] = in_strides[perm[d]];
  }
  const int threads = 256;
  const int64_t wanted = (shape.count + threads - 1) / threads;
  const int blocks = static_cast<int>(wanted < 65535 * 8 ? wanted : 65535 * 8);
  const int grid = blocks > 0 ? blocks : 1;
  permute_kernel<<<grid, threads, 0, stream>>>(in, out, shape);
  return cudaGetLastError();
}

}  // namespace mdh::peers
