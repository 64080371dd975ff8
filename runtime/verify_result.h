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
// The floor of 64 covers the rounding inside the scalar function itself. NaN matches only NaN; infinities
// match only themselves. Struct outputs are compared field by field (array fields entry by entry).
// A result computed in a lower precision than its type's (TF32 products of float inputs) passes with
//     tol = 16 * eps(T) * sqrt(max(R, 64)) + p,   p = kTf32Tolerance for TF32:
// TF32 keeps 10 fraction bits (unit roundoff u = 2^-11), so each product is off by up to about 2u = 2^-10 of
// itself, and their sum by about as much of |ref| + M (each term's error is proportional to the term). 2^-7 leaves
// a factor 8 for the accumulation, enough also where inputs are truncated instead of rounded (2^-9 per product).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/host_buffer.h"

namespace mdh {

/// 2^-23 for float, 2^-52 for double, 0 for integer types (compared exactly).
double machine_epsilon(ScalarType type);
/// tol = 16 * eps(type) * sqrt(max(reduction_size, 64)); 0 for integer types.
double result_tolerance(ScalarType type, int64_t reduction_size);
/// p above: what TF32 products add to the tolerance of a float result.
constexpr double kTf32Tolerance = 0x1p-7;
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
/// mismatches in detail (all are counted). `precision_tolerance` is p above (0: computed in the output's type),
/// added to the tolerance of every floating value.
VerifyReport verify_result(const HostBuffer& output, const HostBuffer& reference, const Mdh& mdh,
                           int64_t reduction_size, size_t max_reported = 8, double precision_tolerance = 0.0);

}  // namespace mdh
