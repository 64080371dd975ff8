// Binding sizes: the symbolic IR plus `--size I=..,J=..` becomes concrete numbers that codegen and the
// runtime use. Binding checks what only concrete sizes can show: every size bound and positive, every view
// access inside its buffer, the output view injective.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mdh/ir.h"

namespace mdh {

/// One affine index with numbers: sum_d coefficient[d] * d + offset, plus a window [window_lo, window_lo+extent).
struct BoundIndex {
  std::vector<int64_t> coefficient;  // one per dimension of the md_hom (0 where the dimension is absent)
  int64_t offset = 0;
  bool has_window = false;
  int64_t window_lo = 0;
  int64_t window_extent = 1;  // hi - lo + 1
};

struct BoundAccess {
  int buffer = 0;
  std::vector<BoundIndex> indices;
};

/// The arithmetic a float md_hom may be computed in: fp32 throughout (the default), or products of inputs rounded
/// to TF32 (10 fraction bits) on tensor cores with float accumulation, where the md_hom has that shape
/// (codegen/tensor_core.h). A request's choice, never the tuner's: it changes the results' rounding.
enum class ComputePrecision { fp32, tf32 };
const char* precision_name(ComputePrecision precision);  // "fp32", "tf32"
/// What the rounding of the products adds to the verification tolerance of float results (runtime/verify_result.h):
/// 0 in fp32, 2^-7 = 16 * 2u in TF32 (unit roundoff u = 2^-11).
inline double product_rounding_tolerance(ComputePrecision precision) {
  return precision == ComputePrecision::tf32 ? 0x1p-7 : 0.0;
}
/// "fp32" or "tf32"; throws UserError naming the accepted values otherwise.
ComputePrecision parse_precision(const std::string& text);

/// An md_hom with all sizes bound. Keeps the IR alive through a shared pointer.
struct BoundMdh {
  std::shared_ptr<const Mdh> mdh;
  SizeBinding sizes;
  std::vector<int64_t> dim_extents;                  // per dimension
  std::vector<std::vector<int64_t>> buffer_extents;  // per buffer, row-major
  std::vector<BoundAccess> inputs;                   // per input access
  BoundAccess output;
  std::optional<double> flops, bytes;
  ComputePrecision precision = ComputePrecision::fp32;

  int64_t element_count(int buffer) const;  // product of extents
  size_t byte_size(int buffer) const;
  int64_t reduction_size() const;  // product of the extents of the non-`++` dimensions (1 if none)
  int64_t output_points() const;   // product of the extents of the `++` dimensions
};

/// Parses "I=1024,J=512" (also "I=1024 J=512"); throws UserError on malformed text.
SizeBinding parse_size_binding(const std::string& text);

/// Binds sizes; throws UserError (with the spec location of the offending access or declaration) when a size
/// is missing, unknown or not positive, when an extent is not positive, when an access reads or writes outside
/// its buffer (naming the access, the buffer dimension, the index range it needs and the extent it has), or when
/// the output view is not injective.
/// Both arguments are taken by value, and a second overload takes a mutable IR, so that an unqualified call
/// `bind(mdh, sizes)` resolves here: shared_ptr and map live in std, argument-dependent lookup also finds
/// std::bind, and any parameter that matches worse than std::bind's forwarding references would select it.
BoundMdh bind(std::shared_ptr<const Mdh> mdh, SizeBinding sizes);
BoundMdh bind(std::shared_ptr<Mdh> mdh, SizeBinding sizes);

}  // namespace mdh
