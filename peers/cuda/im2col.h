// im2col for an NHWC input: the (r, s) windows of every output position as rows of a matrix, so that a convolution
// becomes one GEMM with the KRSC filter (the im2col_cublas peer).
#pragma once

#include <cuda_runtime_api.h>

namespace mdh::peers {

struct Im2colShape {
  int batch, height, width, channels;  // the input N x H x W x C (pre-padded)
  int filter_height, filter_width;     // R, S
  int out_height, out_width;           // P = H - R + 1, Q = W - S + 1
};

/// columns[(n*P + p)*Q + q][(r*S + s)*C + c] = in[n][p + r][q + s][c], enqueued on `stream`; returns the launch status.
cudaError_t launch_im2col_nhwc(const float* in, float* columns, const Im2colShape& shape, cudaStream_t stream);

}  // namespace mdh::peers
