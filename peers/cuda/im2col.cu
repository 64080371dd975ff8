#include "im2col.h"

namespace mdh::peers {
namespace {

// One block per row of the column matrix (an output position) and filter row r; its threads copy the S*C
// contiguous floats of input row p + r (channels innermost on both sides), float4 where C allows: reads and writes
// are contiguous, and the divisions happen once per block, not per element.
template <typename Vector>
__global__ void im2col_rows(const Vector* __restrict__ in, Vector* __restrict__ columns, Im2colShape s, int lanes) {
  const int row = blockIdx.x;  // (n*P + p)*Q + q
  const int r = blockIdx.y;
  const int q = row % s.out_width, p = (row / s.out_width) % s.out_height, n = row / (s.out_width * s.out_height);
  const int span = s.filter_width * lanes;  // S*C in vectors: input row p+r, columns q .. q+S-1, all channels
  const Vector* src = in + ((static_cast<size_t>(n) * s.height + p + r) * s.width + q) * lanes;
  Vector* dst = columns + (static_cast<size_t>(row) * s.filter_height + r) * span;
  for (int t = threadIdx.x; t < span; t += blockDim.x) dst[t] = src[t];
}

}  // namespace

cudaError_t launch_im2col_nhwc(const float* in, float* columns, const Im2colShape& s, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(s.batch * s.out_height * s.out_width), static_cast<unsigned>(s.filter_height));
  const int threads = 128;
  if (s.channels % 4 == 0 && reinterpret_cast<size_t>(in) % 16 == 0 && reinterpret_cast<size_t>(columns) % 16 == 0)
    im2col_rows<float4><<<grid, threads, 0, stream>>>(reinterpret_cast<const float4*>(in),
                                                      reinterpret_cast<float4*>(columns), s, s.channels / 4);
  else
    im2col_rows<float><<<grid, threads, 0, stream>>>(in, columns, s, s.channels);
  return cudaGetLastError();
}

}  // namespace mdh::peers
