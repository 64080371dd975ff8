// VECTOR_LANES: where a work-item's element loop can compute consecutive results as the lanes of OpenCL vectors
// (floatN arithmetic), which CPU compilers keep in full-width registers where their auto-vectoriser would not.
#pragma once

#include <string>

#include "mdh/bind.h"

namespace mdh {

/// The `++` dimension whose consecutive elements VECTOR_LANES computes as one vector: the output's unit-stride
/// dimension (store_dimension), where the result is float or double, every input is of the result's type, has no
/// window, and moves with that dimension through one index only (coefficient 1) or not at all, f is lanewise
/// (scalar_function_is_lanewise) and every reduction is a built-in operator. -1 elsewhere. An input moves with it
/// through an index other than its unit-stride one (GEMV's A[i][k], GEMM_NT's B[j][k]) only as a cache that keeps
/// that index innermost (BUF_ORDER), or from a packed copy (PACK_INP, input_packing.h): its lanes are consecutive
/// there; a kernel reading it from global memory computes one element at a time (TunableEmitter::vector_lanes).
int vector_lanes_dimension(const BoundMdh& bound);

/// Whether f is one expression over its arguments, numeric literals, `+ - * /`, parentheses, commas and the
/// built-in math functions that OpenCL defines alike on vectors: then f on vectors computes f on each lane.
/// Anything else (conditions, casts, indices, params, user helpers, statements) is not assumed to be.
bool scalar_function_is_lanewise(const Mdh& mdh);

/// The combine operator of reduction dimension `dim` (a built-in) applied to two vectors lane by lane.
std::string lanewise_combine(const Mdh& mdh, int dim, const std::string& lhs, const std::string& rhs);

}  // namespace mdh
