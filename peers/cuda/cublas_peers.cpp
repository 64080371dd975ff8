// cublas (SGEMM NN/NT, SGEMV, SDOT) and cublaslt (cublasLtMatmul, the fastest of the algorithms its heuristic
// returns, workspace allowed) on row-major operands as the specs store them: FP32 without TF32, or with
// --precision tf32 the GEMMs' products in TF32 (the handle's math mode, cuda_peer.cpp; cuBLASLt's compute type).
// GEMMs of half or bfloat16 inputs (cublasGemmEx, cuBLASLt) take the spec's 2-byte values to the tensor cores and
// accumulate in float, in either precision (cublas_gemm_types.h).
#include <cstdint>
#include <string>

#include "cublas_gemm_types.h"
#include "cuda_state.h"

namespace mdh::peers {
namespace {

constexpr int kLtAlgorithmsRequested = 16;
constexpr uint64_t kLtWorkspaceBytes = 32ull << 20;  // 32 MiB, what cuBLAS itself reserves on Hopper

template <typename T>
std::shared_ptr<void> owned(T handle, cublasStatus_t (*destroy)(T)) {
  return std::shared_ptr<void>(static_cast<void*>(handle), [destroy](void* p) { destroy(static_cast<T>(p)); });
}

/// The device copies of A and B as the spec stores them (2-byte values) and C of the spec's output type.
struct TwoByteOperands {
  const void* a = nullptr;
  const void* b = nullptr;
};
TwoByteOperands upload_two_byte_operands(PeerCase& pc, CudaState& s) {
  TwoByteOperands o{s.upload_bytes(pc.input("A")), s.upload_bytes(pc.input("B"))};
  const HostBuffer out = pc.make_output();
  s.output_count = static_cast<size_t>(out.element_count());
  s.output_element_size = out.element_size;
  s.output = s.allocate((out.bytes.size() + sizeof(float) - 1) / sizeof(float), "C");
  return o;
}

/// What records say of the types: the inputs and output as cuBLAS names them, and the compute type.
nlohmann::json types_note(const CublasGemmTypes& t) {
  return {{"input_type", cuda_data_type_name(t.inputs)},
          {"output_type", cuda_data_type_name(t.output)},
          {"compute_type", cublas_compute_type_name(t.compute)},
          {"scale_type", cuda_data_type_name(t.scale)}};
}

/// A GEMM of half or bfloat16 inputs: cublasGemmEx with the default algorithm choice, which takes the tensor cores
/// for these types whatever the handle's math mode (cuda_peer.cpp never sets the pedantic mode).
void prepare_cublas_gemm_ex(PeerCase& pc, CudaState& s, PeerSetup& setup, const CublasGemmCase& gemm, int m, int n,
                            int k) {
  const CublasGemmTypes t = gemm.types;
  const TwoByteOperands ops = upload_two_byte_operands(pc, s);
  const bool nt = gemm.nt;
  setup.layouts = std::string(nt ? "row-major A MxK, B NxK, C MxN; cublasGemmEx(OP_T, OP_N, N, M, K, B, ldb=K, "
                                 : "row-major A MxK, B KxN, C MxN; cublasGemmEx(OP_N, OP_N, N, M, K, B, ldb=N, ") +
                  "A, lda=K, C, ldc=N), A and B " + cuda_data_type_name(t.inputs) + ", C " +
                  cuda_data_type_name(t.output) + ", " + cublas_compute_type_name(t.compute) + ", CUBLAS_GEMM_DEFAULT";
  nlohmann::json note = types_note(t);
  note["algorithm"] = "CUBLAS_GEMM_DEFAULT (tensor cores allowed)";
  setup.notes["cublas"] = note;
  void* c = s.output;
  s.enqueue = [&s, ops, c, t, m, n, k, nt] {
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasGemmEx(s.cublas, nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, ops.b, t.inputs,
                              nt ? k : n, ops.a, t.inputs, k, &beta, c, t.output, n, t.compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  };
}

}  // namespace

/// cuBLAS is column-major: a row-major X (r x c) is the column-major X^T, so row-major C = A B is computed as the
/// column-major C^T = B^T A^T, i.e. Sgemm(n, m, k) with the operands swapped.
void prepare_cublas(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  const std::string& routine = pc.options().routine;
  if (routine != "gemm" && routine != "gemm_nt" && routine != "gemv" && routine != "dot")
    throw UserError("peer_cuda --peer cublas has no routine '" + routine + "' (it offers gemm, gemm_nt, gemv, dot)");
  if (routine == "gemm" || routine == "gemm_nt") {
    const CublasGemmCase gemm = cublas_gemm_case(pc);
    const bool nt = gemm.nt;
    const int m = static_cast<int>(pc.size("I")), n = static_cast<int>(pc.size("J")),
              k = static_cast<int>(pc.size("K"));
    if (gemm.types.stored_in_two_bytes) {
      prepare_cublas_gemm_ex(pc, s, setup, gemm, m, n, k);
      return;
    }
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

void prepare_cublaslt(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  const std::string& routine = pc.options().routine;
  if (routine != "gemm" && routine != "gemm_nt")
    throw UserError("peer_cuda --peer cublaslt has no routine '" + routine + "' (it offers gemm, gemm_nt)");
  const CublasGemmCase gemm = cublas_gemm_case(pc);
  const CublasGemmTypes& t = gemm.types;
  const bool nt = gemm.nt;
  check_cublas(cublasLtCreate(&s.cublas_lt), "cublasLtCreate");
  const int64_t m = pc.size("I"), n = pc.size("J"), k = pc.size("K");
  const void* a = nullptr;
  const void* b = nullptr;
  if (t.stored_in_two_bytes) {
    const TwoByteOperands ops = upload_two_byte_operands(pc, s);
    a = ops.a, b = ops.b;
  } else {
    a = s.upload(float_values(pc.input("A")), "A");
    b = s.upload(float_values(pc.input("B")), "B");
    s.output_count = static_cast<size_t>(m * n);
    s.output = s.allocate(s.output_count, "C");
  }
  float* workspace = s.allocate(kLtWorkspaceBytes / sizeof(float), "cublasLt workspace");

  // Column-major as cuBLAS: C^T (N x M, ld N) = op(B^T) (N x K) * A^T (K x M, ld K); B^T is B row-major KxN read as
  // column-major NxK (ld N), or for gemm_nt B row-major NxK read as column-major KxN (ld K) and transposed.
  cublasLtMatmulDesc_t op = nullptr;
  check_cublas(cublasLtMatmulDescCreate(&op, t.compute, t.scale), "cublasLtMatmulDescCreate");
  s.keep_alive.push_back(owned(op, cublasLtMatmulDescDestroy));
  const cublasOperation_t trans_first = nt ? CUBLAS_OP_T : CUBLAS_OP_N, trans_second = CUBLAS_OP_N;
  check_cublas(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_first, sizeof trans_first),
               "cublasLtMatmulDescSetAttribute(TRANSA)");
  check_cublas(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_second, sizeof trans_second),
               "cublasLtMatmulDescSetAttribute(TRANSB)");
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, result = nullptr;
  check_cublas(cublasLtMatrixLayoutCreate(&first, t.inputs, nt ? k : n, nt ? n : k, nt ? k : n), "layout of B");
  check_cublas(cublasLtMatrixLayoutCreate(&second, t.inputs, k, m, k), "layout of A");
  check_cublas(cublasLtMatrixLayoutCreate(&result, t.output, n, m, n), "layout of C");
  for (cublasLtMatrixLayout_t layout : {first, second, result})
    s.keep_alive.push_back(owned(layout, cublasLtMatrixLayoutDestroy));
  cublasLtMatmulPreference_t preference = nullptr;
  check_cublas(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  s.keep_alive.push_back(owned(preference, cublasLtMatmulPreferenceDestroy));
  const uint64_t workspace_bytes = kLtWorkspaceBytes;
  check_cublas(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &workspace_bytes, sizeof workspace_bytes),
               "cublasLtMatmulPreferenceSetAttribute(workspace)");
  std::vector<cublasLtMatmulHeuristicResult_t> heuristics(kLtAlgorithmsRequested);
  int returned = 0;
  check_cublas(cublasLtMatmulAlgoGetHeuristic(s.cublas_lt, op, first, second, result, result, preference,
                                              kLtAlgorithmsRequested, heuristics.data(), &returned),
               "cublasLtMatmulAlgoGetHeuristic");
  if (returned == 0) throw UserError("cublasLtMatmulAlgoGetHeuristic returned no algorithm for this GEMM");

  auto matmul = [&s, op, first, second, result, a, b, workspace](const cublasLtMatmulHeuristicResult_t& h) {
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasLtMatmul(s.cublas_lt, op, &alpha, b, first, a, second, &beta, s.output, result, s.output, result,
                                &h.algo, workspace, h.workspaceSize, s.stream),
                 "cublasLtMatmul");
  };
  // Each algorithm the heuristic returned, timed briefly; the fastest is the peer's.
  nlohmann::json candidates = nlohmann::json::array();
  int best = -1;
  double best_ns = 0;
  for (int i = 0; i < returned; ++i) {
    const cublasLtMatmulHeuristicResult_t& h = heuristics[static_cast<size_t>(i)];
    int algo_id = -1, tile = -1, split_k = -1, stages = -1;
    cublasLtMatmulAlgoConfigGetAttribute(&h.algo, CUBLASLT_ALGO_CONFIG_ID, &algo_id, sizeof algo_id, nullptr);
    cublasLtMatmulAlgoConfigGetAttribute(&h.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, nullptr);
    cublasLtMatmulAlgoConfigGetAttribute(&h.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split_k, sizeof split_k, nullptr);
    cublasLtMatmulAlgoConfigGetAttribute(&h.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, nullptr);
    nlohmann::json c = {{"heuristic_rank", i},  {"algo_id", algo_id},  {"tile_id", tile},
                        {"split_k", split_k},   {"stages_id", stages}, {"workspace_bytes", h.workspaceSize},
                        {"waves", h.wavesCount}};
    if (h.state != CUBLAS_STATUS_SUCCESS) {
      c["status"] = cublasGetStatusName(h.state);
    } else {
      const double ns = s.time_candidate_ns([&matmul, &h] { matmul(h); });
      c["time_ns"] = ns;
      if (best < 0 || ns < best_ns) best = i, best_ns = ns;
    }
    candidates.push_back(c);
  }
  if (best < 0) throw UserError("no algorithm of cublasLt's heuristic ran for this GEMM");
  const cublasLtMatmulHeuristicResult_t chosen = heuristics[static_cast<size_t>(best)];
  nlohmann::json note = types_note(t);
  if (t.compute == CUBLAS_COMPUTE_32F && !t.stored_in_two_bytes) note["compute_type"] = "CUBLAS_COMPUTE_32F (no TF32)";
  note.update({{"chosen", candidates[static_cast<size_t>(best)]},
               {"candidates", candidates},
               {"workspace_limit_bytes", kLtWorkspaceBytes}});
  setup.notes["cublaslt"] = note;
  setup.layouts =
      std::string(nt ? "row-major A MxK, B NxK, C MxN; cublasLtMatmul column-major C^T(NxM) = "
                       "op_T(B: KxN, ld K) * A^T(KxM, ld K)"
                     : "row-major A MxK, B KxN, C MxN; cublasLtMatmul column-major C^T(NxM) = "
                       "B^T(NxK, ld N) * A^T(KxM, ld K)") +
      (t.stored_in_two_bytes ? ", A and B " + cuda_data_type_name(t.inputs) + ", C " + cuda_data_type_name(t.output)
                             : std::string());
  s.enqueue = [matmul, chosen] { matmul(chosen); };
}

}  // namespace mdh::peers
