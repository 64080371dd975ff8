// Status checks for CUDA, cuBLAS and cuDNN calls: every failure becomes a UserError naming the call and the status.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <memory>
#include <string>

#include "support/error.h"

namespace mdh::peers {

inline void check_cuda(cudaError_t status, const std::string& what) {
  if (status != cudaSuccess)
    throw UserError(what + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}
inline void check_cublas(cublasStatus_t status, const std::string& what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw UserError(what + " failed: " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")");
}
inline void check_cudnn(cudnnStatus_t status, const std::string& what) {
  if (status != CUDNN_STATUS_SUCCESS) throw UserError(what + " failed: " + cudnnGetErrorString(status));
}

struct CudaFree {
  void operator()(void* p) const { cudaFree(p); }
};
/// Device memory of `count` floats (or bytes, for workspaces), freed with the owner.
using DeviceFloats = std::unique_ptr<float, CudaFree>;
inline DeviceFloats device_floats(size_t count, const std::string& what) {
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, (count > 0 ? count : 1) * sizeof(float)), "cudaMalloc(" + what + ")");
  return DeviceFloats(static_cast<float*>(p));
}

}  // namespace mdh::peers
