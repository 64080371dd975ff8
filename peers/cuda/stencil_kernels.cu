#include "stencil_kernels.h"

namespace mdh::peers {
namespace {

// ---------------------------------------------------------------------------------------------- Gaussian 5x5

__device__ __forceinline__ float gaussian_weight(int r, int c) {
  // apps/gaussian.mdh's k[5][5]; with the loops unrolled these fold into immediates.
  constexpr float k[5][5] = {{2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
  return k[r][c];
}

// Shared-memory tiling: a block stages its (BY*PY + 4) x (BX + 4) input tile once (coalesced along j), then each
// thread computes PY outputs of one column from the tile.
template <int BX, int BY, int PY>
__global__ void __launch_bounds__(BX* BY)
    gaussian_smem(const float* __restrict__ in, float* __restrict__ out, int I, int J) {
  constexpr int TW = BX + 4, TH = BY * PY + 4;
  __shared__ float tile[TH][TW];
  const int j0 = blockIdx.x * BX, i0 = blockIdx.y * BY * PY, in_width = J + 4;
  for (int t = threadIdx.y * BX + threadIdx.x; t < TH * TW; t += BX * BY) {
    const int ty = t / TW, tx = t % TW, gi = i0 + ty, gj = j0 + tx;
    tile[ty][tx] = gi < I + 4 && gj < in_width ? __ldg(in + static_cast<size_t>(gi) * in_width + gj) : 0.0f;
  }
  __syncthreads();
  const int j = j0 + threadIdx.x;
#pragma unroll
  for (int p = 0; p < PY; ++p) {
    const int ly = threadIdx.y + p * BY, i = i0 + ly;
    if (i < I && j < J) {
      float s = 0.0f;
#pragma unroll
      for (int r = 0; r < 5; ++r)
#pragma unroll
        for (int c = 0; c < 5; ++c) s += gaussian_weight(r, c) * tile[ly + r][threadIdx.x + c];
      out[static_cast<size_t>(i) * J + j] = s / 159.0f;
    }
  }
}

// Register streaming: each thread owns one column j and PY consecutive output rows, reads each of the PY + 4 input
// rows it needs once (5 floats, neighbours shared through L1) and adds it into the partial sums of the rows it
// belongs to, so every output still sums r = 0..4 in order.
template <int BX, int BY, int PY>
__global__ void __launch_bounds__(BX* BY)
    gaussian_rows(const float* __restrict__ in, float* __restrict__ out, int I, int J) {
  const int j = blockIdx.x * BX + threadIdx.x;
  const int i0 = (blockIdx.y * BY + threadIdx.y) * PY;
  if (j >= J || i0 >= I) return;
  const int in_width = J + 4;
  float sum[PY];
#pragma unroll
  for (int p = 0; p < PY; ++p) sum[p] = 0.0f;
#pragma unroll
  for (int row = 0; row < PY + 4; ++row) {
    if (i0 + row >= I + 4) break;
    const float* line = in + static_cast<size_t>(i0 + row) * in_width + j;
    float v[5];
#pragma unroll
    for (int c = 0; c < 5; ++c) v[c] = __ldg(line + c);
#pragma unroll
    for (int p = 0; p < PY; ++p) {
      const int r = row - p;
      if (r >= 0 && r < 5)
#pragma unroll
        for (int c = 0; c < 5; ++c) sum[p] += gaussian_weight(r, c) * v[c];
    }
  }
#pragma unroll
  for (int p = 0; p < PY; ++p)
    if (i0 + p < I) out[static_cast<size_t>(i0 + p) * J + j] = sum[p] / 159.0f;
}

template <int BX, int BY, int PY>
cudaError_t launch_gaussian_smem(const float* in, float* out, int i, int j, int, cudaStream_t stream) {
  const dim3 grid((j + BX - 1) / BX, (i + BY * PY - 1) / (BY * PY));
  gaussian_smem<BX, BY, PY><<<grid, dim3(BX, BY), 0, stream>>>(in, out, i, j);
  return cudaGetLastError();
}

template <int BX, int BY, int PY>
cudaError_t launch_gaussian_rows(const float* in, float* out, int i, int j, int, cudaStream_t stream) {
  const dim3 grid((j + BX - 1) / BX, (i + BY * PY - 1) / (BY * PY));
  gaussian_rows<BX, BY, PY><<<grid, dim3(BX, BY), 0, stream>>>(in, out, i, j);
  return cudaGetLastError();
}

// ---------------------------------------------------------------------------------------------- Jacobi 3D

__device__ __forceinline__ float jacobi_point(float k_plus, float k_minus, float j_plus, float j_minus, float i_plus,
                                              float i_minus, float centre) {
  // apps/jacobi3d.mdh's terms in its order: w(1,1,2), w(1,1,0), w(1,2,1), w(1,0,1), w(2,1,1), w(0,1,1), w(1,1,1).
  return 0.161f * k_plus + 0.162f * k_minus + 0.163f * j_plus + 0.164f * j_minus + 0.165f * i_plus + 0.166f * i_minus -
         1.67f * centre;
}

// 2.5D streaming: a block covers a BX x BY tile of (k, j) and walks CHUNK planes along i (the slowest dimension);
// the planes below and above stay in registers, the current plane is staged in shared memory with its j/k halo.
template <int BX, int BY, int CHUNK>
__global__ void __launch_bounds__(BX* BY)
    jacobi_smem(const float* __restrict__ in, float* __restrict__ out, int I, int J, int K) {
  __shared__ float plane[BY + 2][BX + 2];
  const int k = blockIdx.x * BX + threadIdx.x, j = blockIdx.y * BY + threadIdx.y;
  const int i_begin = blockIdx.z * CHUNK, i_end = min(I, i_begin + CHUNK);
  const size_t row = K + 2, slab = static_cast<size_t>(J + 2) * (K + 2);
  const bool inside = k < K && j < J;
  const float* centre = in + static_cast<size_t>(i_begin) * slab + static_cast<size_t>(j + 1) * row + (k + 1);
  float below = inside ? __ldg(centre) : 0.0f;
  for (int i = i_begin; i < i_end; ++i) {
    const float* current = in + static_cast<size_t>(i + 1) * slab;
    __syncthreads();  // the previous plane has been read
    for (int t = threadIdx.y * BX + threadIdx.x; t < (BY + 2) * (BX + 2); t += BX * BY) {
      const int ty = t / (BX + 2), tx = t % (BX + 2);
      const int gj = blockIdx.y * BY + ty, gk = blockIdx.x * BX + tx;
      plane[ty][tx] = gj < J + 2 && gk < K + 2 ? __ldg(current + static_cast<size_t>(gj) * row + gk) : 0.0f;
    }
    __syncthreads();
    if (inside) {
      const float above = __ldg(centre + 2 * slab);
      const int y = threadIdx.y + 1, x = threadIdx.x + 1;
      out[(static_cast<size_t>(i) * J + j) * K + k] =
          jacobi_point(plane[y][x + 1], plane[y][x - 1], plane[y + 1][x], plane[y - 1][x], above, below, plane[y][x]);
      below = plane[y][x];
      centre += slab;
    }
  }
}

// Register streaming without shared memory: the same walk along i, the in-plane neighbours read through L1.
template <int BX, int BY, int CHUNK>
__global__ void __launch_bounds__(BX* BY)
    jacobi_regs(const float* __restrict__ in, float* __restrict__ out, int I, int J, int K) {
  const int k = blockIdx.x * BX + threadIdx.x, j = blockIdx.y * BY + threadIdx.y;
  if (k >= K || j >= J) return;
  const int i_begin = blockIdx.z * CHUNK, i_end = min(I, i_begin + CHUNK);
  const size_t row = K + 2, slab = static_cast<size_t>(J + 2) * (K + 2);
  const float* centre = in + static_cast<size_t>(i_begin) * slab + static_cast<size_t>(j + 1) * row + (k + 1);
  float below = __ldg(centre), current = __ldg(centre + slab);
  for (int i = i_begin; i < i_end; ++i) {
    centre += slab;
    const float above = __ldg(centre + slab);
    out[(static_cast<size_t>(i) * J + j) * K + k] = jacobi_point(
        __ldg(centre + 1), __ldg(centre - 1), __ldg(centre + row), __ldg(centre - row), above, below, current);
    below = current;
    current = above;
  }
}

template <int BX, int BY, int CHUNK>
cudaError_t launch_jacobi_smem(const float* in, float* out, int i, int j, int k, cudaStream_t stream) {
  const dim3 grid((k + BX - 1) / BX, (j + BY - 1) / BY, (i + CHUNK - 1) / CHUNK);
  jacobi_smem<BX, BY, CHUNK><<<grid, dim3(BX, BY), 0, stream>>>(in, out, i, j, k);
  return cudaGetLastError();
}

template <int BX, int BY, int CHUNK>
cudaError_t launch_jacobi_regs(const float* in, float* out, int i, int j, int k, cudaStream_t stream) {
  const dim3 grid((k + BX - 1) / BX, (j + BY - 1) / BY, (i + CHUNK - 1) / CHUNK);
  jacobi_regs<BX, BY, CHUNK><<<grid, dim3(BX, BY), 0, stream>>>(in, out, i, j, k);
  return cudaGetLastError();
}

}  // namespace

const std::vector<StencilVariant>& gaussian_variants() {
  static const std::vector<StencilVariant> variants = {
      {"smem 32x8, 1 row per thread", launch_gaussian_smem<32, 8, 1>},
      {"smem 32x8, 4 rows per thread", launch_gaussian_smem<32, 8, 4>},
      {"smem 64x4, 4 rows per thread", launch_gaussian_smem<64, 4, 4>},
      {"smem 128x2, 8 rows per thread", launch_gaussian_smem<128, 2, 8>},
      {"rows 32x8, 4 rows per thread", launch_gaussian_rows<32, 8, 4>},
      {"rows 64x4, 8 rows per thread", launch_gaussian_rows<64, 4, 8>},
      {"rows 128x2, 8 rows per thread", launch_gaussian_rows<128, 2, 8>},
      {"rows 128x1, 16 rows per thread", launch_gaussian_rows<128, 1, 16>},
  };
  return variants;
}

const std::vector<StencilVariant>& jacobi3d_variants() {
  static const std::vector<StencilVariant> variants = {
      {"smem 32x8, 16 planes per block", launch_jacobi_smem<32, 8, 16>},
      {"smem 32x8, 64 planes per block", launch_jacobi_smem<32, 8, 64>},
      {"smem 64x4, 32 planes per block", launch_jacobi_smem<64, 4, 32>},
      {"smem 128x2, 32 planes per block", launch_jacobi_smem<128, 2, 32>},
      {"regs 32x8, 16 planes per block", launch_jacobi_regs<32, 8, 16>},
      {"regs 32x4, 64 planes per block", launch_jacobi_regs<32, 4, 64>},
      {"regs 64x4, 32 planes per block", launch_jacobi_regs<64, 4, 32>},
      {"regs 128x1, 32 planes per block", launch_jacobi_regs<128, 1, 32>},
  };
  return variants;
}

}  // namespace mdh::peers
