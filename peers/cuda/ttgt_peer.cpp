// ttgt_lib: a tensor contraction as transpose-transpose-GEMM-transpose with library-quality transposes
// (tensor_transpose.h) and one cuBLAS SGEMM. The GEMM's orders of the M, N and K dimensions and the orientation of
// its result are chosen so that operands already in GEMM shape are not moved (cuBLAS's transpose flags take either
// [M][K] or [K][M]); every such plan is timed briefly at set-up and the fastest is kept. All transposes are timed.
#include <algorithm>
#include <limits>
#include <memory>

#include "cuda_state.h"
#include "peers/ttgt_plan.h"
#include "tensor_transpose.h"

namespace mdh::peers {
namespace {

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

nlohmann::json plan_json(const TtgtPlan& p, const Mdh& mdh) {
  auto names = [&mdh](const std::vector<int>& dims) {
    std::string s;
    for (int d : dims) s += mdh.dims[static_cast<size_t>(d)].name;
    return s;
  };
  return {{"m", names(p.m_order)},
          {"n", names(p.n_order)},
          {"k", names(p.k_order)},
          {"gemm_result", p.result_nm ? "[N][M]" : "[M][N]"},
          {"transpose_a", p.a.moved ? describe(p.a.walk) : "none (GEMM-shaped)"},
          {"transpose_b", p.b.moved ? describe(p.b.walk) : "none (GEMM-shaped)"},
          {"transpose_c", p.c_moved ? describe(p.c) : "none (the GEMM writes the output)"}};
}

}  // namespace

void prepare_ttgt_lib(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  const Mdh& mdh = pc.mdh();
  const BoundMdh& bound = pc.bound();
  if (bound.inputs.size() != 2) throw UserError("a contraction has two inputs");
  const std::vector<int> a_dims = plain_dims(pc, bound.inputs[0]), b_dims = plain_dims(pc, bound.inputs[1]),
                         c_dims = plain_dims(pc, bound.output);
  for (int d : a_dims)
    if (std::find(c_dims.begin(), c_dims.end(), d) == c_dims.end() &&
        mdh.dims[static_cast<size_t>(d)].combine.kind != CombineOp::Kind::Add)
      throw UserError("dimension '" + mdh.dims[static_cast<size_t>(d)].name + "' must be a (+) reduction");
  std::vector<int64_t> extent_of_dim(bound.dim_extents.begin(), bound.dim_extents.end());
  std::vector<TtgtPlan> plans = ttgt_plans(a_dims, b_dims, c_dims, extent_of_dim);
  int64_t a_elements = 1, b_elements = 1;
  for (int d : a_dims) a_elements *= extent_of_dim[static_cast<size_t>(d)];
  for (int d : b_dims) b_elements *= extent_of_dim[static_cast<size_t>(d)];
  const std::string a_name = mdh.buffers[static_cast<size_t>(bound.inputs[0].buffer)].name;
  const std::string b_name = mdh.buffers[static_cast<size_t>(bound.inputs[1].buffer)].name;
  const float* a = s.upload(float_values(pc.input(a_name)), a_name);
  const float* b = s.upload(float_values(pc.input(b_name)), b_name);
  s.output_count = static_cast<size_t>(pc.make_output().element_count());
  s.output = s.allocate(s.output_count, "output");
  float* a_gemm = s.allocate(static_cast<size_t>(a_elements), "A in GEMM shape");
  float* b_gemm = s.allocate(static_cast<size_t>(b_elements), "B in GEMM shape");
  float* c_gemm = s.allocate(s.output_count, "the GEMM's result");

  auto run_plan = [&s, a, b, a_gemm, b_gemm, c_gemm](const TtgtPlan& p) {
    const float* a_in = a;
    const float* b_in = b;
    if (p.a.moved) enqueue_transpose(p.a.walk, a, a_gemm, s.stream, s.cublas), a_in = a_gemm;
    if (p.b.moved) enqueue_transpose(p.b.walk, b, b_gemm, s.stream, s.cublas), b_in = b_gemm;
    float* result = p.c_moved ? c_gemm : s.output;
    const GemmCall& g = p.gemm;
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(
        cublasSgemm(s.cublas, g.op_first_t ? CUBLAS_OP_T : CUBLAS_OP_N, g.op_second_t ? CUBLAS_OP_T : CUBLAS_OP_N,
                    static_cast<int>(g.rows), static_cast<int>(g.cols), static_cast<int>(g.depth), &alpha,
                    g.first_is_b ? b_in : a_in, static_cast<int>(g.ld_first), g.first_is_b ? a_in : b_in,
                    static_cast<int>(g.ld_second), &beta, result, static_cast<int>(g.ld_result)),
        "cublasSgemm");
    if (p.c_moved) enqueue_transpose(p.c, c_gemm, s.output, s.stream, s.cublas);
  };
  nlohmann::json tried = nlohmann::json::array();
  const TtgtPlan* best = nullptr;
  double best_ns = std::numeric_limits<double>::infinity();
  for (const TtgtPlan& plan : plans) {
    const double ns = s.time_candidate_ns([&] { run_plan(plan); });
    nlohmann::json d = plan_json(plan, mdh);
    d["time_ns"] = ns;
    tried.push_back(d);
    if (ns < best_ns) best = &plan, best_ns = ns;
  }
  const GemmCall& g = best->gemm;
  setup.notes["ttgt"] = {
      {"chosen", plan_json(*best, mdh)}, {"plans", tried}, {"gemm_rows_cols_depth", {g.rows, g.cols, g.depth}}};
  setup.notes["timed"] = "the transposes of the operands the plan moves, the SGEMM and the output's transpose";
  setup.notes["cutensor"] = "not used: cuTENSOR is not installed where the peers are built (no cutensor.h)";
  setup.layouts = "inputs and output in the spec's index orders; GEMM operands as the chosen plan says (notes.ttgt)";
  const size_t best_index = static_cast<size_t>(best - plans.data());
  auto owned_plans = std::make_shared<std::vector<TtgtPlan>>(std::move(plans));
  s.keep_alive.push_back(owned_plans);
  const TtgtPlan* chosen = &(*owned_plans)[best_index];
  s.enqueue = [run_plan, chosen] { run_plan(*chosen); };
}

}  // namespace mdh::peers
