#include "cudnn_conv.h"

#include <algorithm>
#include <string>

namespace mdh::peers {

const char* format_name(ConvFormat format) {
  return format == ConvFormat::nchw ? "NCHW" : "NHWC";
}

namespace {

cudnnTensorFormat_t cudnn_format(ConvFormat format) {
  return format == ConvFormat::nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
}

/// FP32: default and FMA math (NVIDIA_TF32_OVERRIDE=0 keeps the default from TF32). TF32 adds tensor-op math, but
/// never CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, whose products are in half precision.
bool allowed_math(cudnnMathType_t math, bool allow_tf32) {
  return math == CUDNN_DEFAULT_MATH || math == CUDNN_FMA_MATH || (allow_tf32 && math == CUDNN_TENSOR_OP_MATH);
}

}  // namespace

TensorLayout::TensorLayout(const std::vector<int>& nc_spatial, ConvFormat format) {
  check_cudnn(cudnnCreateTensorDescriptor(&desc_), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnSetTensorNdDescriptorEx(desc_, cudnn_format(format), CUDNN_DATA_FLOAT,
                                           static_cast<int>(nc_spatial.size()), nc_spatial.data()),
              "cudnnSetTensorNdDescriptorEx");
}

TensorLayout::~TensorLayout() {
  cudnnDestroyTensorDescriptor(desc_);
}

CudnnConvolution::CudnnConvolution(cudnnHandle_t handle, const ConvShape& shape, ConvFormat format, bool allow_tf32)
    : handle_(handle), allow_tf32_(allow_tf32) {
  const int spatial = static_cast<int>(shape.input_spatial.size());
  MDH_INTERNAL_ASSERT(spatial == static_cast<int>(shape.filter_spatial.size()) && (spatial == 2 || spatial == 3),
                      "convolution of 2 or 3 spatial dimensions");
  check_cudnn(cudnnCreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
  check_cudnn(cudnnCreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");

  // cuDNN's Nd descriptors list dimensions as N, C, spatial... whatever the memory format.
  std::vector<int> x_dims = {shape.batch, shape.in_channels};
  x_dims.insert(x_dims.end(), shape.input_spatial.begin(), shape.input_spatial.end());
  check_cudnn(cudnnSetTensorNdDescriptorEx(x_desc_, cudnn_format(format), CUDNN_DATA_FLOAT, spatial + 2, x_dims.data()),
              "cudnnSetTensorNdDescriptorEx(input)");
  std::vector<int> w_dims = {shape.out_channels, shape.in_channels};
  w_dims.insert(w_dims.end(), shape.filter_spatial.begin(), shape.filter_spatial.end());
  check_cudnn(cudnnSetFilterNdDescriptor(w_desc_, CUDNN_DATA_FLOAT, cudnn_format(format), spatial + 2, w_dims.data()),
              "cudnnSetFilterNdDescriptor");
  const std::vector<int> pads(spatial, 0), strides(spatial, 1), dilations(spatial, 1);
  check_cudnn(cudnnSetConvolutionNdDescriptor(conv_desc_, spatial, pads.data(), strides.data(), dilations.data(),
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolutionNdDescriptor");
  // FMA math: FP32 arithmetic only; the default would let cuDNN use TF32 tensor cores on Ampere and later. Tensor-op
  // math where TF32 is allowed, so that the heuristics and the search offer the tensor-core algorithms.
  math_ = allow_tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  check_cudnn(cudnnSetConvolutionMathType(conv_desc_, math_), "cudnnSetConvolutionMathType");

  std::vector<int> y_dims(spatial + 2);
  check_cudnn(cudnnGetConvolutionNdForwardOutputDim(conv_desc_, x_desc_, w_desc_, spatial + 2, y_dims.data()),
              "cudnnGetConvolutionNdForwardOutputDim");
  output_spatial_.assign(y_dims.begin() + 2, y_dims.end());
  check_cudnn(cudnnSetTensorNdDescriptorEx(y_desc_, cudnn_format(format), CUDNN_DATA_FLOAT, spatial + 2, y_dims.data()),
              "cudnnSetTensorNdDescriptorEx(output)");
}

CudnnConvolution::~CudnnConvolution() {
  cudnnDestroyConvolutionDescriptor(conv_desc_);
  cudnnDestroyFilterDescriptor(w_desc_);
  cudnnDestroyTensorDescriptor(y_desc_);
  cudnnDestroyTensorDescriptor(x_desc_);
}

std::vector<ConvAlgorithm> CudnnConvolution::algorithms(const float* x, const float* w, float* y, void* workspace,
                                                        size_t workspace_limit, nlohmann::json& report) {
  int max_algorithms = 0;
  check_cudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(handle_, &max_algorithms),
              "cudnnGetConvolutionForwardAlgorithmMaxCount");
  std::vector<ConvAlgorithm> found;
  auto add = [&found](const cudnnConvolutionFwdAlgoPerf_t& p, const std::string& source) {
    for (ConvAlgorithm& a : found)
      if (a.algo == p.algo && a.math == p.mathType) {
        if (a.found_by.find(source) == std::string::npos) a.found_by += "+" + source;
        return;
      }
    found.push_back({p.algo, p.mathType, p.memory, source});
  };
  auto describe = [](const cudnnConvolutionFwdAlgoPerf_t& p) {
    return nlohmann::json{{"algo", static_cast<int>(p.algo)},
                          {"status", cudnnGetErrorString(p.status)},
                          {"time_ms", p.time},
                          {"workspace_bytes", p.memory},
                          {"math_type", static_cast<int>(p.mathType)}};
  };
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(max_algorithms));
  int returned = 0;
  report["heuristic"] = nlohmann::json::array();
  check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle_, x_desc_, w_desc_, conv_desc_, y_desc_, max_algorithms,
                                                     &returned, perf.data()),
              "cudnnGetConvolutionForwardAlgorithm_v7");
  for (int i = 0; i < returned; ++i) {
    const auto& p = perf[static_cast<size_t>(i)];
    report["heuristic"].push_back(describe(p));
    if (p.status == CUDNN_STATUS_SUCCESS && allowed_math(p.mathType, allow_tf32_) && p.memory <= workspace_limit)
      add(p, "heuristic");
  }
  report["find"] = nlohmann::json::array();
  returned = 0;
  check_cudnn(
      cudnnFindConvolutionForwardAlgorithmEx(handle_, x_desc_, x, w_desc_, w, conv_desc_, y_desc_, y, max_algorithms,
                                             &returned, perf.data(), workspace, workspace_limit),
      "cudnnFindConvolutionForwardAlgorithmEx");
  for (int i = 0; i < returned; ++i) {
    const auto& p = perf[static_cast<size_t>(i)];
    report["find"].push_back(describe(p));
    if (p.status == CUDNN_STATUS_SUCCESS && allowed_math(p.mathType, allow_tf32_) && p.memory <= workspace_limit)
      add(p, "find");
  }
  return found;
}

void CudnnConvolution::run(const ConvAlgorithm& a, const float* x, const float* w, float* y, void* workspace) const {
  const float alpha = 1.0f, beta = 0.0f;
  if (a.math != math_) {
    check_cudnn(cudnnSetConvolutionMathType(conv_desc_, a.math), "cudnnSetConvolutionMathType");
    math_ = a.math;
  }
  check_cudnn(cudnnConvolutionForward(handle_, &alpha, x_desc_, x, w_desc_, w, conv_desc_, a.algo, workspace,
                                      a.workspace_bytes, &beta, y_desc_, y),
              "cudnnConvolutionForward");
}

}  // namespace mdh::peers
