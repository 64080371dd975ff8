// The host side of the ttgt_lib peer (peers/cuda/ttgt_peer.cpp): how a tensor permutation is carried out (merged
// dimensions; cublasSgeam, row copy or tiled transpose, with the index walk the kernels follow) and which TTGT plans
// a contraction has (the GEMM's M, N, K orders and result orientation, the operands that must move, the column-major
// SGEMM call). Plain C++, so that the plans are tested on machines without a GPU (peers/ttgt_plan_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::peers {

enum class TransposeMethod { none, geam, rows, tiled };

/// One permutation: output dimension d is input dimension perm[d] (row-major, extents in input order).
struct TransposeWalk {
  TransposeMethod method = TransposeMethod::none;
  std::vector<int64_t> extents;  // the merged input dimensions, in input order
  std::vector<int> perm;         // on the merged dimensions
  // The dimensions the threads do not walk, in output order (rows: all but the shared innermost; tiled: all but x
  // and y), with their strides on both sides.
  std::vector<int64_t> rest_extent, rest_in_stride, rest_out_stride;
  int64_t row_length = 0;                     // rows: the shared innermost extent
  int64_t x_extent = 0, y_extent = 0;         // tiled: the input's innermost (x) and the output's innermost (y)
  int64_t in_stride_y = 0, out_stride_x = 0;  // tiled: y's stride in the input, x's in the output
  int64_t elements = 0;
};

TransposeWalk plan_transpose(const std::vector<int64_t>& in_extents, const std::vector<int>& perm);
std::string describe(const TransposeWalk& walk);

/// A column-major cublasSgemm(op_first, op_second, rows, cols, depth, first, ld_first, second, ld_second, result,
/// ld_result) as the plan issues it; `first_is_b`: the first operand is B's GEMM form (else A's).
struct GemmCall {
  bool op_first_t = false, op_second_t = false;
  int64_t rows = 0, cols = 0, depth = 0, ld_first = 0, ld_second = 0, ld_result = 0;
  bool first_is_b = true;
};

struct TtgtOperand {
  bool moved = false;         // transposed into `walk`'s output before the GEMM
  bool second_first = false;  // in GEMM form [K][M] (A) or [N][K] (B) rather than [M][K] / [K][N]
  TransposeWalk walk;
};

/// One TTGT plan of C[c_dims] = sum_k A[a_dims] * B[b_dims]; dims are dimension ids, extents by id.
struct TtgtPlan {
  std::vector<int> m_order, n_order, k_order;
  bool result_nm = false;  // the GEMM writes [N][M] rather than [M][N]
  TtgtOperand a, b;
  bool c_moved = false;  // the GEMM writes a buffer that `c` permutes into the output
  TransposeWalk c;
  GemmCall gemm;
};

/// Every plan over M in A's or C's order, N in B's or C's, K in A's or B's, and both result orientations (duplicates
/// dropped). UserError unless the dims form a contraction (each output dim in exactly one input, each other dim of
/// A in B too).
std::vector<TtgtPlan> ttgt_plans(const std::vector<int>& a_dims, const std::vector<int>& b_dims,
                                 const std::vector<int>& c_dims, const std::vector<int64_t>& extent_of_dim);

}  // namespace mdh::peers
