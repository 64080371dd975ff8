// What every CUDA peer shares: the handles, the stream, the events and the device buffers of one routine, the call
// it enqueues, and a brief timing of candidate calls for the peers that pick the fastest of several at set-up.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "peers/peer_common.h"

namespace mdh::peers {

struct CudaState {
  cublasHandle_t cublas = nullptr;
  cublasLtHandle_t cublas_lt = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<DeviceFloats> buffers;
  float* output = nullptr;  // the output's device memory (of output_element_size bytes per element)
  size_t output_count = 0;
  size_t output_element_size = sizeof(float);     // 2 for half and bfloat16 outputs
  std::function<void()> enqueue;                  // one whole call on `stream`
  std::vector<std::shared_ptr<void>> keep_alive;  // descriptors and plans the enqueue uses

  CudaState() = default;
  CudaState(const CudaState&) = delete;
  CudaState& operator=(const CudaState&) = delete;
  ~CudaState() {
    keep_alive.clear();
    if (cudnn) cudnnDestroy(cudnn);
    if (cublas_lt) cublasLtDestroy(cublas_lt);
    if (cublas) cublasDestroy(cublas);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  }
  float* upload(const std::vector<float>& host, const std::string& what) {
    buffers.push_back(device_floats(host.size(), what));
    check_cuda(cudaMemcpy(buffers.back().get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
               "cudaMemcpy(" + what + ")");
    return buffers.back().get();
  }
  /// A buffer exactly as mdh holds it (half and bfloat16: their 2-byte bit patterns, which CUDA's types share).
  const void* upload_bytes(const HostBuffer& host) {
    buffers.push_back(device_floats((host.bytes.size() + sizeof(float) - 1) / sizeof(float), host.name));
    check_cuda(cudaMemcpy(buffers.back().get(), host.bytes.data(), host.bytes.size(), cudaMemcpyHostToDevice),
               "cudaMemcpy(" + host.name + ")");
    return buffers.back().get();
  }
  float* allocate(size_t count, const std::string& what) {
    buffers.push_back(device_floats(count, what));
    return buffers.back().get();
  }
  /// Device time per call of `calls` calls of `candidate` back to back between one event pair, after two warm-up
  /// calls: how set-up compares candidates (algorithms, block shapes, plans) before the measured runs.
  double time_candidate_ns(const std::function<void()>& candidate, int calls = 10) {
    for (int w = 0; w < 2; ++w) candidate();
    check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int c = 0; c < calls; ++c) candidate();
    check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e6 / calls;
  }
};

/// Sets up one routine of one CUDA peer: fills `setup` (peer, library_version, layouts, notes) and `state`
/// (buffers, output, enqueue). UserError where the peer does not offer the routine.
using PrepareCudaPeer = void (*)(PeerCase& pc, CudaState& state, PeerSetup& setup);

void prepare_cublas(PeerCase& pc, CudaState& s, PeerSetup& setup);         // gemm, gemm_nt, gemv, dot
void prepare_cublaslt(PeerCase& pc, CudaState& s, PeerSetup& setup);       // gemm, gemm_nt
void prepare_cudnn(PeerCase& pc, CudaState& s, PeerSetup& setup);          // gaussian, jacobi3d, mcc
void prepare_im2col_cublas(PeerCase& pc, CudaState& s, PeerSetup& setup);  // mcc
void prepare_cuda_stencil(PeerCase& pc, CudaState& s, PeerSetup& setup);   // gaussian, jacobi3d
void prepare_ttgt_lib(PeerCase& pc, CudaState& s, PeerSetup& setup);       // tc*
void prepare_prl_cuda(PeerCase& pc, CudaState& s, PeerSetup& setup);       // prl

}  // namespace mdh::peers
