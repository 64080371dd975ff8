#include <algorithm>
#include <string>

#include "cuda_check.h"
#include "tensor_transpose.h"

namespace mdh::peers {
namespace {

constexpr int kTile = 32;

/// The dimensions other than the one or two a kernel walks with its threads: extents and strides on both sides,
/// in output order, the last the fastest.
struct RestDims {
  int rank = 0;
  int64_t extent[kMaxTransposeRank];
  int64_t in_stride[kMaxTransposeRank];
  int64_t out_stride[kMaxTransposeRank];
  int64_t count = 1;
};

__device__ __forceinline__ void rest_offsets(const RestDims& r, int64_t index, int64_t& in, int64_t& out) {
  in = 0, out = 0;
  for (int d = r.rank - 1; d >= 0; --d) {
    const int64_t c = index % r.extent[d];
    index /= r.extent[d];
    in += c * r.in_stride[d];
    out += c * r.out_stride[d];
  }
}

// Rows of `length` contiguous floats, the same innermost dimension on both sides: threadIdx.x along a row,
// threadIdx.y over rows.
__global__ void copy_rows(const float* __restrict__ in, float* __restrict__ out, RestDims rows, int64_t length) {
  for (int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.y) + threadIdx.y; row < rows.count;
       row += static_cast<int64_t>(gridDim.x) * blockDim.y) {
    int64_t in_base, out_base;
    rest_offsets(rows, row, in_base, out_base);
    for (int64_t x = threadIdx.x; x < length; x += blockDim.x) out[out_base + x] = __ldg(in + in_base + x);
  }
}

// x: the input's innermost dimension (stride 1 in the input), y: the output's innermost (stride 1 in the output).
// A 32x32 tile is read along x and written along y through shared memory (padded against bank conflicts).
__global__ void transpose_tiles(const float* __restrict__ in, float* __restrict__ out, RestDims rest, int x_extent,
                                int y_extent, int64_t in_stride_y, int64_t out_stride_x) {
  __shared__ float tile[kTile][kTile + 1];
  const int tiles_x = (x_extent + kTile - 1) / kTile;
  const int x0 = (blockIdx.x % tiles_x) * kTile, y0 = (blockIdx.x / tiles_x) * kTile;
  for (int64_t z = blockIdx.y; z < rest.count; z += gridDim.y) {
    int64_t in_base, out_base;
    rest_offsets(rest, z, in_base, out_base);
    for (int yy = threadIdx.y; yy < kTile; yy += blockDim.y) {
      const int x = x0 + threadIdx.x, y = y0 + yy;
      if (x < x_extent && y < y_extent) tile[yy][threadIdx.x] = __ldg(in + in_base + y * in_stride_y + x);
    }
    __syncthreads();
    for (int xx = threadIdx.y; xx < kTile; xx += blockDim.y) {
      const int y = y0 + threadIdx.x, x = x0 + xx;
      if (x < x_extent && y < y_extent) out[out_base + x * out_stride_x + y] = tile[threadIdx.x][xx];
    }
    __syncthreads();
  }
}

RestDims rest_dims(const TransposeWalk& w) {
  if (w.rest_extent.size() > static_cast<size_t>(kMaxTransposeRank))
    throw UserError("a transpose of more than " + std::to_string(kMaxTransposeRank) + " merged dimensions");
  RestDims r;
  for (size_t d = 0; d < w.rest_extent.size(); ++d) {
    r.extent[r.rank] = w.rest_extent[d];
    r.in_stride[r.rank] = w.rest_in_stride[d];
    r.out_stride[r.rank] = w.rest_out_stride[d];
    r.count *= w.rest_extent[d];
    ++r.rank;
  }
  return r;
}

}  // namespace

void enqueue_transpose(const TransposeWalk& w, const float* in, float* out, cudaStream_t stream,
                       cublasHandle_t handle) {
  switch (w.method) {
    case TransposeMethod::none:
      check_cuda(
          cudaMemcpyAsync(out, in, static_cast<size_t>(w.elements) * sizeof(float), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
      return;
    case TransposeMethod::geam: {
      // Row-major [X0][X1] is column-major X1 x X0; its transpose, column-major X0 x X1, is row-major [X1][X0].
      const int x0 = static_cast<int>(w.extents[0]), x1 = static_cast<int>(w.extents[1]);
      const float one = 1.0f, zero = 0.0f;
      check_cublas(cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, x0, x1, &one, in, x1, &zero, out, x0, out, x0),
                   "cublasSgeam");
      return;
    }
    case TransposeMethod::rows: {
      const RestDims rows = rest_dims(w);
      const int threads_x = w.row_length >= 128 ? 128 : w.row_length >= 64 ? 64 : 32;
      const int threads_y = 256 / threads_x;
      const int64_t blocks = std::min<int64_t>((rows.count + threads_y - 1) / threads_y, 65535LL * 32);
      copy_rows<<<static_cast<unsigned>(blocks), dim3(threads_x, threads_y), 0, stream>>>(in, out, rows, w.row_length);
      break;
    }
    case TransposeMethod::tiled: {
      const RestDims rest = rest_dims(w);
      const int x_extent = static_cast<int>(w.x_extent), y_extent = static_cast<int>(w.y_extent);
      const int tiles = ((x_extent + kTile - 1) / kTile) * ((y_extent + kTile - 1) / kTile);
      const unsigned z_blocks = static_cast<unsigned>(std::min<int64_t>(rest.count, 65535));
      transpose_tiles<<<dim3(static_cast<unsigned>(tiles), z_blocks), dim3(kTile, 8), 0, stream>>>(
          in, out, rest, x_extent, y_extent, w.in_stride_y, w.out_stride_x);
      break;
    }
  }
  check_cuda(cudaGetLastError(), "transpose kernel launch");
}

}  // namespace mdh::peers
