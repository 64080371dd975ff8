// A tensor permutation on the GPU for TTGT contractions, as a library would do it: dimensions that stay adjacent are
// merged first; a 2-D transpose is cublasSgeam; a permutation that keeps the innermost dimension copies contiguous
// rows; any other is a tiled shared-memory transpose of ours, coalesced on both sides (reads along the input's
// innermost dimension, writes along the output's). Index arithmetic is done per row or per tile, not per element.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::peers {

constexpr int kMaxTransposeRank = 8;

class TensorTranspose {
 public:
  /// `in_extents` in the input's storage order (row-major); output dimension d is input dimension perm[d].
  TensorTranspose(const std::vector<int64_t>& in_extents, const std::vector<int>& perm);
  /// No data moves: the permutation is the identity once adjacent dimensions are merged.
  bool identity() const { return method_ == Method::none; }
  /// "none", "cublasSgeam", "row copy (rows of L floats)" or "tiled 32x32 (X x Y)".
  std::string describe() const;
  /// Enqueues out = permute(in) on `stream` (cuBLAS `handle` must use the same stream); throws UserError on failure.
  void enqueue(const float* in, float* out, cudaStream_t stream, cublasHandle_t handle) const;

 private:
  enum class Method { none, geam, rows, tiled } method_ = Method::none;
  std::vector<int64_t> extents_;  // the merged input dimensions, in input order
  std::vector<int> perm_;         // on the merged dimensions
};

}  // namespace mdh::peers
