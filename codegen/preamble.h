// The part of every generated program that comes before its kernels and does not depend on the kernel's
// structure: pragmas, struct typedefs, the user's helper code, the scalar function f and the combine operators.
// Shared by the reference kernel (codegen/reference_kernel.h) and the tunable kernel.
// User code is preceded by `#line N "spec-file"` (the name escaped: codegen/source_text.h) so that OpenCL build logs
// point at spec lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mdh/bind.h"

namespace mdh {

struct PreambleOptions {
  /// Compute in double wherever the spec says float (buffers, params, f, operators): the verifying reference.
  /// Only valid where no struct type is used (struct layouts would change); see can_promote_to_double().
  bool promote_float_to_double = false;
  /// `#pragma OPENCL FP_CONTRACT ON` instead of OFF: the compiler may fuse a*b+c into one fused multiply-add (one
  /// rounding instead of two). The tunable kernel sets it, for speed; references keep it off, so that they round
  /// every operation as written and the tunable kernel is checked against exact-as-written arithmetic.
  bool contract_multiply_add = false;
  /// With contract_multiply_add, also `#pragma clang fp contract(fast)` (where `__clang__` is defined): clang
  /// contracts under FP_CONTRACT ON only within one expression, and f's multiply and the combine operator's add are
  /// statements of two functions, so PoCL's GEMM had no `vfmadd` without it. The tunable kernel sets it only on
  /// devices whose local memory is global memory (CPUs): NVIDIA's compiler fuses them without it (`fma.rn.f32` in
  /// the PTX) and, seeing `__clang__` and the pragma, made other and slower PTX (docs/decisions.md).
  bool contract_across_functions = false;
  /// User code's float `log` calls mdh's own implementation (codegen/inline_math.h; INLINE_MATH = mdh). The
  /// tunable kernel sets it from its configuration; references never do.
  bool inline_math = false;
  /// The scalar function is always_inline, and with unroll_scalar_loops each of its `for` loops gets
  /// `#pragma unroll` (F_INLINE; codegen/families/scalar_code.cpp says why). The tunable kernel sets them from its
  /// configuration; references never do.
  bool inline_scalar_function = false;
  bool unroll_scalar_loops = false;
  /// emit_scalar_function only: its inputs and result are vectors of this many elements of their type (VECTOR_LANES;
  /// only for a lanewise f without windows, codegen/vector_lanes.h). 1: scalars.
  int64_t vector_lanes = 1;
  /// The tunable kernel computes its positions along the dimensions in `long` even where `int` holds them: tests
  /// of that code at small sizes. Without it, only where needs_wide_indices (codegen/index_range.h).
  bool wide_indices = false;
};

bool can_promote_to_double(const Mdh& mdh);

/// Pragmas, struct typedefs, helper blocks, user operators and one combine function per reduction dimension
/// (`RESULT mdh_combine_<dim>(RESULT p, RESULT q)`, `RESULT mdh_identity_<dim>()`), in that order.
std::string emit_preamble(const BoundMdh& bound, const PreambleOptions& options);

/// How one argument of f reaches its data. A non-window access is passed by value. A window access is passed as a
/// pointer to the window's origin (the element at offset 0 of the window) in `address_space`, and the accessor
/// `w(r, s, ...)` reads origin[r*strides[0] + s*strides[1] + ...].
struct WindowBinding {
  std::string address_space = "__global";  // "__global", "__local" or "__private"
  std::vector<std::string> strides;        // OpenCL C expressions, one per index of the access
};

/// Emits the scalar function f as
///   RESULT NAME(<one parameter per input access: value, or `AS const T* restrict <arg>_origin` for a window>,
///               int <dim> for every dimension, <params by value>, <tables as __global const pointers>)
/// `windows[k]` must be set exactly for the window accesses. A program may contain several variants (different
/// address spaces or strides) under different names.
std::string emit_scalar_function(const BoundMdh& bound, const std::string& function_name,
                                 const std::vector<std::optional<WindowBinding>>& windows,
                                 const PreambleOptions& options);

/// The trailing arguments of a call of f or of a kernel: `params..., tables...` names, comma-separated (may be empty),
/// and the matching kernel parameter declarations (`const float alpha, __global const float (*freq)[256]`).
std::string param_and_table_args(const BoundMdh& bound);
std::string param_and_table_decls(const BoundMdh& bound, const PreambleOptions& options);

/// `mdh_combine_<dim>(lhs, rhs)` and `mdh_identity_<dim>()` for a reduction dimension.
std::string combine_call(int dim, const std::string& lhs, const std::string& rhs);
std::string identity_call(int dim);

/// User code is emitted between `#line <spec line> "<spec file>"` and this directive, which stands for "back to
/// the generated file's own numbering". Its true line number is known only once the whole program is assembled:
/// call number_generated_lines() on the complete source. Left as is, it still compiles (but numbers wrongly).
inline constexpr const char* kGeneratedLineDirective = "#line 1 \"mdh-generated.cl\"";

/// Replaces every kGeneratedLineDirective line of `source` by `#line <number of the next line> "<file_name>"`,
/// so that build errors in generated code name their line in `source`. Call once, on the complete program.
std::string number_generated_lines(const std::string& source, const std::string& file_name);

/// The OpenCL C type name of an element type under the options (float becomes double when promoting): the type
/// values of it are computed in, so float for the storage types half and bfloat16 (mdh/ir.h is_storage_only).
std::string element_type_name(const Mdh& mdh, const ElementType& type, const PreambleOptions& options);

/// The OpenCL C type of a buffer's elements in global memory: `half` and `ushort` (bfloat16's bit patterns) for the
/// storage types, element_type_name otherwise.
std::string storage_type_name(const Mdh& mdh, const ElementType& type, const PreambleOptions& options);
/// OpenCL C that reads element `offset` of `pointer` (a buffer of `type`) as its compute type: `vload_half` for half
/// (core OpenCL C, no cl_khr_fp16), mdh_bfloat16_to_float for bfloat16, `pointer[offset]` otherwise.
std::string load_element(const ElementType& type, const std::string& pointer, const std::string& offset);
/// An OpenCL C statement (with its `;`) that writes `value` (of the compute type) to element `offset` of `pointer`,
/// rounding to the nearest even half (`vstore_half_rte`) or bfloat16 (mdh_float_to_bfloat16) for those types.
std::string store_element(const ElementType& type, const std::string& pointer, const std::string& offset,
                          const std::string& value);

}  // namespace mdh
