// One cuDNN forward convolution (2D or 3D, NCHW or NHWC, stride 1, no padding, cross-correlation; FP32 FMA math
// without TF32, or tensor-op math where TF32 is allowed) and the algorithms cuDNN 9 offers for it: the union of
// cudnnGetConvolutionForwardAlgorithm_v7's heuristics and cudnnFindConvolutionForwardAlgorithmEx's runs that succeed
// in an allowed math type (never a conversion to half) within a workspace limit.
#pragma once

#include <cudnn.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda_check.h"

namespace mdh::peers {

enum class ConvFormat { nchw, nhwc };
const char* format_name(ConvFormat format);

struct ConvShape {
  int batch = 1, in_channels = 1, out_channels = 1;
  std::vector<int> input_spatial;   // H, W (or D, H, W): the input as stored, halo included
  std::vector<int> filter_spatial;  // R, S (or T, R, S)
};

struct ConvAlgorithm {
  cudnnConvolutionFwdAlgo_t algo{};
  cudnnMathType_t math{};
  size_t workspace_bytes = 0;
  std::string found_by;  // "find", "heuristic" or both
};

class CudnnConvolution {
 public:
  /// `allow_tf32`: tensor-op math with TF32 products (its algorithms and the FP32 ones compete); else FMA math only.
  CudnnConvolution(cudnnHandle_t handle, const ConvShape& shape, ConvFormat format, bool allow_tf32);
  ~CudnnConvolution();
  CudnnConvolution(const CudnnConvolution&) = delete;
  CudnnConvolution& operator=(const CudnnConvolution&) = delete;

  /// The algorithms of an allowed math type that ran (find) or are offered (heuristic) with at most `workspace_limit`
  /// bytes, on the device buffers x, w, y (of this convolution's format) and `workspace`.
  std::vector<ConvAlgorithm> algorithms(const float* x, const float* w, float* y, void* workspace,
                                        size_t workspace_limit, nlohmann::json& report);
  /// Enqueues y = conv(x, w) with `algorithm` on the handle's stream.
  void run(const ConvAlgorithm& algorithm, const float* x, const float* w, float* y, void* workspace) const;
  /// The output's spatial extents as cuDNN computes them.
  const std::vector<int>& output_spatial() const { return output_spatial_; }

 private:
  cudnnHandle_t handle_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  std::vector<int> output_spatial_;
  bool allow_tf32_ = false;
  mutable cudnnMathType_t math_ = CUDNN_FMA_MATH;  // set on conv_desc_
};

/// A 4-D (or 5-D) tensor of extents N, C, spatial... in `format` (cudnnTransformTensor converts between two).
class TensorLayout {
 public:
  TensorLayout(const std::vector<int>& nc_spatial, ConvFormat format);
  ~TensorLayout();
  TensorLayout(const TensorLayout&) = delete;
  TensorLayout& operator=(const TensorLayout&) = delete;
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

}  // namespace mdh::peers
