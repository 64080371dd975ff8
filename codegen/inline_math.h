// mdh's own implementations of OpenCL built-in math functions that user code calls (INLINE_MATH = mdh).
//
// Why: PoCL compiles the built-in `log` to a call of SLEEF's scalar logf, which its compiler can neither inline nor
// vectorise, and PRL's f takes 14 logs per record pair (docs/decisions.md). GPUs compute log in hardware: there the
// built-in stays (the default search leaves INLINE_MATH = mdh out).
//
// The implementations are branch-free float code (selects, no calls, no tables), correctly handling zero,
// subnormals, negatives, infinities and NaN, within the OpenCL C precision requirement of the built-in (log:
// 3 ulp); tests/codegen/inline_math_test.cpp measures the error against a double reference on PoCL.
#pragma once

#include <string>

#include "mdh/ir.h"

namespace mdh {

/// Whether the spec's user code (helpers, f, operators) calls a built-in that INLINE_MATH replaces.
bool calls_inline_math_function(const Mdh& mdh);

/// OpenCL C to place before the user code: `mdh_log` overloads (float: mdh's own; float vectors and, `with_double`
/// (where the program enables cl_khr_fp64), double and its vectors: the built-in) and `#define log(x) mdh_log(x)`, so
/// that user code's calls of float log take mdh's.
std::string inline_math_definitions(bool with_double);

}  // namespace mdh
