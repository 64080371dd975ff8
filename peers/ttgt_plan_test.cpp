// The ttgt_lib peer's plans (peers/ttgt_plan.h) carried out on the host exactly as the GPU does: the transposes by
// the index walks its kernels follow, the GEMM as the column-major cublasSgemm call the plan issues. Every plan of
// the nine TCCG contractions (and a plain GEMM) must give the contraction itself, so that a wrong stride, order or
// transpose flag fails here, on machines without a GPU.
#include "peers/ttgt_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace mdh::peers {
namespace {

using Tensor = std::vector<double>;

/// The reference: out[c_0..] = in[...] with output dimension d being input dimension perm[d], row-major.
Tensor naive_permute(const Tensor& in, const std::vector<int64_t>& extents, const std::vector<int>& perm) {
  const size_t rank = extents.size();
  std::vector<int64_t> in_stride(rank, 1), out_extent(rank);
  for (size_t i = rank - 1; i > 0; --i) in_stride[i - 1] = in_stride[i] * extents[i];
  for (size_t d = 0; d < rank; ++d) out_extent[d] = extents[static_cast<size_t>(perm[d])];
  Tensor out(in.size());
  for (size_t o = 0; o < out.size(); ++o) {
    int64_t rest = static_cast<int64_t>(o), offset = 0;
    for (size_t d = rank; d-- > 0;) {
      offset += (rest % out_extent[d]) * in_stride[static_cast<size_t>(perm[d])];
      rest /= out_extent[d];
    }
    out[o] = in[static_cast<size_t>(offset)];
  }
  return out;
}

/// The walk of the rest dimensions (output order, last fastest) as the kernels decompose their row or tile index.
void rest_offsets(const TransposeWalk& w, int64_t index, int64_t& in, int64_t& out) {
  in = 0, out = 0;
  for (size_t d = w.rest_extent.size(); d-- > 0;) {
    const int64_t c = index % w.rest_extent[d];
    index /= w.rest_extent[d];
    in += c * w.rest_in_stride[d];
    out += c * w.rest_out_stride[d];
  }
}

int64_t rest_count(const TransposeWalk& w) {
  return std::accumulate(w.rest_extent.begin(), w.rest_extent.end(), int64_t{1}, std::multiplies<int64_t>());
}

/// What tensor_transpose.cu does with `walk`, on the host.
Tensor walk_permute(const TransposeWalk& w, const Tensor& in) {
  Tensor out(in.size(), std::nan(""));
  switch (w.method) {
    case TransposeMethod::none:
      out = in;
      break;
    case TransposeMethod::geam:  // cublasSgeam(OP_T, OP_N, X0, X1, in, ld X1, out, ld X0)
      for (int64_t i = 0; i < w.extents[0]; ++i)
        for (int64_t j = 0; j < w.extents[1]; ++j)
          out[static_cast<size_t>(j * w.extents[0] + i)] = in[static_cast<size_t>(i * w.extents[1] + j)];
      break;
    case TransposeMethod::rows:
      for (int64_t row = 0; row < rest_count(w); ++row) {
        int64_t in_base, out_base;
        rest_offsets(w, row, in_base, out_base);
        for (int64_t x = 0; x < w.row_length; ++x)
          out[static_cast<size_t>(out_base + x)] = in[static_cast<size_t>(in_base + x)];
      }
      break;
    case TransposeMethod::tiled:
      for (int64_t z = 0; z < rest_count(w); ++z) {
        int64_t in_base, out_base;
        rest_offsets(w, z, in_base, out_base);
        for (int64_t y = 0; y < w.y_extent; ++y)
          for (int64_t x = 0; x < w.x_extent; ++x)
            out[static_cast<size_t>(out_base + x * w.out_stride_x + y)] =
                in[static_cast<size_t>(in_base + y * w.in_stride_y + x)];
      }
      break;
  }
  return out;
}

/// cublasSgemm's column-major definition: result(i, j) = sum_l op(first)(i, l) * op(second)(l, j).
Tensor column_major_gemm(const GemmCall& g, const Tensor& first, const Tensor& second) {
  Tensor result(static_cast<size_t>(g.ld_result * g.cols), std::nan(""));
  for (int64_t i = 0; i < g.rows; ++i)
    for (int64_t j = 0; j < g.cols; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < g.depth; ++l) {
        const double f = g.op_first_t ? first.at(static_cast<size_t>(l + i * g.ld_first))
                                      : first.at(static_cast<size_t>(i + l * g.ld_first));
        const double s = g.op_second_t ? second.at(static_cast<size_t>(j + l * g.ld_second))
                                       : second.at(static_cast<size_t>(l + j * g.ld_second));
        sum += f * s;
      }
      result[static_cast<size_t>(i + j * g.ld_result)] = sum;
    }
  return result;
}

Tensor random_tensor(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> value(-1, 1);
  Tensor t(n);
  for (double& v : t) v = value(rng);
  return t;
}

TEST(TtgtPlan, EveryTransposeWalkIsThePermutation) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int rank = 1 + trial % 6;
    std::vector<int64_t> extents;
    for (int d = 0; d < rank; ++d) extents.push_back(1 + static_cast<int64_t>(rng() % 5));
    std::vector<int> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const int64_t n = std::accumulate(extents.begin(), extents.end(), int64_t{1}, std::multiplies<int64_t>());
    const Tensor in = random_tensor(static_cast<size_t>(n), rng);
    const TransposeWalk w = plan_transpose(extents, perm);
    EXPECT_EQ(walk_permute(w, in), naive_permute(in, extents, perm)) << describe(w);
  }
}

TEST(TtgtPlan, AdjacentDimensionsMergeAndPickTheMethod) {
  // [a][b][c][d] -> [c][d][a][b] is a 2-D transpose of [ab][cd].
  TransposeWalk w = plan_transpose({2, 3, 4, 5}, {2, 3, 0, 1});
  EXPECT_EQ(w.method, TransposeMethod::geam);
  EXPECT_EQ(w.extents, (std::vector<int64_t>{6, 20}));
  // [e][f][g][c] -> [g][e][f][c] keeps the innermost c: rows of 16.
  w = plan_transpose({24, 16, 24, 16}, {2, 0, 1, 3});
  EXPECT_EQ(w.method, TransposeMethod::rows);
  EXPECT_EQ(w.row_length, 16);
  // [d][a][b][c] -> [a][b][c][d]: innermost changes, ab merges.
  w = plan_transpose({3, 4, 5, 6}, {1, 2, 3, 0});
  EXPECT_EQ(w.method, TransposeMethod::geam);  // [d][abc] -> [abc][d]
  w = plan_transpose({3, 4, 5, 6}, {1, 3, 0, 2});
  EXPECT_EQ(w.method, TransposeMethod::tiled);
  EXPECT_EQ(plan_transpose({3, 4}, {0, 1}).method, TransposeMethod::none);
}

/// C[c] = sum A[a] * B[b] for index strings over 'a'..'g' with the given extents, directly.
Tensor contract(const std::string& a, const std::string& b, const std::string& c, const std::vector<int64_t>& extent,
                const Tensor& ta, const Tensor& tb) {
  std::string all = c;
  for (char x : a)
    if (c.find(x) == std::string::npos) all += x;
  auto offset = [&extent](const std::string& dims, const std::vector<int64_t>& at) {
    int64_t o = 0;
    for (char x : dims) o = o * extent[static_cast<size_t>(x - 'a')] + at[static_cast<size_t>(x - 'a')];
    return static_cast<size_t>(o);
  };
  int64_t c_size = 1, total = 1;
  for (char x : c) c_size *= extent[static_cast<size_t>(x - 'a')];
  for (char x : all) total *= extent[static_cast<size_t>(x - 'a')];
  Tensor out(static_cast<size_t>(c_size), 0.0);
  std::vector<int64_t> at(extent.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rest = flat;
    for (size_t k = all.size(); k-- > 0;) {
      const size_t d = static_cast<size_t>(all[k] - 'a');
      at[d] = rest % extent[d];
      rest /= extent[d];
    }
    out[offset(c, at)] += ta[offset(a, at)] * tb[offset(b, at)];
  }
  return out;
}

std::vector<int> dims_of(const std::string& s) {
  std::vector<int> dims;
  for (char x : s) dims.push_back(x - 'a');
  return dims;
}

TEST(TtgtPlan, EveryPlanOfTheTccgContractionsComputesTheContraction) {
  const std::vector<int64_t> extent = {3, 2, 4, 3, 5, 2, 3};  // a..g, none a multiple of another's layout
  std::mt19937 rng(11);
  const char* cases[][3] = {{"gdab", "efgc", "abcdef"}, {"gdac", "efgb", "abcdef"}, {"gdbc", "efga", "abcdef"},
                            {"geab", "dfgc", "abcdef"}, {"geac", "dfgb", "abcdef"}, {"gebc", "dfga", "abcdef"},
                            {"gfab", "degc", "abcdef"}, {"gfac", "degb", "abcdef"}, {"gfbc", "dega", "abcdef"},
                            {"ag", "gb", "ab"},         {"ga", "bg", "ab"}};
  for (const auto& [a, b, c] : cases) {
    SCOPED_TRACE(std::string(a) + "," + b + "->" + c);
    auto size = [&extent](const std::string& dims) {
      int64_t n = 1;
      for (char x : dims) n *= extent[static_cast<size_t>(x - 'a')];
      return static_cast<size_t>(n);
    };
    const Tensor ta = random_tensor(size(a), rng), tb = random_tensor(size(b), rng);
    const Tensor expected = contract(a, b, c, extent, ta, tb);
    const std::vector<TtgtPlan> plans = ttgt_plans(dims_of(a), dims_of(b), dims_of(c), extent);
    ASSERT_FALSE(plans.empty());
    for (const TtgtPlan& p : plans) {
      const Tensor a_gemm = p.a.moved ? walk_permute(p.a.walk, ta) : ta;
      const Tensor b_gemm = p.b.moved ? walk_permute(p.b.walk, tb) : tb;
      const Tensor result =
          column_major_gemm(p.gemm, p.gemm.first_is_b ? b_gemm : a_gemm, p.gemm.first_is_b ? a_gemm : b_gemm);
      const Tensor out = p.c_moved ? walk_permute(p.c, result) : result;
      ASSERT_EQ(out.size(), expected.size());
      for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 1e-12) << "element " << i;
    }
  }
  // A plain GEMM moves nothing in its best plan, and [K][M] x [N][K] uses the transpose flags instead of copies.
  for (const auto& [a, b] : {std::pair{"ag", "gb"}, std::pair{"ga", "bg"}}) {
    const std::vector<TtgtPlan> plans = ttgt_plans(dims_of(a), dims_of(b), dims_of("ab"), extent);
    EXPECT_TRUE(std::any_of(plans.begin(), plans.end(),
                            [](const TtgtPlan& p) { return !p.a.moved && !p.b.moved && !p.c_moved; }))
        << a << " " << b;
  }
}

TEST(TtgtPlan, AnOutputDimensionOfBothInputsIsNoContraction) {
  EXPECT_THROW(ttgt_plans(dims_of("ab"), dims_of("ab"), dims_of("a"), {2, 2}), std::exception);
}

}  // namespace
}  // namespace mdh::peers
