#include "cudnn_conv.h"

#include <string>

namespace mdh::peers {

CudnnConvolution::CudnnConvolution(cudnnHandle_t handle, const ConvShape& shape) : handle_(handle) {
  const int spatial = static_cast<int>(shape.input_spatial.size());
  MDH_INTERNAL_ASSERT(spatial == static_cast<int>(shape.filter_spatial.size()) && (spatial == 2 || spatial == 3),
                      "convolution of 2 or 3 spatial dimensions");
  const cudnnTensorFormat_t format = shape.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  check_cudnn(cudnnCreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
  check_cudnn(cudnnCreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");

  // cuDNN's Nd descriptors list dimensions as N, C, spatial... whatever the memory format.
  std::vector<int> x_dims = {shape.batch, shape.in_channels};
  x_dims.insert(x_dims.end(), shape.input_spatial.begin(), shape.input_spatial.end());
  check_cudnn(cudnnSetTensorNdDescriptorEx(x_desc_, format, CUDNN_DATA_FLOAT, spatial + 2, x_dims.data()),
              "cudnnSetTensorNdDescriptorEx(input)");
  std::vector<int> w_dims = {shape.out_channels, shape.in_channels};
  w_dims.insert(w_dims.end(), shape.filter_spatial.begin(), shape.filter_spatial.end());
  check_cudnn(cudnnSetFilterNdDescriptor(w_desc_, CUDNN_DATA_FLOAT, format, spatial + 2, w_dims.data()),
              "cudnnSetFilterNdDescriptor");
  const std::vector<int> pads(spatial, 0), strides(spatial, 1), dilations(spatial, 1);
  check_cudnn(cudnnSetConvolutionNdDescriptor(conv_desc_, spatial, pads.data(), strides.data(), dilations.data(),
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolutionNdDescriptor");
  // FMA math: FP32 arithmetic only; the default would let cuDNN use TF32 tensor cores on Ampere and later.
  check_cudnn(cudnnSetConvolutionMathType(conv_desc_, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType(FMA)");

  std::vector<int> y_dims(spatial + 2);
  check_cudnn(cudnnGetConvolutionNdForwardOutputDim(conv_desc_, x_desc_, w_desc_, spatial + 2, y_dims.data()),
              "cudnnGetConvolutionNdForwardOutputDim");
  output_spatial_.assign(y_dims.begin() + 2, y_dims.end());
  check_cudnn(cudnnSetTensorNdDescriptorEx(y_desc_, format, CUDNN_DATA_FLOAT, spatial + 2, y_dims.data()),
              "cudnnSetTensorNdDescriptorEx(output)");

  int max_algorithms = 0;
  check_cudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(handle_, &max_algorithms),
              "cudnnGetConvolutionForwardAlgorithmMaxCount");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(max_algorithms));
  int returned = 0;
  check_cudnn(cudnnFindConvolutionForwardAlgorithm(handle_, x_desc_, w_desc_, conv_desc_, y_desc_, max_algorithms,
                                                   &returned, perf.data()),
              "cudnnFindConvolutionForwardAlgorithm");
  // Find sorts by time; take the fastest that succeeded without tensor-op (TF32) math.
  const cudnnConvolutionFwdAlgoPerf_t* chosen = nullptr;
  nlohmann::json candidates = nlohmann::json::array();
  for (int i = 0; i < returned; ++i) {
    const auto& p = perf[static_cast<size_t>(i)];
    const bool fp32 = p.mathType == CUDNN_DEFAULT_MATH || p.mathType == CUDNN_FMA_MATH;
    candidates.push_back({{"algo", static_cast<int>(p.algo)},
                          {"status", cudnnGetErrorString(p.status)},
                          {"time_ms", p.time},
                          {"workspace_bytes", p.memory},
                          {"math_type", static_cast<int>(p.mathType)}});
    if (!chosen && p.status == CUDNN_STATUS_SUCCESS && fp32) chosen = &p;
  }
  if (!chosen) throw UserError("cuDNN found no FP32 (FMA) forward algorithm for this convolution");
  algo_ = chosen->algo;
  check_cudnn(cudnnSetConvolutionMathType(conv_desc_, chosen->mathType), "cudnnSetConvolutionMathType");
  check_cudnn(
      cudnnGetConvolutionForwardWorkspaceSize(handle_, x_desc_, w_desc_, conv_desc_, y_desc_, algo_, &workspace_bytes_),
      "cudnnGetConvolutionForwardWorkspaceSize");
  workspace_ = device_floats((workspace_bytes_ + sizeof(float) - 1) / sizeof(float), "cuDNN workspace");
  description_ = {{"algo", static_cast<int>(algo_)},
                  {"math_type", static_cast<int>(chosen->mathType)},
                  {"workspace_bytes", workspace_bytes_},
                  {"find_results", candidates}};
}

CudnnConvolution::~CudnnConvolution() {
  cudnnDestroyConvolutionDescriptor(conv_desc_);
  cudnnDestroyFilterDescriptor(w_desc_);
  cudnnDestroyTensorDescriptor(y_desc_);
  cudnnDestroyTensorDescriptor(x_desc_);
}

void CudnnConvolution::run(const float* x, const float* w, float* y) {
  const float alpha = 1.0f, beta = 0.0f;
  check_cudnn(cudnnConvolutionForward(handle_, &alpha, x_desc_, x, w_desc_, w, conv_desc_, algo_, workspace_.get(),
                                      workspace_bytes_, &beta, y_desc_, y),
              "cudnnConvolutionForward");
}

}  // namespace mdh::peers
