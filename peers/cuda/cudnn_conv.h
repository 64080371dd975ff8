// One cuDNN forward convolution (2D or 3D, NCHW or NHWC, stride 1, no padding, cross-correlation), its algorithm
// chosen by cudnnFindConvolutionForwardAlgorithm among the FP32 FMA algorithms (no TF32), with its workspace.
#pragma once

#include <cudnn.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "cuda_check.h"

namespace mdh::peers {

struct ConvShape {
  bool channels_last = false;  // NHWC input/output and KRSC filter; else NCHW and KCRS
  int batch = 1, in_channels = 1, out_channels = 1;
  std::vector<int> input_spatial;   // H, W (or D, H, W): the input as stored, halo included
  std::vector<int> filter_spatial;  // R, S (or T, R, S)
};

class CudnnConvolution {
 public:
  CudnnConvolution(cudnnHandle_t handle, const ConvShape& shape);
  ~CudnnConvolution();
  CudnnConvolution(const CudnnConvolution&) = delete;
  CudnnConvolution& operator=(const CudnnConvolution&) = delete;

  /// Enqueues y = conv(x, w) on the handle's stream.
  void run(const float* x, const float* w, float* y);
  /// The output's spatial extents as cuDNN computes them.
  const std::vector<int>& output_spatial() const { return output_spatial_; }
  /// The chosen algorithm, its math type, workspace bytes and every candidate Find timed.
  nlohmann::json describe() const { return description_; }

 private:
  cudnnHandle_t handle_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_{};
  DeviceFloats workspace_;
  size_t workspace_bytes_ = 0;
  std::vector<int> output_spatial_;
  nlohmann::json description_;
};

}  // namespace mdh::peers
