// peer_cuda: the CUDA peers (--peer NAME) on an NVIDIA GPU, in FP32 without TF32 or, with --precision tf32, with
// TF32 tensor-core products where the library offers them: cublas, cublaslt (GEMM), cudnn (Gaussian, Jacobi 3D,
// MCC), im2col_cublas (MCC), cuda_stencil (Gaussian, Jacobi 3D), ttgt_lib (tensor contractions), prl_cuda (PRL).
// cublas and cublaslt also multiply half and bfloat16 inputs, on the tensor cores. Each is checked against mdh's
// reference on the OpenCL --device before it is timed. Steady time: N calls back to back between one CUDA event pair.
// Device time: one event pair around one call. Call time: host wall time of one call until cudaStreamSynchronize
// returns.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "cublas_gemm_types.h"
#include "cuda_state.h"

namespace mdh::peers {
namespace {

struct CudaPeer {
  const char* name;
  const char* routines;  // for messages
  PrepareCudaPeer prepare;
  const char* library;            // what computes, for library_version
  const char* tf32_routines;      // the routines whose products it can compute in TF32 (a GEMM or a convolution)
  const char* two_byte_routines;  // the routines it computes on half and bfloat16 inputs (cublas_gemm_types.h)
};

const CudaPeer kCudaPeers[] = {
    {"cublas", "gemm, gemm_nt, gemv, dot", prepare_cublas, "cuBLAS", "gemm, gemm_nt", "gemm, gemm_nt"},
    {"cublaslt", "gemm, gemm_nt", prepare_cublaslt, "cuBLASLt", "gemm, gemm_nt", "gemm, gemm_nt"},
    {"cudnn", "gaussian, jacobi3d, mcc", prepare_cudnn, "cuDNN", "gaussian, jacobi3d, mcc", ""},
    {"im2col_cublas", "mcc", prepare_im2col_cublas, "own im2col kernel + cuBLAS", "mcc", ""},
    {"cuda_stencil", "gaussian, jacobi3d", prepare_cuda_stencil, "own CUDA stencil kernels", "", ""},
    {"ttgt_lib", "tc*", prepare_ttgt_lib, "own tiled transposes + cuBLAS geam/SGEMM", "tc*", ""},
    {"prl_cuda", "prl", prepare_prl_cuda, "own CUDA kernel", "", ""},
};

/// The peer a routine gets without --peer (the library row of each routine).
std::string default_peer(const PeerCase& pc) {
  const std::string& routine = pc.options().routine;
  if (routine == "gaussian" || routine == "jacobi3d" || routine == "mcc") return "cudnn";
  if (routine == "prl") return "prl_cuda";
  if (routine.rfind("tc", 0) == 0 || pc.mdh().name.rfind("tc_", 0) == 0) return "ttgt_lib";
  return "cublas";
}

/// Whether the case's routine is in `routines` (a peer's list; "tc*": every contraction). Checked before CUDA is
/// touched, so a wrong pairing is a user error on any machine.
bool offers(const char* routines, const PeerCase& pc) {
  const std::string& routine = pc.options().routine;
  const std::string list = std::string(routines) + ", ";
  if (list.find("tc*") != std::string::npos && (routine.rfind("tc", 0) == 0 || pc.mdh().name.rfind("tc_", 0) == 0))
    return true;
  return list.find(routine + ", ") != std::string::npos;
}

std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string library_versions() {
  int cublas = 0;
  cublasHandle_t probe = nullptr;
  if (cublasCreate(&probe) == CUBLAS_STATUS_SUCCESS) {
    cublasGetVersion(probe, &cublas);
    cublasDestroy(probe);
  }
  return "cuBLAS " + std::to_string(cublas) + ", cuBLASLt " + std::to_string(cublasLtGetVersion()) + ", cuDNN " +
         std::to_string(cudnnGetVersion());
}

PeerSetup prepare_cuda(PeerCase& pc) {
  const auto peer_option = pc.options().extra.find("peer");
  const std::string peer_name = peer_option == pc.options().extra.end() ? default_peer(pc) : peer_option->second;
  const CudaPeer* peer = nullptr;
  std::string known;
  for (const CudaPeer& p : kCudaPeers) {
    known += std::string(known.empty() ? "" : ", ") + p.name + " (" + p.routines + ")";
    if (peer_name == p.name) peer = &p;
  }
  if (!peer) throw UserError("no peer '" + peer_name + "'; it offers " + known);
  if (!offers(peer->routines, pc))
    throw UserError("--peer " + peer_name + " has no routine '" + pc.options().routine + "' (it offers " +
                    peer->routines + ")");
  const ComputePrecision precision = pc.options().precision;
  const bool tf32 = precision == ComputePrecision::tf32;
  if (tf32 && !offers(peer->tf32_routines, pc))
    throw UserError("--peer " + peer_name + " computes '" + pc.options().routine + "' in fp32 only" +
                    (*peer->tf32_routines ? std::string(" (tf32: ") + peer->tf32_routines + ")" : std::string()));
  // Inputs stored in 2 bytes: only the GEMMs of cuBLAS and cuBLASLt take them, with their types checked here too.
  const std::optional<ScalarType> inputs = input_scalar_type(pc.mdh());
  const bool two_byte_inputs = std::any_of(pc.mdh().buffers.begin(), pc.mdh().buffers.end(), [](const Buffer& b) {
    return b.kind == BufferKind::Input && !b.type.is_struct() && is_storage_only(b.type.scalar);
  });
  if (two_byte_inputs) {
    if (!offers(peer->two_byte_routines, pc))
      throw UserError("--peer " + peer_name + " computes '" + pc.options().routine + "' on float inputs only" +
                      (*peer->two_byte_routines ? std::string(" (half, bfloat16: ") + peer->two_byte_routines + ")"
                                                : std::string()));
    cublas_gemm_case(pc);  // A and B of one type from here on
  }
  // main() sets NVIDIA_TF32_OVERRIDE=0, which rules out TF32 in every NVIDIA library whatever the math modes say;
  // for TF32 it goes before cuBLAS and cuDNN initialise (below), so that the math modes set here decide.
  if (tf32) unsetenv("NVIDIA_TF32_OVERRIDE");

  // Before anything touches CUDA: a machine without a usable driver or device is not an error of the case.
  const auto device_option = pc.options().extra.find("cuda-device");
  const int device = device_option == pc.options().extra.end() ? 0 : std::stoi(device_option->second);
  int device_count = 0;
  const cudaError_t found = cudaGetDeviceCount(&device_count);
  if (found != cudaSuccess || device_count <= device)
    throw PeerUnavailable(found != cudaSuccess ? std::string("no usable CUDA driver (") + cudaGetErrorName(found) + ")"
                                               : "no CUDA device " + std::to_string(device));
  check_cuda(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
  cudaDeviceProp props{};
  check_cuda(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
  int runtime_version = 0, driver_version = 0;
  check_cuda(cudaRuntimeGetVersion(&runtime_version), "cudaRuntimeGetVersion");
  check_cuda(cudaDriverGetVersion(&driver_version), "cudaDriverGetVersion");

  auto s = std::make_shared<CudaState>();
  check_cuda(cudaStreamCreate(&s->stream), "cudaStreamCreate");
  check_cuda(cudaEventCreate(&s->start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&s->stop), "cudaEventCreate");
  check_cublas(cublasCreate(&s->cublas), "cublasCreate");
  check_cublas(cublasSetStream(s->cublas, s->stream), "cublasSetStream");
  // FP32: default math never converts FP32 GEMMs to TF32, and NVIDIA_TF32_OVERRIDE=0 (set in main) rules out the
  // global override. TF32: every SGEMM of this handle (cublas, im2col_cublas, ttgt_lib) on the tensor cores.
  check_cublas(cublasSetMathMode(s->cublas, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
               "cublasSetMathMode");

  PeerSetup setup;
  setup.peer = peer->name;
  setup.precision = precision;
  setup.library_version = std::string(peer->library) + " (" + library_versions() + ")";
  setup.device_name = props.name;
  setup.notes["cuda_runtime"] = cuda_version_text(runtime_version);
  setup.notes["cuda_driver"] = cuda_version_text(driver_version);
  setup.notes["math"] =
      two_byte_inputs
          ? std::string(*inputs == ScalarType::Half ? "FP16" : "BF16") +
                " inputs on the tensor cores, float accumulation (CUBLAS_COMPUTE_32F) in fp32 and tf32 alike: the "
                "products of 2-byte values are exact in both"
      : tf32 ? "TF32: CUBLAS_TF32_TENSOR_OP_MATH, cuBLASLt CUBLAS_COMPUTE_32F_FAST_TF32, cuDNN CUDNN_TENSOR_OP_MATH "
               "(FP32 algorithms compete too), NVIDIA_TF32_OVERRIDE unset"
             : "FP32: CUBLAS_DEFAULT_MATH, CUBLAS_COMPUTE_32F, cuDNN CUDNN_FMA_MATH, NVIDIA_TF32_OVERRIDE=0";
  setup.steady_time_includes =
      "n calls enqueued back to back on one stream between one pair of CUDA events: every kernel and library call "
      "of each call (transforms, transposes, im2col included), the gaps between them, no host synchronisation";
  setup.device_time_includes = "one pair of CUDA events recorded on the stream around one call (every kernel of it)";
  setup.call_time_includes =
      "host wall time from the call until cudaStreamSynchronize returns (operands already on the device; handles, "
      "descriptors, algorithm searches and workspaces set up before), in a call of its own after each timed one, "
      "without the event records";
  peer->prepare(pc, *s, setup);
  MDH_INTERNAL_ASSERT(s->enqueue && s->output, "a CUDA peer set up without a call or an output");
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after set-up");

  setup.run_once = [s] {
    const double begin = now_ns();
    check_cuda(cudaEventRecord(s->start, s->stream), "cudaEventRecord");
    s->enqueue();
    check_cuda(cudaEventRecord(s->stop, s->stream), "cudaEventRecord");
    check_cuda(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
    const double wall = now_ns() - begin;
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, s->start, s->stop), "cudaEventElapsedTime");
    return RunTimes{static_cast<double>(ms) * 1e6, wall};
  };
  setup.plain_call = [s] {
    const double begin = now_ns();
    s->enqueue();
    check_cuda(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
    return now_ns() - begin;
  };
  setup.steady_calls = [s](int n) {
    check_cuda(cudaEventRecord(s->start, s->stream), "cudaEventRecord");
    for (int i = 0; i < n; ++i) s->enqueue();
    check_cuda(cudaEventRecord(s->stop, s->stream), "cudaEventRecord");
    check_cuda(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, s->start, s->stop), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e6;
  };
  setup.read_output = [&pc, s] {
    HostBuffer out = pc.make_output();
    const size_t bytes = s->output_count * s->output_element_size;
    if (out.bytes.size() != bytes)
      throw UserError("the peer's output holds " + std::to_string(bytes) + " bytes, the spec's " +
                      std::to_string(out.bytes.size()));
    check_cuda(cudaMemcpy(out.bytes.data(), s->output, out.bytes.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(output)");
    return out;
  };
  return setup;
}

}  // namespace
}  // namespace mdh::peers

int main(int argc, char** argv) {
  // Before any CUDA library initialises; prepare_cuda unsets it again for --precision tf32.
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);
  return mdh::peers::peer_main(
      argc, argv, "peer_cuda",
      {{"peer", "cublas, cublaslt, cudnn, im2col_cublas, cuda_stencil, ttgt_lib or prl_cuda (default: by routine)"},
       {"cuda-device", "CUDA device index (default 0)"}},
      mdh::peers::prepare_cuda);
}
