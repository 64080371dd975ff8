// ttgt_lib: a tensor contraction as transpose-transpose-GEMM-transpose with library-quality transposes
// (tensor_transpose.h) and one cuBLAS SGEMM. The GEMM's orders of the M, N and K dimensions and the orientation of
// its result are chosen so that operands already in GEMM shape are not moved (cuBLAS's transpose flags take either
// [M][K] or [K][M]); every such plan is timed briefly at set-up and the fastest is kept. All transposes are timed.
#include <algorithm>
#include <limits>
#include <memory>
#include <set>

#include "cuda_state.h"
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

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// `dims` in the order they appear in `storage`.
std::vector<int> in_order_of(const std::vector<int>& dims, const std::vector<int>& storage) {
  std::vector<int> ordered;
  for (int d : storage)
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) ordered.push_back(d);
  return ordered;
}

struct Operand {
  std::unique_ptr<TensorTranspose> transpose;  // null: used as stored
  bool second_first = false;                   // stored [second][first] rather than [first][second]
};

struct Plan {
  std::vector<int> m_order, n_order, k_order;
  bool result_nm = false;  // the GEMM writes [N][M] rather than [M][N]
  Operand a, b;
  std::unique_ptr<TensorTranspose> c;  // from the GEMM's result to the output; null: the GEMM writes the output
  nlohmann::json describe(const Mdh& mdh) const {
    auto names = [&mdh](const std::vector<int>& dims) {
      std::string s;
      for (int d : dims) s += mdh.dims[static_cast<size_t>(d)].name;
      return s;
    };
    return {{"m", names(m_order)},
            {"n", names(n_order)},
            {"k", names(k_order)},
            {"gemm_result", result_nm ? "[N][M]" : "[M][N]"},
            {"transpose_a", a.transpose ? a.transpose->describe() : "none (GEMM-shaped)"},
            {"transpose_b", b.transpose ? b.transpose->describe() : "none (GEMM-shaped)"},
            {"transpose_c", c ? c->describe() : "none (the GEMM writes the output)"}};
  }
};

}  // namespace

void prepare_ttgt_lib(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  const Mdh& mdh = pc.mdh();
  const BoundMdh& bound = pc.bound();
  if (bound.inputs.size() != 2) throw UserError("a contraction has two inputs");
  const std::vector<int> a_dims = plain_dims(pc, bound.inputs[0]), b_dims = plain_dims(pc, bound.inputs[1]),
                         c_dims = plain_dims(pc, bound.output);
  auto contains = [](const std::vector<int>& v, int d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  std::vector<int> m_dims, n_dims, k_dims;
  for (int d : c_dims) {
    if (contains(a_dims, d) == contains(b_dims, d))
      throw UserError("output dimension '" + mdh.dims[static_cast<size_t>(d)].name + "' must index exactly one input");
    (contains(a_dims, d) ? m_dims : n_dims).push_back(d);
  }
  for (int d : a_dims)
    if (!contains(c_dims, d)) {
      if (mdh.dims[static_cast<size_t>(d)].combine.kind != CombineOp::Kind::Add || !contains(b_dims, d))
        throw UserError("dimension '" + mdh.dims[static_cast<size_t>(d)].name +
                        "' must be a (+) reduction over both inputs");
      k_dims.push_back(d);
    }
  if (a_dims.size() != m_dims.size() + k_dims.size() || b_dims.size() != n_dims.size() + k_dims.size())
    throw UserError("every input dimension must be an output or a reduction dimension");
  auto product = [&bound](const std::vector<int>& dims) {
    int64_t p = 1;
    for (int d : dims) p *= bound.dim_extents[static_cast<size_t>(d)];
    return p;
  };
  auto extents_of = [&bound](const std::vector<int>& dims) {
    std::vector<int64_t> e;
    for (int d : dims) e.push_back(bound.dim_extents[static_cast<size_t>(d)]);
    return e;
  };
  auto permutation = [](const std::vector<int>& from, const std::vector<int>& to) {
    std::vector<int> perm;
    for (int d : to) perm.push_back(static_cast<int>(std::find(from.begin(), from.end(), d) - from.begin()));
    return perm;
  };
  const int m = static_cast<int>(product(m_dims)), n = static_cast<int>(product(n_dims)),
            k = static_cast<int>(product(k_dims));

  // An operand stored as `dims`, needed as [first][second] or [second][first]: as stored where it is either, else
  // transposed into the one whose innermost dimension is the stored innermost one (a row copy where possible).
  auto operand = [&](const std::vector<int>& dims, const std::vector<int>& first, const std::vector<int>& second) {
    Operand o;
    if (dims == concat(first, second)) return o;
    if (dims == concat(second, first)) {
      o.second_first = true;
      return o;
    }
    o.second_first = !second.empty() && dims.back() != second.back() && !first.empty() && dims.back() == first.back();
    const std::vector<int> target = o.second_first ? concat(second, first) : concat(first, second);
    o.transpose = std::make_unique<TensorTranspose>(extents_of(dims), permutation(dims, target));
    return o;
  };

  std::vector<std::unique_ptr<Plan>> plans;
  std::set<std::vector<int>> seen;
  for (const std::vector<int>& m_order : {in_order_of(m_dims, a_dims), m_dims})
    for (const std::vector<int>& n_order : {in_order_of(n_dims, b_dims), n_dims})
      for (const std::vector<int>& k_order : {in_order_of(k_dims, a_dims), in_order_of(k_dims, b_dims)})
        for (bool result_nm : {false, true}) {
          std::vector<int> key = concat(concat(m_order, n_order), k_order);
          key.push_back(result_nm ? -1 : -2);
          if (!seen.insert(key).second) continue;
          auto plan = std::make_unique<Plan>();
          plan->m_order = m_order, plan->n_order = n_order, plan->k_order = k_order, plan->result_nm = result_nm;
          plan->a = operand(a_dims, m_order, k_order);  // [M][K], or [K][M]: second_first
          plan->b = operand(b_dims, k_order, n_order);  // [K][N], or [N][K]: second_first
          const std::vector<int> result = result_nm ? concat(n_order, m_order) : concat(m_order, n_order);
          if (result != c_dims)
            plan->c = std::make_unique<TensorTranspose>(extents_of(result), permutation(result, c_dims));
          plans.push_back(std::move(plan));
        }

  const std::string a_name = mdh.buffers[static_cast<size_t>(bound.inputs[0].buffer)].name;
  const std::string b_name = mdh.buffers[static_cast<size_t>(bound.inputs[1].buffer)].name;
  const float* a = s.upload(float_values(pc.input(a_name)), a_name);
  const float* b = s.upload(float_values(pc.input(b_name)), b_name);
  s.output_count = static_cast<size_t>(m) * static_cast<size_t>(n);
  s.output = s.allocate(s.output_count, "output");
  float* a_gemm = s.allocate(static_cast<size_t>(m) * k, "A in GEMM shape");
  float* b_gemm = s.allocate(static_cast<size_t>(k) * n, "B in GEMM shape");
  float* c_gemm = s.allocate(s.output_count, "the GEMM's result");

  auto run_plan = [&s, a, b, a_gemm, b_gemm, c_gemm, m, n, k](const Plan& p) {
    const float* a_in = a;
    const float* b_in = b;
    if (p.a.transpose) p.a.transpose->enqueue(a, a_gemm, s.stream, s.cublas), a_in = a_gemm;
    if (p.b.transpose) p.b.transpose->enqueue(b, b_gemm, s.stream, s.cublas), b_in = b_gemm;
    float* result = p.c ? c_gemm : s.output;
    // Row-major P[R][S] = X[R][K] Y[K][S] is column-major P^T = Y^T X^T; X stored [K][R] or Y stored [S][K] flip
    // the operation of that operand. For [N][M], P = B'^T A'^T.
    const bool nm = p.result_nm;
    const int rows = nm ? n : m, cols = nm ? m : n;
    const float* x = nm ? b_in : a_in;
    const float* y = nm ? a_in : b_in;
    const bool x_trans = nm ? !p.b.second_first : p.a.second_first;
    const bool y_trans = nm ? !p.a.second_first : p.b.second_first;
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasSgemm(s.cublas, y_trans ? CUBLAS_OP_T : CUBLAS_OP_N, x_trans ? CUBLAS_OP_T : CUBLAS_OP_N, cols,
                             rows, k, &alpha, y, y_trans ? k : cols, x, x_trans ? rows : k, &beta, result, cols),
                 "cublasSgemm");
    if (p.c) p.c->enqueue(c_gemm, s.output, s.stream, s.cublas);
  };
  nlohmann::json tried = nlohmann::json::array();
  const Plan* best = nullptr;
  double best_ns = std::numeric_limits<double>::infinity();
  for (const auto& plan : plans) {
    const double ns = s.time_candidate_ns([&] { run_plan(*plan); });
    nlohmann::json d = plan->describe(mdh);
    d["time_ns"] = ns;
    tried.push_back(d);
    if (ns < best_ns) best = plan.get(), best_ns = ns;
  }
  setup.notes["ttgt"] = {{"chosen", best->describe(mdh)}, {"plans", tried}, {"m", m}, {"n", n}, {"k", k}};
  setup.notes["cutensor"] = "not used: cuTENSOR is not installed where the peers are built (no cutensor.h)";
  setup.layouts = "inputs and output in the spec's index orders; GEMM operands as the chosen plan says (notes.ttgt)";
  auto owned_plans = std::make_shared<std::vector<std::unique_ptr<Plan>>>(std::move(plans));
  s.keep_alive.push_back(owned_plans);
  s.enqueue = [run_plan, best] { run_plan(*best); };
}

}  // namespace mdh::peers
