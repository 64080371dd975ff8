// The MDH IR: one md_hom as the spec file declares it, with symbolic sizes (PACT'19 §III).
// Produced by the parser (mdh/parser.h), checked by the verifier (mdh/verify.h), bound to concrete sizes by
// mdh/bind.h. Every stage after parsing reads it; nothing after the parser mutates it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mdh/size_expr.h"
#include "support/error.h"

namespace mdh {

// ---------------------------------------------------------------------------------------------- types

enum class ScalarType { Float, Double, Int, Uint, Long, Ulong, Short, Ushort, Char, Uchar, Half, Bfloat16 };

/// OpenCL C spelling ("float", "uchar", ...).
const char* opencl_name(ScalarType t);
/// Parses an OpenCL C scalar type name; nullopt for anything else.
std::optional<ScalarType> parse_scalar_type(const std::string& name);
size_t size_of(ScalarType t);
bool is_floating(ScalarType t);
bool is_signed(ScalarType t);
/// OpenCL C of the type's smallest and largest value ("INT_MIN", "UCHAR_MAX"; the infinities for floating types).
const char* opencl_lowest(ScalarType t);
const char* opencl_highest(ScalarType t);
/// half and bfloat16 are storage types: buffers hold them, and everything else computes in float (their
/// compute_type): loads convert to float, f and the combine operators run in float, the output rounds to nearest
/// even on its store. No spec can ask for arithmetic in them (docs/spec-language.md, "Element types").
bool is_storage_only(ScalarType t);
/// float for half and bfloat16, the type itself otherwise.
ScalarType compute_type(ScalarType t);
/// The OpenCL C type a buffer of `t` is declared with in a kernel: `half` (readable through vload_half without
/// cl_khr_fp16), `ushort` for bfloat16's bit patterns, the type's own name otherwise.
const char* opencl_storage_name(ScalarType t);
/// Bits of the significand after the point: 10 for half, 7 for bfloat16, 23 for float, 52 for double, 0 for
/// integer types. The unit roundoff of rounding to nearest is 2^-(fraction_bits + 1).
int fraction_bits(ScalarType t);
/// Every scalar type, in declaration order.
const std::vector<ScalarType>& all_scalar_types();

/// The element type of a buffer, param, operator or the scalar function's result:
/// either a scalar or a struct declared with `type NAME { ... }`.
struct ElementType {
  ScalarType scalar = ScalarType::Float;
  std::string struct_name;  // non-empty: a declared struct, `scalar` is unused
  bool is_struct() const { return !struct_name.empty(); }
  bool operator==(const ElementType&) const = default;
};

/// One field of a declared struct: `uchar field[14];` -> {Uchar, "field", {14}}.
struct StructField {
  ScalarType type = ScalarType::Float;
  std::string name;
  std::vector<int64_t> array_extents;  // empty for a plain field
  size_t offset = 0;                   // byte offset under OpenCL C (= C) natural alignment
};

/// `type NAME { C struct fields }`.
struct StructType {
  std::string name;
  std::string body;  // the field declarations verbatim, emitted into the kernel as the struct's body
  std::vector<StructField> fields;
  size_t size = 0;       // sizeof, padded to alignment
  size_t alignment = 1;  // largest field alignment
  SourceLoc loc;
};

// ---------------------------------------------------------------------------------------------- declarations

struct SizeSymbol {
  std::string name;
  SourceLoc loc;
};

/// `param NAME : TYPE` — a run-time scalar argument, visible in the scalar function f (not in operators, which
/// combine results and take exactly their two operands).
struct Param {
  std::string name;
  ElementType type;
  SourceLoc loc;
};

enum class BufferKind { Input, Output, Table };

/// `input/output/table NAME : TYPE[e1][e2]...` (row-major, last extent contiguous).
struct Buffer {
  std::string name;
  BufferKind kind = BufferKind::Input;
  ElementType type;
  std::vector<SizeExpr> extents;
  SourceLoc loc;
};

/// A combine operator of one dimension: `++` (concatenation), a built-in reduction, or a declared operator.
/// What the built-ins are and do is the table of mdh/combine_operator.h.
struct CombineOp {
  enum class Kind { Concat, Add, Mul, Max, Min, User };
  Kind kind = Kind::Concat;
  std::string user_name;  // Kind::User: the declared operator's name
  SourceLoc loc;
  bool is_concat() const { return kind == Kind::Concat; }
  /// As written in `combine (...)`: a built-in's spelling or the declared operator's name.
  std::string spelling() const;
  /// Partial results may be folded in any order (never assumed of a user operator).
  bool is_commutative() const;
  bool operator==(const CombineOp& o) const { return kind == o.kind && user_name == o.user_name; }
};

/// A dimension of the md_hom's iteration space: `d < EXTENT`, combined with `combine`.
struct Dimension {
  std::string name;
  SizeExpr extent;
  CombineOp combine;
  SourceLoc loc;
};

/// A window term `lo..hi` inside an index: the index ranges over [base+lo, base+hi], and the scalar function
/// receives an accessor w(r, s, ...) whose argument r is in [0, hi-lo] and reads index base+lo+r.
struct Window {
  SizeExpr lo, hi;
  SourceLoc loc;
};

/// One index of a view access, affine in the dimensions:
///   sum over terms (coefficient * dimension) + offset [+ window].
/// Coefficients and offset are integer expressions over size symbols.
struct AffineIndex {
  struct Term {
    int dim = 0;  // index into Mdh::dims
    SizeExpr coefficient;
  };
  std::vector<Term> terms;  // at most one term per dimension, in dimension order
  SizeExpr offset;
  std::optional<Window> window;
  std::string text;  // the index as written, for diagnostics and readable generated code
  SourceLoc loc;
};

/// `BUF[idx1][idx2]...` in a view.
struct Access {
  int buffer = 0;  // index into Mdh::buffers
  std::vector<AffineIndex> indices;
  SourceLoc loc;
  bool has_window() const {
    for (const auto& i : indices)
      if (i.window) return true;
    return false;
  }
};

/// OpenCL C code written by the user, kept verbatim with the location of its first character so that build
/// errors can be mapped back to spec lines.
struct UserCode {
  std::string text;
  SourceLoc loc;
};

/// `scalar (a, b, ...) = EXPR` or `scalar (a, b, ...) { body }` — the function f.
/// Argument k receives the element that input access k reads (or a window accessor, for a window access).
/// Its result type is the output buffer's element type. Dimension names are in scope as the current indices.
struct ScalarFunction {
  std::vector<std::string> arg_names;
  std::vector<SourceLoc> arg_locs;
  UserCode body;  // for the expression form: the expression; for the block form: the statements between { }
  bool is_expression = false;
  SourceLoc loc;
  /// Whether the body has a `for` loop (a `for` followed by '('; one in a comment counts too). Filled by the parser
  /// (note_called_functions): the family F_INLINE exists only then.
  bool has_for_loop = false;
  /// Whether f or a helper (whose macros f may use) mentions "unroll" (`#pragma unroll N`, `_Pragma("unroll")`,
  /// `opencl_unroll_hint`, `nounroll`): the user directs unrolling, and a second directive on one loop does not
  /// build ("incompatible directives"). Filled by the parser; F_INLINE does not exist then.
  bool directs_unrolling = false;
};

/// `operator NAME(T p, T q) = EXPR identity EXPR` (or a `{ }` body): a user combine operator.
/// Associative; applied as NAME(earlier, later) in index order; need not be commutative.
struct UserOperator {
  std::string name;
  ElementType type;
  std::string lhs_name, rhs_name;
  UserCode body;  // expression or block, as for ScalarFunction
  bool is_expression = false;
  UserCode identity;  // an OpenCL C expression of type `type`
  SourceLoc loc;
};

// ---------------------------------------------------------------------------------------------- the md_hom

struct Mdh {
  std::string name;
  std::string file;  // the spec's path as given, for diagnostics
  SourceLoc name_loc;

  std::vector<SizeSymbol> sizes;
  std::vector<StructType> structs;
  std::vector<Param> params;
  std::vector<Buffer> buffers;  // inputs, tables and the output, in declaration order
  std::vector<Dimension> dims;  // in view order; dims[k].combine is the k-th entry of `combine (...)`
  std::vector<Access> inputs;   // the input view: one access per scalar-function argument
  Access output;                // the output view
  std::vector<UserCode> helpers;
  ScalarFunction scalar;
  std::vector<UserOperator> operators;
  std::optional<SizeExpr> flops, bytes;
  /// The functions user code calls (helpers, f, operators, identities): each identifier not after '.' that is
  /// followed by '(', sorted, once each (a name in a comment counts too). Filled once by the parser
  /// (note_called_functions), so that codegen's questions about it do not rescan megabytes of helper code.
  std::vector<std::string> called_functions;

  // Lookups; -1 when absent.
  int find_buffer(const std::string& name) const;
  int find_dim(const std::string& name) const;
  int find_struct(const std::string& name) const;
  int find_operator(const std::string& name) const;
  int find_param(const std::string& name) const;
  int find_size(const std::string& name) const;

  int output_buffer() const { return output.buffer; }
  const ElementType& result_type() const { return buffers.at(output.buffer).type; }
  std::vector<int> concat_dims() const;     // the `++` dimensions, in order
  std::vector<int> reduction_dims() const;  // all other dimensions, in order
  size_t size_of(const ElementType& t) const;
  /// Bytes of a value of `t` as kernels compute with it: a float's for half and bfloat16 (in caches, partial results,
  /// scratch buffers), size_of otherwise.
  size_t compute_size_of(const ElementType& t) const;
  size_t alignment_of(const ElementType& t) const;
  std::string type_name(const ElementType& t) const;  // OpenCL C spelling
  bool calls(const std::string& function) const;      // in called_functions
};

/// Fills mdh.called_functions from its user code, and mdh.scalar.has_for_loop and directs_unrolling.
void note_called_functions(Mdh& mdh);

}  // namespace mdh
