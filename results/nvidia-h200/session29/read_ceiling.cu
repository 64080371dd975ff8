// Session 29 (issue 12): how fast can any kernel read GEMV 4096^2's 64 MiB matrix and DOT 2^24's two 64 MiB vectors on
// this GPU? A CUDA reduction written for nothing but streaming (float4 loads, UNROLL independent loads in flight per
// thread, grid-stride, one atomicAdd per block) in a range of grid sizes; the median of 50 timed launches (CUDA
// events) after 5 warm-ups, per grid; plus a 1 GiB copy as device_peak does it. Prints GB/s and the share of that
// copy's bandwidth (bytes read + written / time), the limit the tables use. Call 5 ran it without the lines "each
// launch after an output reset", which were added after the session's device time was spent.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int kUnroll = 4;

__global__ void read_sum(const float4* __restrict__ a, const float4* __restrict__ b, size_t n, float* out) {
  float acc[kUnroll] = {};
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    float4 x[kUnroll], y[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) x[u] = a[i + u * stride];
    if (b) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) y[u] = b[i + u * stride];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc[u] += x[u].x * y[u].x + x[u].y * y[u].y + x[u].z * y[u].z + x[u].w * y[u].w;
    } else {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc[u] += x[u].x + x[u].y + x[u].z + x[u].w;
    }
  }
  for (; i < n; i += stride) {
    const float4 x = a[i];
    const float4 y = b ? b[i] : make_float4(1, 1, 1, 1);
    acc[0] += x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
  }
  float s = 0;
  for (int u = 0; u < kUnroll; ++u) s += acc[u];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  __shared__ float warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) t += warp_sums[w];
    atomicAdd(out, t);
  }
}

__global__ void copy4(const float4* __restrict__ s, float4* __restrict__ t) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  t[i] = s[i];
}

// Each launch timed alone with CUDA events, the host waiting for it before the next (as the cuBLAS peer's calls are
// timed). With `reset`, every launch follows a cudaMemset of `reset_bytes` at `reset` and a device synchronisation, as
// the benchmark resets an output before each call (run in session 30, call 1).
template <typename Launch>
float median_ms(Launch launch, void* reset = nullptr, size_t reset_bytes = 0) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int w = 0; w < 5; ++w) launch();
  std::vector<float> ms;
  for (int r = 0; r < 50; ++r) {
    if (reset) {
      cudaMemset(reset, 0xFF, reset_bytes);
      cudaDeviceSynchronize();
    }
    cudaEventRecord(e0);
    launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  const size_t copy_bytes = size_t(1) << 30;
  float4 *s, *t;
  cudaMalloc(&s, copy_bytes);
  cudaMalloc(&t, copy_bytes);
  cudaMemset(s, 0, copy_bytes);
  const size_t copy_n = copy_bytes / sizeof(float4);
  const float copy_ms = median_ms([&] { copy4<<<copy_n / 256, 256>>>(s, t); });
  const double copy_gbs = 2.0 * copy_bytes / (copy_ms * 1e6);
  std::printf("%s, %d SMs; copy of 1 GiB: %.4f ms, %.0f GB/s (read + written)\n", p.name, p.multiProcessorCount,
              copy_ms, copy_gbs);
  float* out;
  cudaMalloc(&out, sizeof(float));
  const size_t n = (size_t(64) << 20) / sizeof(float4);  // 64 MiB per operand
  for (int operands : {1, 2}) {
    float best_ms = 1e30f;
    for (int threads : {256, 512, 1024})
      for (int per_sm : {1, 2, 4, 8, 16, 32}) {
        const int blocks = p.multiProcessorCount * per_sm;
        if (size_t(blocks) * threads * kUnroll > n) continue;
        const float ms = median_ms([&] { read_sum<<<blocks, threads>>>(s, operands == 2 ? t : nullptr, n, out); });
        const double gbs = operands * 64.0 * (1 << 20) / (ms * 1e6);
        std::printf("read %d x 64 MiB, %4d blocks of %4d: %.4f ms, %.0f GB/s, %.1f%% of the copy\n", operands, blocks,
                    threads, ms, gbs, 100 * gbs / copy_gbs);
        best_ms = std::min(best_ms, ms);
      }
    const double gbs = operands * 64.0 * (1 << 20) / (best_ms * 1e6);
    std::printf("BEST read %d x 64 MiB: %.4f ms, %.0f GB/s, %.1f%% of the copy\n", operands, best_ms, gbs,
                100 * gbs / copy_gbs);
    // The best grids again, each launch after a reset of the output (4 bytes) and a synchronisation.
    float reset_best_ms = 1e30f;
    for (int threads : {256, 512, 1024})
      for (int per_sm : {2, 4, 8, 16}) {
        const int blocks = p.multiProcessorCount * per_sm;
        if (size_t(blocks) * threads * kUnroll > n) continue;
        reset_best_ms =
            std::min(reset_best_ms,
                     median_ms([&] { read_sum<<<blocks, threads>>>(s, operands == 2 ? t : nullptr, n, out); }, out, 4));
      }
    const double reset_gbs = operands * 64.0 * (1 << 20) / (reset_best_ms * 1e6);
    std::printf("BEST read %d x 64 MiB, each launch after an output reset: %.4f ms, %.0f GB/s, %.1f%% of the copy\n",
                operands, reset_best_ms, reset_gbs, 100 * reset_gbs / copy_gbs);
  }
  const cudaError_t e = cudaGetLastError();
  std::printf("cuda: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
