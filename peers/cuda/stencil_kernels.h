// The cuda_stencil peer's kernels: Gaussian 5x5 (apps/gaussian.mdh) and Jacobi 3D 7-point (apps/jacobi3d.mdh) with
// their weights as compile-time constants, each in a few variants and block shapes; set-up times them all and keeps
// the fastest.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace mdh::peers {

struct StencilVariant {
  std::string name;  // e.g. "smem 32x8, 4 rows per thread"
  // Enqueues out = stencil(in) for the extents of the output (2D: i, j; 3D: i, j, k); returns the launch status.
  cudaError_t (*launch)(const float* in, float* out, int i, int j, int k, cudaStream_t stream);
};

/// Gaussian: in (I+4) x (J+4), out I x J, out = sum k[r][c] * in[i+r][j+c] / 159 (k unused).
const std::vector<StencilVariant>& gaussian_variants();
/// Jacobi 3D: in (I+2) x (J+2) x (K+2), out I x J x K, the spec's 7 weights in its order of terms.
const std::vector<StencilVariant>& jacobi3d_variants();

}  // namespace mdh::peers
