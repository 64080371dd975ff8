#include <cmath>

#include "prl_kernel.h"

namespace mdh::peers {
namespace {

constexpr int kThreads = 256;
constexpr int kStaged = 2048;  // records of b staged in shared memory per pass (32 KiB)

__device__ __forceinline__ unsigned field_of(const uint4& r, int f) {
  const unsigned word = f < 4 ? r.x : f < 8 ? r.y : f < 12 ? r.z : r.w;
  return (word >> (8 * (f % 4))) & 0xFFu;
}

__device__ __forceinline__ bool better(float w, int j, float best_w, int best_j) {
  return w > best_w || (w == best_w && j < best_j);  // apps/prl.mdh's best_of: ties go to the smaller index
}

// Thread t of a block serves record (blockIdx.x * kThreads + t) / LANES of a and the records j of b with
// j % LANES == t % LANES; a warp's lanes read neighbouring 16-byte records of b from shared memory (no conflicts),
// the weights of a's record sit in registers, and a pair costs 14 byte compares, selects and adds, in field order.
template <int LANES>
__global__ void __launch_bounds__(kThreads)
    prl_best(const uint4* __restrict__ a, int n, const uint4* __restrict__ b, int m, const float* __restrict__ agree,
             const float* __restrict__ differ, PrlMatch* __restrict__ best) {
  __shared__ uint4 staged[kStaged];
  const int record = (blockIdx.x * kThreads + threadIdx.x) / LANES, lane = threadIdx.x % LANES;
  const bool active = record < n;
  float yes[kPrlKernelFields], no[kPrlKernelFields];
  const uint4 x = active ? a[record] : make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int f = 0; f < kPrlKernelFields; ++f) {
    const unsigned v = field_of(x, f);
    yes[f] = __ldg(agree + f * 256 + v);
    no[f] = __ldg(differ + f * 256 + v);
  }
  float best_w = -INFINITY;
  int best_j = -1;
  for (int j0 = 0; j0 < m; j0 += kStaged) {
    const int count = min(kStaged, m - j0);
    __syncthreads();
    for (int t = threadIdx.x; t < count; t += kThreads) staged[t] = b[j0 + t];
    __syncthreads();
    if (active)
      for (int t = lane; t < count; t += LANES) {
        const uint4 y = staged[t];
        const unsigned eq[4] = {__vcmpeq4(x.x, y.x), __vcmpeq4(x.y, y.y), __vcmpeq4(x.z, y.z), __vcmpeq4(x.w, y.w)};
        float w = 0.0f;
#pragma unroll
        for (int f = 0; f < kPrlKernelFields; ++f) w += (eq[f / 4] >> (8 * (f % 4))) & 1u ? yes[f] : no[f];
        if (w > best_w) best_w = w, best_j = j0 + t;  // ascending j within a lane: ties keep the first
      }
  }
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset /= 2) {
    const float w = __shfl_down_sync(0xFFFFFFFFu, best_w, offset, LANES);
    const int j = __shfl_down_sync(0xFFFFFFFFu, best_j, offset, LANES);
    if (j >= 0 && (best_j < 0 || better(w, j, best_w, best_j))) best_w = w, best_j = j;
  }
  if (active && lane == 0) best[record] = PrlMatch{best_w, best_j};
}

template <int LANES>
cudaError_t launch(const uint4* a, int n, const uint4* b, int m, const float* agree, const float* differ,
                   PrlMatch* best, cudaStream_t stream) {
  const int64_t threads = static_cast<int64_t>(n) * LANES;
  const unsigned blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  prl_best<LANES><<<blocks, kThreads, 0, stream>>>(a, n, b, m, agree, differ, best);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_prl(const uint4* a, int n, const uint4* b, int m, const float* agree, const float* differ,
                       PrlMatch* best, int lanes, cudaStream_t stream) {
  switch (lanes) {
    case 1:
      return launch<1>(a, n, b, m, agree, differ, best, stream);
    case 2:
      return launch<2>(a, n, b, m, agree, differ, best, stream);
    case 4:
      return launch<4>(a, n, b, m, agree, differ, best, stream);
    case 8:
      return launch<8>(a, n, b, m, agree, differ, best, stream);
    case 16:
      return launch<16>(a, n, b, m, agree, differ, best, stream);
    case 32:
      return launch<32>(a, n, b, m, agree, differ, best, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace mdh::peers
