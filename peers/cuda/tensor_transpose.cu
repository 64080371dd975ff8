#include <algorithm>

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

}  // namespace

TensorTranspose::TensorTranspose(const std::vector<int64_t>& in_extents, const std::vector<int>& perm) {
  const int rank = static_cast<int>(in_extents.size());
  MDH_INTERNAL_ASSERT(rank >= 1 && rank <= kMaxTransposeRank && static_cast<int>(perm.size()) == rank,
                      "transpose rank out of range");
  // Groups of output dimensions whose input dimensions follow one another: each becomes one dimension.
  std::vector<std::pair<int, int>> groups;  // (first input dim, count), in output order
  for (int d = 0; d < rank; ++d) {
    if (!groups.empty() && perm[d] == groups.back().first + groups.back().second)
      ++groups.back().second;
    else
      groups.emplace_back(perm[d], 1);
  }
  std::vector<int> by_input(groups.size());  // group indices sorted by their first input dimension
  for (size_t g = 0; g < groups.size(); ++g) by_input[g] = static_cast<int>(g);
  std::sort(by_input.begin(), by_input.end(), [&groups](int a, int b) {
    return groups[static_cast<size_t>(a)].first < groups[static_cast<size_t>(b)].first;
  });
  extents_.assign(groups.size(), 1);
  perm_.assign(groups.size(), 0);
  for (size_t position = 0; position < by_input.size(); ++position) {
    const auto& [first, count] = groups[static_cast<size_t>(by_input[position])];
    for (int i = first; i < first + count; ++i) extents_[position] *= in_extents[static_cast<size_t>(i)];
    perm_[static_cast<size_t>(by_input[position])] = static_cast<int>(position);
  }
  const int merged = static_cast<int>(extents_.size());
  if (merged == 1)
    method_ = Method::none;
  else if (merged == 2)
    method_ = Method::geam;
  else if (perm_.back() == merged - 1)
    method_ = Method::rows;
  else
    method_ = Method::tiled;
}

std::string TensorTranspose::describe() const {
  switch (method_) {
    case Method::none:
      return "none";
    case Method::geam:
      return "cublasSgeam 2-D transpose (" + std::to_string(extents_[0]) + " x " + std::to_string(extents_[1]) + ")";
    case Method::rows:
      return "row copy (rows of " + std::to_string(extents_.back()) + " floats, " + std::to_string(extents_.size()) +
             " merged dimensions)";
    case Method::tiled:
      return "tiled 32x32 shared-memory transpose (innermost " + std::to_string(extents_.back()) + " in, " +
             std::to_string(extents_[static_cast<size_t>(perm_.back())]) + " out; " + std::to_string(extents_.size()) +
             " merged dimensions)";
  }
  return "";
}

void TensorTranspose::enqueue(const float* in, float* out, cudaStream_t stream, cublasHandle_t handle) const {
  const int rank = static_cast<int>(extents_.size());
  std::vector<int64_t> in_stride(static_cast<size_t>(rank)), out_stride_of_input(static_cast<size_t>(rank));
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i)
    in_stride[static_cast<size_t>(i)] = stride, stride *= extents_[static_cast<size_t>(i)];
  stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int i = perm_[static_cast<size_t>(d)];
    out_stride_of_input[static_cast<size_t>(i)] = stride;
    stride *= extents_[static_cast<size_t>(i)];
  }
  // The dimensions the threads do not walk, in output order.
  auto rest_without = [&](int x, int y) {
    RestDims r;
    for (int d = 0; d < rank; ++d) {
      const int i = perm_[static_cast<size_t>(d)];
      if (i == x || i == y) continue;
      r.extent[r.rank] = extents_[static_cast<size_t>(i)];
      r.in_stride[r.rank] = in_stride[static_cast<size_t>(i)];
      r.out_stride[r.rank] = out_stride_of_input[static_cast<size_t>(i)];
      r.count *= r.extent[r.rank];
      ++r.rank;
    }
    return r;
  };
  switch (method_) {
    case Method::none:
      check_cuda(
          cudaMemcpyAsync(out, in, static_cast<size_t>(stride) * sizeof(float), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
      return;
    case Method::geam: {
      // Row-major [X0][X1] is column-major X1 x X0; its transpose, column-major X0 x X1, is row-major [X1][X0].
      const int x0 = static_cast<int>(extents_[0]), x1 = static_cast<int>(extents_[1]);
      const float one = 1.0f, zero = 0.0f;
      check_cublas(cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, x0, x1, &one, in, x1, &zero, out, x0, out, x0),
                   "cublasSgeam");
      return;
    }
    case Method::rows: {
      const RestDims rows = rest_without(rank - 1, rank - 1);
      const int64_t length = extents_.back();
      const int threads_x = length >= 128 ? 128 : length >= 64 ? 64 : 32;
      const int threads_y = 256 / threads_x;
      const int64_t blocks = std::min<int64_t>((rows.count + threads_y - 1) / threads_y, 65535LL * 32);
      copy_rows<<<static_cast<unsigned>(blocks), dim3(threads_x, threads_y), 0, stream>>>(in, out, rows, length);
      break;
    }
    case Method::tiled: {
      const int x = rank - 1, y = perm_.back();
      const RestDims rest = rest_without(x, y);
      const int x_extent = static_cast<int>(extents_[static_cast<size_t>(x)]);
      const int y_extent = static_cast<int>(extents_[static_cast<size_t>(y)]);
      const int tiles = ((x_extent + kTile - 1) / kTile) * ((y_extent + kTile - 1) / kTile);
      const unsigned z_blocks = static_cast<unsigned>(std::min<int64_t>(rest.count, 65535));
      transpose_tiles<<<dim3(static_cast<unsigned>(tiles), z_blocks), dim3(kTile, 8), 0, stream>>>(
          in, out, rest, x_extent, y_extent, in_stride[static_cast<size_t>(y)],
          out_stride_of_input[static_cast<size_t>(x)]);
      break;
    }
  }
  check_cuda(cudaGetLastError(), "transpose kernel launch");
}

}  // namespace mdh::peers
