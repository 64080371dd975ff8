// Checking a computed output against a reference output (`mdh run --verify`, the tuner's candidate check).
//
// Tolerance. Integer values must match exactly. A floating value x of type T passes against its reference ref iff
//     |x - ref| <= tol * (|ref| + M),   tol = 16 * eps(T) * sqrt(max(R, 64)),
// where eps(float) = 2^-23, eps(double) = 2^-52, R is the md_hom's reduction size (BoundMdh::reduction_size(),
// the number of values combined into one output element) and M is max |ref| over the output (per field, for
// structs). Why: a sum of R terms in a different order differs by about eps * sqrt(R) * (sum of |terms|) for
// random rounding, and the M term absorbs cancellation, where |ref| is far below the size of the terms (a
// stencil such as Jacobi's 7-point sums terms of about 1 into results of about 1e-4; a per-element relative
// bound alone would reject correct float results there).
// The floor of 64 covers the rounding inside the scalar function itself. Where the products round their inputs to
// TF32 (ComputePrecision::tf32: 10 fraction bits, unit roundoff u = 2^-11), each product is off by up to about 2u of
// itself, and tol grows by 16 * 2u = 2^-7: products of both signs add their errors like a random walk, whose sum
// stays within a few times 2u of M, while a wrong index or a lost term is off by the size of a term. NaN matches only
// NaN; infinities match only themselves. Struct outputs are compared field by field (array fields entry by entry).
// Half and bfloat16 results are computed in float and rounded once to their storage type, which is off by up to its
// unit roundoff u = 2^-(f + 1) of the result, f its fraction bits (half 10, bfloat16 7); a reference computed without
// fp64 is rounded to the storage type too, off by u again. So for them
//     tol = 16 * eps(float) * sqrt(max(R, 64)) + 2u(storage),   2u = 2^-f: half 2^-10, bfloat16 2^-7
// (their inputs are exact in both the result and the reference, which reads the same stored values). Subnormal half
// results (below 2^-14) round by up to 2^-25 absolutely, which this relative bound covers only where M is large.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mdh/bind.h"
#include "runtime/host_buffer.h"

namespace mdh {

/// 2^-23 for float, 2^-52 for double, 0 for integer types (compared exactly).
double machine_epsilon(ScalarType type);
/// 2u(type) = 2^-fraction_bits for half (2^-10) and bfloat16 (2^-7): the rounding of a float result to them, and of a
/// reference computed without fp64; 0 for every other type, whose results are not rounded after they are computed.
double storage_rounding_tolerance(ScalarType type);
/// tol = 16 * eps(compute_type(type)) * sqrt(max(reduction_size, 64)), plus 2^-7 for float (and half, bfloat16)
/// under TF32, plus storage_rounding_tolerance(type); 0 for integer types.
double result_tolerance(ScalarType type, int64_t reduction_size, ComputePrecision precision = ComputePrecision::fp32);
/// M: the largest finite |ref| of a reference of scalar float or double elements.
double largest_finite_magnitude(const HostBuffer& reference);

/// One value outside the tolerance.
struct ResultMismatch {
  int64_t element = 0;    // row-major index into the output
  std::string position;   // "[3][7]", with ".weight" or ".field[2]" for struct fields
  std::string value;      // as computed
  std::string reference;  // as the reference has it
};

struct VerifyReport {
  bool passed = true;
  int64_t compared = 0;    // values compared: elements x scalar components per element
  int64_t mismatches = 0;  // values outside the tolerance
  int64_t not_finite = 0;  // of those, NaN or infinite where the reference is not, or finite where it is not
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;  // over values whose reference is not 0
  double tolerance = 0.0;      // tol of the output's (first) floating type; 0 when everything is compared exactly
  double magnitude = 0.0;      // M, the largest |ref| (over all fields, for structs)
  std::vector<ResultMismatch> first_mismatches;

  /// "PASS: max abs error ..., max rel error ...; 0 of 4096 values outside the tolerance (...)" and, on failure,
  /// the first mismatches one per line.
  std::string summary() const;
};

/// Compares `output` with `reference`, which has the same extents and either the same type or, for a float
/// output, double. `mdh` supplies struct layouts; `reduction_size` is R above. Reports at most `max_reported`
/// mismatches in detail (all are counted).
VerifyReport verify_result(const HostBuffer& output, const HostBuffer& reference, const Mdh& mdh,
                           int64_t reduction_size, size_t max_reported = 8,
                           ComputePrecision precision = ComputePrecision::fp32);

}  // namespace mdh
