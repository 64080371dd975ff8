// peer_cuda: cuBLAS (SGEMM NN/NT, SGEMV, SDOT), cuDNN (Gaussian as a one-channel conv2d, Jacobi 3D as a conv3d,
// MCC as an NHWC conv2d) and TTGT tensor contractions (own permute kernel + one cuBLAS SGEMM) on an NVIDIA GPU,
// all in FP32 without TF32. Device time: CUDA events recorded around the call on its stream. Call time: host wall
// time from the call until cudaDeviceSynchronize returns. Checked against mdh's reference on the OpenCL --device.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "cuda_check.h"
#include "cudnn_conv.h"
#include "peers/peer_common.h"
#include "permute.h"

namespace mdh::peers {
namespace {

/// The handles, stream, events and device buffers of one routine; `enqueue` issues one whole call on `stream`.
struct CudaState {
  cublasHandle_t cublas = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<DeviceFloats> buffers;
  float* output = nullptr;
  size_t output_count = 0;
  std::unique_ptr<CudnnConvolution> conv;
  std::function<void()> enqueue;

  ~CudaState() {
    conv.reset();
    if (cudnn) cudnnDestroy(cudnn);
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
  float* allocate(size_t count, const std::string& what) {
    buffers.push_back(device_floats(count, what));
    return buffers.back().get();
  }
};

std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

/// cuBLAS is column-major: a row-major X (r x c) is the column-major X^T, so row-major C = A B is computed as the
/// column-major C^T = B^T A^T, i.e. Sgemm(n, m, k) with the operands swapped.
void prepare_blas(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  const std::string& routine = pc.options().routine;
  if (routine == "gemm" || routine == "gemm_nt") {
    const bool nt = routine == "gemm_nt";
    pc.require_md_hom(nt ? "gemm_nt" : "gemm");
    const int m = static_cast<int>(pc.size("I")), n = static_cast<int>(pc.size("J")),
              k = static_cast<int>(pc.size("K"));
    const float* a = s.upload(float_values(pc.input("A")), "A");
    const float* b = s.upload(float_values(pc.input("B")), "B");
    s.output_count = static_cast<size_t>(m) * n;
    s.output = s.allocate(s.output_count, "C");
    setup.layouts =
        nt ? "row-major A MxK, B NxK, C MxN; cublasSgemm(OP_T, OP_N, N, M, K, B, ldb=K, A, lda=K, C, ldc=N)"
           : "row-major A MxK, B KxN, C MxN; cublasSgemm(OP_N, OP_N, N, M, K, B, ldb=N, A, lda=K, C, ldc=N)";
    s.enqueue = [&s, a, b, m, n, k, nt] {
      const float alpha = 1.0f, beta = 0.0f;
      check_cublas(cublasSgemm(s.cublas, nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, nt ? k : n, a,
                               k, &beta, s.output, n),
                   "cublasSgemm");
    };
  } else if (routine == "gemv") {
    pc.require_md_hom("gemv");
    const int m = static_cast<int>(pc.size("I")), k = static_cast<int>(pc.size("K"));
    const float* a = s.upload(float_values(pc.input("A")), "A");
    const float* x = s.upload(float_values(pc.input("x")), "x");
    s.output_count = static_cast<size_t>(m);
    s.output = s.allocate(s.output_count, "y");
    setup.layouts = "row-major A MxK (= column-major KxM), x, y contiguous; cublasSgemv(OP_T, K, M, A, lda=K)";
    s.enqueue = [&s, a, x, m, k] {
      const float alpha = 1.0f, beta = 0.0f;
      check_cublas(cublasSgemv(s.cublas, CUBLAS_OP_T, k, m, &alpha, a, k, x, 1, &beta, s.output, 1), "cublasSgemv");
    };
  } else {
    pc.require_md_hom("dot");
    const int n = static_cast<int>(pc.size("K"));
    const float* x = s.upload(float_values(pc.input("x")), "x");
    const float* y = s.upload(float_values(pc.input("y")), "y");
    s.output_count = 1;
    s.output = s.allocate(1, "r");
    // Device pointer mode: the result stays on the device, so the call does not synchronise by itself.
    check_cublas(cublasSetPointerMode(s.cublas, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
    setup.layouts = "x, y contiguous (inc=1); result in device memory (CUBLAS_POINTER_MODE_DEVICE)";
    s.enqueue = [&s, x, y, n] { check_cublas(cublasSdot(s.cublas, n, x, 1, y, 1, s.output), "cublasSdot"); };
  }
}

void prepare_conv(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  const std::string& routine = pc.options().routine;
  ConvShape shape;
  std::vector<float> weights;
  std::vector<int> expected;  // output spatial extents
  std::string input_name, filter_name;
  if (routine == "gaussian") {
    pc.require_md_hom("gaussian");
    const int i = static_cast<int>(pc.size("I")), j = static_cast<int>(pc.size("J"));
    shape.input_spatial = {i + 4, j + 4};
    shape.filter_spatial = {5, 5};
    const float g[5][5] = {{2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
    for (const auto& row : g)
      for (float v : row) weights.push_back(v / 159.0f);
    expected = {i, j};
    input_name = "img";
    setup.layouts =
        "NCHW 1x1x(I+4)x(J+4) input (halo included, no padding), KCRS 1x1x5x5 filter (weights/159), "
        "NCHW 1x1xIxJ output; cross-correlation";
  } else if (routine == "jacobi3d") {
    pc.require_md_hom("jacobi3d");
    const int i = static_cast<int>(pc.size("I")), j = static_cast<int>(pc.size("J")),
              k = static_cast<int>(pc.size("K"));
    shape.input_spatial = {i + 2, j + 2, k + 2};
    shape.filter_spatial = {3, 3, 3};
    weights.assign(27, 0.0f);  // the 7-point stencil as a dense 3x3x3 filter: zeros off the axes
    auto at = [&weights](int a, int b, int c) -> float& { return weights[static_cast<size_t>(a * 9 + b * 3 + c)]; };
    at(1, 1, 2) = 0.161f, at(1, 1, 0) = 0.162f, at(1, 2, 1) = 0.163f, at(1, 0, 1) = 0.164f;
    at(2, 1, 1) = 0.165f, at(0, 1, 1) = 0.166f, at(1, 1, 1) = -1.67f;
    expected = {i, j, k};
    input_name = "a";
    setup.layouts =
        "NCDHW 1x1x(I+2)x(J+2)x(K+2) input, 1x1x3x3x3 filter holding the 7-point weights and 20 zeros "
        "(cuDNN has no sparse stencil: it computes all 27 taps), NCDHW output; cross-correlation";
    setup.notes["filter"] = "dense 3x3x3 with the 7-point weights, zeros elsewhere";
  } else {
    pc.require_md_hom("mcc");
    const int n = static_cast<int>(pc.size("N")), p = static_cast<int>(pc.size("P")),
              q = static_cast<int>(pc.size("Q")), k = static_cast<int>(pc.size("K")),
              c = static_cast<int>(pc.size("C")), r = static_cast<int>(pc.size("R")),
              sz = static_cast<int>(pc.size("S"));
    shape.channels_last = true;
    shape.batch = n, shape.in_channels = c, shape.out_channels = k;
    shape.input_spatial = {p + r - 1, q + sz - 1};
    shape.filter_spatial = {r, sz};
    weights = float_values(pc.input("F"));
    expected = {p, q};
    input_name = "I";
    setup.layouts =
        "NHWC input N x (P+R-1) x (Q+S-1) x C (pre-padded), KRSC filter (cuDNN NHWC filter format), NHWC "
        "output N x P x Q x K; cross-correlation, stride 1";
  }
  const float* x = s.upload(float_values(pc.input(input_name)), input_name);
  const float* w = s.upload(weights, "filter");
  s.conv = std::make_unique<CudnnConvolution>(s.cudnn, shape);
  if (s.conv->output_spatial() != expected) throw UserError("cuDNN computed another output shape than the spec's");
  s.output_count = static_cast<size_t>(pc.make_output().element_count());
  s.output = s.allocate(s.output_count, "output");
  setup.notes["cudnn"] = s.conv->describe();
  s.enqueue = [&s, x, w] { s.conv->run(x, w, s.output); };
}

/// The dimension each index of `access` is, for plain accesses (one dimension, coefficient 1, no offset).
std::vector<int> plain_dims(const PeerCase& pc, const BoundAccess& access) {
  std::vector<int> dims;
  for (const BoundIndex& index : access.indices) {
    int dim = -1, terms = 0;
    for (size_t d = 0; d < index.coefficient.size(); ++d)
      if (index.coefficient[d] != 0) ++terms, dim = index.coefficient[d] == 1 ? static_cast<int>(d) : -2;
    if (terms != 1 || dim < 0 || index.offset != 0 || index.has_window)
      throw UserError(pc.options().spec + ": a TTGT contraction needs every index to be one dimension");
    dims.push_back(dim);
  }
  return dims;
}

/// TTGT: permute A into [M dims][K dims], B into [K dims][N dims] (M, N in the output's order), one row-major SGEMM,
/// then permute [M][N] into the output's order. Identity permutations are skipped.
void prepare_contraction(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  const Mdh& mdh = pc.mdh();
  const BoundMdh& bound = pc.bound();
  if (bound.inputs.size() != 2) throw UserError("a contraction has two inputs");
  const std::vector<int> a_dims = plain_dims(pc, bound.inputs[0]), b_dims = plain_dims(pc, bound.inputs[1]),
                         c_dims = plain_dims(pc, bound.output);
  auto contains = [](const std::vector<int>& v, int d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  auto position = [](const std::vector<int>& v, int d) {
    return static_cast<int>(std::find(v.begin(), v.end(), d) - v.begin());
  };
  std::vector<int> m_dims, n_dims, k_dims;
  for (int d : c_dims) {
    if (contains(a_dims, d) == contains(b_dims, d))
      throw UserError("output dimension '" + mdh.dims[d].name + "' must index exactly one input for TTGT");
    (contains(a_dims, d) ? m_dims : n_dims).push_back(d);
  }
  for (int d : a_dims)
    if (!contains(c_dims, d)) {
      if (mdh.dims[d].combine.kind != CombineOp::Kind::Add || !contains(b_dims, d))
        throw UserError("dimension '" + mdh.dims[d].name + "' must be a (+) reduction over both inputs");
      k_dims.push_back(d);
    }
  if (a_dims.size() != m_dims.size() + k_dims.size() || b_dims.size() != n_dims.size() + k_dims.size())
    throw UserError("every input dimension must be an output or a reduction dimension");
  auto extent_product = [&bound](const std::vector<int>& dims) {
    int64_t p = 1;
    for (int d : dims) p *= bound.dim_extents[static_cast<size_t>(d)];
    return p;
  };
  const int m = static_cast<int>(extent_product(m_dims)), n = static_cast<int>(extent_product(n_dims)),
            k = static_cast<int>(extent_product(k_dims));

  // A permutation taking `from` (storage order of dims) to `to`; empty when it is the identity.
  auto permutation = [&position](const std::vector<int>& from, const std::vector<int>& to) {
    std::vector<int> perm;
    bool identity = true;
    for (size_t d = 0; d < to.size(); ++d) {
      perm.push_back(position(from, to[d]));
      identity = identity && perm.back() == static_cast<int>(d);
    }
    return identity ? std::vector<int>{} : perm;
  };
  auto extents_of = [&bound](const std::vector<int>& dims) {
    std::vector<int64_t> e;
    for (int d : dims) e.push_back(bound.dim_extents[static_cast<size_t>(d)]);
    return e;
  };
  std::vector<int> a_to = m_dims, b_to = k_dims, ct_dims = m_dims;
  a_to.insert(a_to.end(), k_dims.begin(), k_dims.end());
  b_to.insert(b_to.end(), n_dims.begin(), n_dims.end());
  ct_dims.insert(ct_dims.end(), n_dims.begin(), n_dims.end());
  const std::vector<int> perm_a = permutation(a_dims, a_to), perm_b = permutation(b_dims, b_to),
                         perm_c = permutation(ct_dims, c_dims);
  const std::vector<int64_t> a_ext = extents_of(a_dims), b_ext = extents_of(b_dims), ct_ext = extents_of(ct_dims);

  const std::string a_name = mdh.buffers[static_cast<size_t>(bound.inputs[0].buffer)].name;
  const std::string b_name = mdh.buffers[static_cast<size_t>(bound.inputs[1].buffer)].name;
  const float* a = s.upload(float_values(pc.input(a_name)), a_name);
  const float* b = s.upload(float_values(pc.input(b_name)), b_name);
  float* a_gemm = perm_a.empty() ? nullptr : s.allocate(static_cast<size_t>(m) * k, "A in GEMM layout");
  float* b_gemm = perm_b.empty() ? nullptr : s.allocate(static_cast<size_t>(k) * n, "B in GEMM layout");
  s.output_count = static_cast<size_t>(m) * n;
  s.output = s.allocate(s.output_count, "output");
  float* ct = perm_c.empty() ? s.output : s.allocate(s.output_count, "GEMM result");

  auto dim_names = [&mdh](const std::vector<int>& dims) {
    std::string t;
    for (int d : dims) t += mdh.dims[static_cast<size_t>(d)].name;
    return t;
  };
  setup.layouts = "row-major " + a_name + "[" + dim_names(a_dims) + "] -> [" + dim_names(a_to) + "], " + b_name + "[" +
                  dim_names(b_dims) + "] -> [" + dim_names(b_to) + "], SGEMM M=" + std::to_string(m) +
                  " N=" + std::to_string(n) + " K=" + std::to_string(k) + " -> [" + dim_names(ct_dims) +
                  "] -> output[" + dim_names(c_dims) + "]";
  setup.notes["ttgt"] = {{"transpose_a", !perm_a.empty()},
                         {"transpose_b", !perm_b.empty()},
                         {"transpose_c", !perm_c.empty()},
                         {"gemm_mnk", {m, n, k}}};
  s.enqueue = [&s, a, b, a_gemm, b_gemm, ct, m, n, k, perm_a, perm_b, perm_c, a_ext, b_ext, ct_ext] {
    const float* a_in = a;
    const float* b_in = b;
    if (!perm_a.empty()) {
      check_cuda(launch_permute(a, a_gemm, static_cast<int>(a_ext.size()), a_ext.data(), perm_a.data(), s.stream),
                 "permute A");
      a_in = a_gemm;
    }
    if (!perm_b.empty()) {
      check_cuda(launch_permute(b, b_gemm, static_cast<int>(b_ext.size()), b_ext.data(), perm_b.data(), s.stream),
                 "permute B");
      b_in = b_gemm;
    }
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasSgemm(s.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b_in, n, a_in, k, &beta, ct, n),
                 "cublasSgemm");
    if (!perm_c.empty())
      check_cuda(launch_permute(ct, s.output, static_cast<int>(ct_ext.size()), ct_ext.data(), perm_c.data(), s.stream),
                 "permute C");
  };
}

PeerSetup prepare_cuda(PeerCase& pc) {
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
  // FP32 throughout: default math never converts FP32 GEMMs to TF32, and NVIDIA_TF32_OVERRIDE=0 (set in main)
  // rules out the global override.
  check_cublas(cublasSetMathMode(s->cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  int cublas_version = 0;
  check_cublas(cublasGetVersion(s->cublas, &cublas_version), "cublasGetVersion");

  PeerSetup setup;
  setup.device_name = props.name;
  setup.notes["cuda_runtime"] = cuda_version_text(runtime_version);
  setup.notes["cuda_driver"] = cuda_version_text(driver_version);
  setup.notes["math"] = "FP32: CUBLAS_DEFAULT_MATH, cuDNN CUDNN_FMA_MATH, NVIDIA_TF32_OVERRIDE=0";
  setup.device_time_includes =
      "CUDA events recorded on the call's stream before and after the call: every kernel "
      "of the call (for TTGT: the permutes and the SGEMM)";
  setup.call_time_includes =
      "host wall time from the call until cudaDeviceSynchronize returns (operands already "
      "on the device; handles, descriptors, algorithm search and workspace set up before), in a call of its own "
      "after each timed one, without the event records";
  const std::string& routine = pc.options().routine;
  if (routine == "gemm" || routine == "gemm_nt" || routine == "gemv" || routine == "dot") {
    setup.peer = "cublas";
    setup.library_version = "cuBLAS " + std::to_string(cublas_version);
    prepare_blas(pc, *s, setup);
  } else if (routine == "gaussian" || routine == "jacobi3d" || routine == "mcc") {
    check_cudnn(cudnnCreate(&s->cudnn), "cudnnCreate");
    check_cudnn(cudnnSetStream(s->cudnn, s->stream), "cudnnSetStream");
    setup.peer = "cudnn";
    setup.library_version = "cuDNN " + std::to_string(cudnnGetVersion());
    prepare_conv(pc, *s, setup);
  } else if (routine.rfind("tc", 0) == 0 || pc.mdh().name.rfind("tc_", 0) == 0) {
    setup.peer = "cublas-ttgt";
    setup.library_version = "cuBLAS " + std::to_string(cublas_version) + " + own permute kernel";
    prepare_contraction(pc, *s, setup);
  } else {
    throw UserError("peer_cuda has no routine '" + routine +
                    "' (it offers gemm, gemm_nt, gemv, dot, gaussian, jacobi3d, mcc, tc*)");
  }
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after setup");

  setup.run_once = [s] {
    const double begin = now_ns();
    check_cuda(cudaEventRecord(s->start, s->stream), "cudaEventRecord");
    s->enqueue();
    check_cuda(cudaEventRecord(s->stop, s->stream), "cudaEventRecord");
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const double wall = now_ns() - begin;
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, s->start, s->stop), "cudaEventElapsedTime");
    return RunTimes{static_cast<double>(ms) * 1e6, wall};
  };
  setup.plain_call = [s] {
    const double begin = now_ns();
    s->enqueue();
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return now_ns() - begin;
  };
  setup.read_output = [&pc, s] {
    std::vector<float> host(s->output_count);
    check_cuda(cudaMemcpy(host.data(), s->output, host.size() * sizeof(float), cudaMemcpyDeviceToHost),
               "cudaMemcpy(output)");
    return float_output(pc, host);
  };
  return setup;
}

}  // namespace
}  // namespace mdh::peers

int main(int argc, char** argv) {
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);  // before any CUDA library initialises
  return mdh::peers::peer_main(argc, argv, "peer_cuda", {{"cuda-device", "CUDA device index (default 0)"}},
                               mdh::peers::prepare_cuda);
}
