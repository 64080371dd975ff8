#include "peers/ttgt_plan.h"

#include <algorithm>
#include <set>

#include "support/error.h"

namespace mdh::peers {
namespace {

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool contains(const std::vector<int>& v, int d) {
  return std::find(v.begin(), v.end(), d) != v.end();
}

/// `dims` in the order they appear in `storage`.
std::vector<int> in_order_of(const std::vector<int>& dims, const std::vector<int>& storage) {
  std::vector<int> ordered;
  for (int d : storage)
    if (contains(dims, d)) ordered.push_back(d);
  return ordered;
}

std::vector<int> permutation(const std::vector<int>& from, const std::vector<int>& to) {
  std::vector<int> perm;
  for (int d : to) perm.push_back(static_cast<int>(std::find(from.begin(), from.end(), d) - from.begin()));
  return perm;
}

int64_t product(const std::vector<int>& dims, const std::vector<int64_t>& extent_of_dim) {
  int64_t p = 1;
  for (int d : dims) p *= extent_of_dim[static_cast<size_t>(d)];
  return p;
}

std::vector<int64_t> extents_of(const std::vector<int>& dims, const std::vector<int64_t>& extent_of_dim) {
  std::vector<int64_t> e;
  for (int d : dims) e.push_back(extent_of_dim[static_cast<size_t>(d)]);
  return e;
}

/// An operand stored as `dims`, needed as [first][second] or [second][first]: as stored where it is either, else
/// moved into the one whose innermost dimension is the stored innermost one (a row copy where possible).
TtgtOperand operand(const std::vector<int>& dims, const std::vector<int>& first, const std::vector<int>& second,
                    const std::vector<int64_t>& extent_of_dim) {
  TtgtOperand o;
  if (dims == concat(first, second)) return o;
  if (dims == concat(second, first)) {
    o.second_first = true;
    return o;
  }
  o.second_first = !first.empty() && dims.back() == first.back();
  const std::vector<int> target = o.second_first ? concat(second, first) : concat(first, second);
  o.moved = true;
  o.walk = plan_transpose(extents_of(dims, extent_of_dim), permutation(dims, target));
  return o;
}

}  // namespace

TransposeWalk plan_transpose(const std::vector<int64_t>& in_extents, const std::vector<int>& perm) {
  const int rank = static_cast<int>(in_extents.size());
  MDH_INTERNAL_ASSERT(rank >= 1 && static_cast<int>(perm.size()) == rank, "transpose of rank 0 or a bad perm");
  TransposeWalk w;
  // Groups of output dimensions whose input dimensions follow one another: each becomes one dimension.
  std::vector<std::pair<int, int>> groups;  // (first input dim, count), in output order
  for (int d = 0; d < rank; ++d) {
    if (!groups.empty() && perm[static_cast<size_t>(d)] == groups.back().first + groups.back().second)
      ++groups.back().second;
    else
      groups.emplace_back(perm[static_cast<size_t>(d)], 1);
  }
  std::vector<size_t> by_input(groups.size());  // group indices sorted by their first input dimension
  for (size_t g = 0; g < groups.size(); ++g) by_input[g] = g;
  std::sort(by_input.begin(), by_input.end(),
            [&groups](size_t a, size_t b) { return groups[a].first < groups[b].first; });
  w.extents.assign(groups.size(), 1);
  w.perm.assign(groups.size(), 0);
  for (size_t position = 0; position < by_input.size(); ++position) {
    const auto& [first, count] = groups[by_input[position]];
    for (int i = first; i < first + count; ++i) w.extents[position] *= in_extents[static_cast<size_t>(i)];
    w.perm[by_input[position]] = static_cast<int>(position);
  }
  const int merged = static_cast<int>(w.extents.size());
  std::vector<int64_t> in_stride(static_cast<size_t>(merged)), out_stride_of_input(static_cast<size_t>(merged));
  int64_t stride = 1;
  for (int i = merged - 1; i >= 0; --i)
    in_stride[static_cast<size_t>(i)] = stride, stride *= w.extents[static_cast<size_t>(i)];
  w.elements = stride;
  stride = 1;
  for (int d = merged - 1; d >= 0; --d) {
    const int i = w.perm[static_cast<size_t>(d)];
    out_stride_of_input[static_cast<size_t>(i)] = stride;
    stride *= w.extents[static_cast<size_t>(i)];
  }
  auto walk_rest_without = [&](int x, int y) {
    for (int d = 0; d < merged; ++d) {
      const int i = w.perm[static_cast<size_t>(d)];
      if (i == x || i == y) continue;
      w.rest_extent.push_back(w.extents[static_cast<size_t>(i)]);
      w.rest_in_stride.push_back(in_stride[static_cast<size_t>(i)]);
      w.rest_out_stride.push_back(out_stride_of_input[static_cast<size_t>(i)]);
    }
  };
  if (merged == 1) {
    w.method = TransposeMethod::none;
  } else if (merged == 2) {
    w.method = TransposeMethod::geam;
  } else if (w.perm.back() == merged - 1) {
    w.method = TransposeMethod::rows;
    w.row_length = w.extents.back();
    walk_rest_without(merged - 1, merged - 1);
  } else {
    w.method = TransposeMethod::tiled;
    const int x = merged - 1, y = w.perm.back();
    w.x_extent = w.extents[static_cast<size_t>(x)];
    w.y_extent = w.extents[static_cast<size_t>(y)];
    w.in_stride_y = in_stride[static_cast<size_t>(y)];
    w.out_stride_x = out_stride_of_input[static_cast<size_t>(x)];
    walk_rest_without(x, y);
  }
  return w;
}

std::string describe(const TransposeWalk& w) {
  switch (w.method) {
    case TransposeMethod::none:
      return "none";
    case TransposeMethod::geam:
      return "cublasSgeam 2-D transpose (" + std::to_string(w.extents[0]) + " x " + std::to_string(w.extents[1]) + ")";
    case TransposeMethod::rows:
      return "row copy (rows of " + std::to_string(w.row_length) + " floats, " + std::to_string(w.extents.size()) +
             " merged dimensions)";
    case TransposeMethod::tiled:
      return "tiled 32x32 shared-memory transpose (innermost " + std::to_string(w.x_extent) + " in, " +
             std::to_string(w.y_extent) + " out; " + std::to_string(w.extents.size()) + " merged dimensions)";
  }
  return "";
}

std::vector<TtgtPlan> ttgt_plans(const std::vector<int>& a_dims, const std::vector<int>& b_dims,
                                 const std::vector<int>& c_dims, const std::vector<int64_t>& extent_of_dim) {
  std::vector<int> m_dims, n_dims, k_dims;
  for (int d : c_dims) {
    if (contains(a_dims, d) == contains(b_dims, d))
      throw UserError("TTGT: output dimension " + std::to_string(d) + " must index exactly one input");
    (contains(a_dims, d) ? m_dims : n_dims).push_back(d);
  }
  for (int d : a_dims)
    if (!contains(c_dims, d)) {
      if (!contains(b_dims, d)) throw UserError("TTGT: dimension " + std::to_string(d) + " must index both inputs");
      k_dims.push_back(d);
    }
  if (a_dims.size() != m_dims.size() + k_dims.size() || b_dims.size() != n_dims.size() + k_dims.size())
    throw UserError("TTGT: every input dimension must be an output or a reduction dimension");
  const int64_t m = product(m_dims, extent_of_dim), n = product(n_dims, extent_of_dim),
                k = product(k_dims, extent_of_dim);

  std::vector<TtgtPlan> plans;
  std::set<std::vector<int>> seen;
  for (const std::vector<int>& m_order : {in_order_of(m_dims, a_dims), m_dims})
    for (const std::vector<int>& n_order : {in_order_of(n_dims, b_dims), n_dims})
      for (const std::vector<int>& k_order : {in_order_of(k_dims, a_dims), in_order_of(k_dims, b_dims)})
        for (bool result_nm : {false, true}) {
          std::vector<int> key = concat(concat(m_order, n_order), k_order);
          key.push_back(result_nm ? -1 : -2);
          if (!seen.insert(key).second) continue;
          TtgtPlan p;
          p.m_order = m_order, p.n_order = n_order, p.k_order = k_order, p.result_nm = result_nm;
          p.a = operand(a_dims, m_order, k_order, extent_of_dim);  // [M][K], or [K][M]: second_first
          p.b = operand(b_dims, k_order, n_order, extent_of_dim);  // [K][N], or [N][K]: second_first
          const std::vector<int> result = result_nm ? concat(n_order, m_order) : concat(m_order, n_order);
          if (result != c_dims) {
            p.c_moved = true;
            p.c = plan_transpose(extents_of(result, extent_of_dim), permutation(result, c_dims));
          }
          // Row-major P[R][S] = X[R][K] Y[K][S] is column-major P^T (S x R) = Y^T X^T: the first operand is Y, the
          // second X; X stored [K][R] or Y stored [S][K] transpose that operand. [M][N]: X = A', Y = B';
          // [N][M]: X = B'^T, Y = A'^T, whose storage flips the meaning of second_first.
          const int64_t rows_r = result_nm ? n : m, cols_s = result_nm ? m : n;
          const bool x_trans = result_nm ? !p.b.second_first : p.a.second_first;
          const bool y_trans = result_nm ? !p.a.second_first : p.b.second_first;
          p.gemm.first_is_b = !result_nm;
          p.gemm.op_first_t = y_trans;
          p.gemm.op_second_t = x_trans;
          p.gemm.rows = cols_s, p.gemm.cols = rows_r, p.gemm.depth = k;
          p.gemm.ld_first = y_trans ? k : cols_s;
          p.gemm.ld_second = x_trans ? rows_r : k;
          p.gemm.ld_result = cols_s;
          plans.push_back(std::move(p));
        }
  return plans;
}

}  // namespace mdh::peers
