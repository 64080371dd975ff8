// Every diagnostic text of the spec front end (parser, verifier, binding), in one place so that tests and
// docs can pin them. Each function returns the message part of `FILE:LINE:COL: error: MESSAGE`.
#pragma once

#include <cstdint>
#include <string>

#include "mdh/lexer.h"

namespace mdh::msg {

inline std::string q(const std::string& s) {
  return quoted_for_message(s);
}

// ------------------------------------------------------------------------------------------------ lexing

inline std::string unexpected_character(char c) {
  if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126)
    return "unexpected character (byte " + std::to_string(static_cast<unsigned char>(c)) + ")";
  return "unexpected character " + q(std::string(1, c));
}
inline std::string bad_integer_literal(const std::string& text) {
  return "malformed integer " + q(text) + " (sizes and indices are integers)";
}
inline std::string integer_too_large(const std::string& text) {
  return "integer " + q(text) + " does not fit in 64 bits";
}
inline std::string unterminated_literal(char quote) {
  return std::string(quote == '"' ? "string" : "character") + " literal is not closed on its line";
}
inline constexpr const char* kUnterminatedComment = "comment '/*' is never closed";
inline std::string unterminated_block(const std::string& what) {
  return "'{' of " + what + " is never closed (missing '}')";
}
inline std::string unbalanced_bracket(char c, const std::string& what) {
  return "unbalanced " + q(std::string(1, c)) + " in " + what;
}
inline std::string unclosed_bracket(char c, const std::string& what) {
  return q(std::string(1, c)) + " in " + what + " is never closed";
}
inline std::string empty_expression(const std::string& what) {
  return "expected an expression for " + what;
}

// ------------------------------------------------------------------------------------------------ syntax

inline std::string expected(const std::string& what, const Token& found) {
  return "expected " + what + ", found " + found.describe();
}
inline std::string expected_statement(const std::string& found) {
  return "expected a statement (md_hom, size, type, param, input, output, table, view, helper, scalar, operator, "
         "combine, flops or bytes), found " +
         found;
}
inline std::string unknown_statement(const std::string& word) {
  return "unknown statement " + q(word) +
         " (expected md_hom, size, type, param, input, output, table, view, helper, "
         "scalar, operator, combine, flops or bytes)";
}
inline std::string junk_after_statement(const std::string& found, const std::string& statement) {
  return "unexpected " + found + " after the '" + statement + "' statement (one statement per line)";
}
inline std::string repeated_statement(const std::string& statement, int first_line) {
  return "a spec has one '" + statement + "' statement; the first is on line " + std::to_string(first_line);
}
inline constexpr const char* kMissingMdHom = "missing 'md_hom NAME' statement (a spec file starts with it)";
inline std::string missing_statement(const std::string& mdh, const std::string& statement) {
  return "md_hom " + q(mdh) + " has no '" + statement + "' statement";
}
inline std::string expression_too_complex(const std::string& what) {
  return what + " is too deeply nested or too long";
}
inline std::string buffer_without_extents(const std::string& buffer, const Token& found) {
  return "expected '[' and an extent after the element type of buffer " + q(buffer) + ", found " + found.describe() +
         " (e.g. 'float[I][J]')";
}
inline std::string access_without_index(const std::string& buffer, const Token& found) {
  return "expected '[' and an index after " + q(buffer) + " in the view, found " + found.describe();
}
inline constexpr const char* kCannotReadSpec = "cannot read spec file";
inline constexpr const char* kNulByte = "the spec holds a NUL byte (a spec is text)";
/// The most dimensions a view or a buffer may have: the tunable kernel numbers the orders of its loops and of a
/// buffer's dimensions by their lexicographic rank, which fits 64 bits up to 20! orders.
inline constexpr size_t kMaxDimensions = 20;
inline std::string too_many_dimensions(const std::string& dim) {
  return "dimension " + q(dim) + " is one too many: a view has at most " + std::to_string(kMaxDimensions) +
         " dimensions";
}
inline std::string too_many_buffer_dimensions(const std::string& buffer) {
  return "buffer " + q(buffer) + " has more than " + std::to_string(kMaxDimensions) +
         " dimensions, the most a buffer may have";
}

// ------------------------------------------------------------------------------------------------ structs

inline std::string struct_named_like_scalar(const std::string& name) {
  return "struct name " + q(name) + " is a built-in element type; choose another name";
}
inline std::string bad_struct_field_type(const std::string& st, const std::string& found) {
  return "expected a field declaration 'SCALAR_TYPE name[N]...;' in struct " + q(st) + ", found " + found +
         " (fields are float, double, int, uint, long, ulong, short, ushort, char or uchar)";
}
// half and bfloat16 are storage types of buffers (mdh/ir.h is_storage_only): everything else computes in float.
inline std::string storage_type_field(const std::string& st, const std::string& type) {
  return "struct " + q(st) + " cannot have a " + type +
         " field: half and bfloat16 are element types of input and output buffers only; use float";
}
inline std::string storage_type_param(const std::string& param, const std::string& type) {
  return "param " + q(param) + " cannot be " + type +
         ": params are computed in float (half and bfloat16 are element types of input and output buffers only); "
         "declare it float";
}
inline std::string storage_type_table(const std::string& table, const std::string& type) {
  return "table " + q(table) + " cannot be " + type +
         ": f reads a table's elements as stored, and half and bfloat16 are element types of input and output "
         "buffers only; declare it float";
}
inline std::string storage_type_operator(const std::string& op, const std::string& type) {
  return "operator " + q(op) + " cannot take " + type +
         ": mdh combines half and bfloat16 results in float and "
         "offers no other accumulation; declare 'operator " +
         op + "(float p, float q)'";
}
inline std::string duplicate_field(const std::string& st, const std::string& field) {
  return "struct " + q(st) + " declares field " + q(field) + " twice";
}
inline std::string bad_field_extent(const std::string& st, const std::string& field, const std::string& found) {
  return "array extent of field " + q(field) + " in struct " + q(st) + " must be a positive integer, found " + found;
}
inline std::string struct_too_large(const std::string& st) {
  return "struct " + q(st) + " is larger than 1 GiB";
}
inline std::string empty_struct(const std::string& st) {
  return "struct " + q(st) + " has no fields";
}

// ------------------------------------------------------------------------------------------------ indices

inline std::string non_affine_product(const std::string& index) {
  return "index " + q(index) + " is not affine: it multiplies two dimension-dependent factors";
}
inline std::string non_affine_division(const std::string& index, const char* op) {
  return "index " + q(index) + " is not affine: a dimension under '" + op + "'";
}
inline std::string window_subtracted(const std::string& index) {
  return "a window may not be negated or subtracted in index " + q(index) + " (write 'i + LO..HI')";
}
inline std::string two_windows(const std::string& index) {
  return "index " + q(index) + " has more than one window";
}
inline std::string window_bound_not_constant(const std::string& index) {
  return "window bounds in index " + q(index) + " must not depend on a dimension (write 'i + LO..HI')";
}
inline std::string empty_window(const std::string& index) {
  return "window in index " + q(index) + " is empty: its lower bound exceeds its upper bound";
}

// ------------------------------------------------------------------------------------------------ verification

inline std::string duplicate_name(const std::string& name, const char* first_kind, int first_line) {
  return "name " + q(name) + " is already declared as " + first_kind + " on line " + std::to_string(first_line);
}
/// `kind` as in duplicate_name ("a dimension"); `reason` from language_reserved_reason() or the generators' rule
/// (verify.h).
inline std::string reserved_name(const std::string& name, const char* kind, const std::string& reason) {
  return "name " + q(name) + " of " + kind + " is reserved (" + reason + "); choose another name";
}
inline std::string operator_named_like_builtin(const std::string& name) {
  return "operator name " + q(name) + " is a built-in combine operator; choose another name";
}
inline std::string undeclared_type(const std::string& name) {
  return "undeclared type " + q(name) +
         " (element types are float, double, int, uint, long, ulong, short, ushort, "
         "char, uchar, or a struct declared with 'type')";
}
inline std::string undeclared_size(const std::string& name) {
  return "undeclared size " + q(name) + " (add it to the 'size' statement)";
}
inline std::string dimension_in_size_expression(const std::string& name) {
  return "dimension " + q(name) + " cannot appear in an extent or size expression; only sizes can";
}
inline std::string unknown_index_name(const std::string& name) {
  return q(name) + " in a view index is neither a dimension of the view nor a declared size";
}
inline std::string undeclared_buffer(const std::string& name) {
  return "undeclared buffer " + q(name) + " in the view (declare it with 'input', 'output' or 'table')";
}
inline std::string buffer_needs_extent(const std::string& name) {
  return "buffer " + q(name) + " needs at least one extent, e.g. 'float[N]'";
}
inline std::string second_output(const std::string& name, const std::string& first, int first_line) {
  return "a spec has exactly one output; " + q(name) + " is a second one (the first is " + q(first) + " on line " +
         std::to_string(first_line) + ")";
}
inline std::string no_output(const std::string& mdh) {
  return "md_hom " + q(mdh) + " declares no output buffer (add 'output NAME : TYPE[...]')";
}
inline std::string no_input_access(const std::string& mdh) {
  return "the view of " + q(mdh) + " reads no input";
}
inline std::string wrong_index_count(const std::string& access, const std::string& buffer, size_t given,
                                     size_t expected) {
  return "access " + q(access) + " has " + std::to_string(given) + " ind" + (given == 1 ? "ex" : "ices") + " but " +
         q(buffer) + " has " + std::to_string(expected) + " dimension" + (expected == 1 ? "" : "s");
}
inline std::string table_in_view(const std::string& name) {
  return "table " + q(name) + " cannot appear in the view; scalar code reads it directly by name, e.g. " + name +
         "[...]";
}
inline std::string output_read_in_view(const std::string& name) {
  return "the input view reads the output " + q(name) + "; inputs of the view must be 'input' buffers";
}
inline std::string view_writes_non_output(const std::string& name) {
  return "the view writes " + q(name) + ", which is not the output; the access after '->' must be the output buffer";
}
inline std::string window_on_output(const std::string& name) {
  return "the output " + q(name) + " cannot be indexed with a window";
}
inline std::string reduction_dim_in_output(const std::string& dim, const std::string& output) {
  return "view index " + q(dim) + " is a reduction dimension and cannot index the output " + q(output);
}
inline std::string output_misses_concat_dim(const std::string& access, const std::string& dim) {
  return "output access " + q(access) + " does not use the ++ dimension " + q(dim) +
         " (index the output by every ++ dimension, or combine " + q(dim) + " with a reduction)";
}
inline std::string scalar_arity(size_t args, size_t inputs) {
  return "the scalar function takes " + std::to_string(args) + " argument" + (args == 1 ? "" : "s") +
         " but the view has " + std::to_string(inputs) + " input access" + (inputs == 1 ? "" : "es") +
         " (one argument per input access)";
}
inline std::string window_indexed(const std::string& name, size_t indices) {
  std::string call = name + "(";
  for (size_t k = 0; k < indices; ++k) call += (k ? ", " : "") + std::string(1, static_cast<char>('r' + k % 8));
  return "the window accessor " + q(name) + " is called, not indexed: write " + call +
         "), one argument per windowed index";
}
inline std::string combine_length(size_t ops, size_t dims, const std::string& dim_names) {
  return "combine lists " + std::to_string(ops) + " operator" + (ops == 1 ? "" : "s") + " but the view has " +
         std::to_string(dims) + " dimension" + (dims == 1 ? "" : "s") + " (" + dim_names +
         "); give one operator per dimension";
}
inline std::string unknown_combine_operator(const std::string& name) {
  return "unknown combine operator " + q(name) + " (use ++, +, *, max, min or declare it with 'operator')";
}
inline std::string operator_type_mismatch(const std::string& op, const std::string& op_type, const std::string& output,
                                          const std::string& output_type) {
  return "operator " + q(op) + " takes " + q(op_type) + " but the output " + q(output) + " has element type " +
         q(output_type);
}
// A half or bfloat16 output is combined in float: its operators take float.
inline std::string operator_type_mismatch_storage(const std::string& op, const std::string& op_type,
                                                  const std::string& output, const std::string& output_type) {
  return "operator " + q(op) + " takes " + q(op_type) + " but the output " + q(output) + " of element type " +
         q(output_type) + " is combined in float; declare 'operator " + op + "(float p, float q)'";
}
inline std::string builtin_on_struct(const std::string& op, const std::string& output, const std::string& type) {
  return "combine operator " + q(op) + " needs a scalar element type, but the output " + q(output) + " has type " +
         q(type) + "; declare an 'operator' for it";
}
inline std::string operator_parameter_types_differ(const std::string& op, const std::string& a, const std::string& b) {
  return "both parameters of operator " + q(op) + " must have the same type, found " + q(a) + " and " + q(b);
}
inline std::string operator_parameters_same_name(const std::string& op, const std::string& name) {
  return "both parameters of operator " + q(op) + " are named " + q(name);
}

}  // namespace mdh::msg

// ------------------------------------------------------------------------------------------------ binding

namespace mdh::msg {

inline std::string malformed_size_binding(const std::string& text, const std::string& problem) {
  return "malformed size binding " + q(text) + ": " + problem + " (expected NAME=INTEGER[,NAME=INTEGER...])";
}
inline std::string size_bound_twice(const std::string& name) {
  return "size " + q(name) + " is bound twice";
}
inline std::string unknown_size_binding(const std::string& name, const std::string& declared) {
  return "unknown size " + q(name) + " in --size (the spec declares " + declared + ")";
}
inline std::string size_not_bound(const std::string& name) {
  return "size " + q(name) + " is not bound (use --size " + name + "=<value>)";
}
inline std::string size_not_positive(const std::string& name, int64_t value) {
  return "size " + q(name) + " must be positive, got " + std::to_string(value);
}
inline std::string buffer_extent_not_positive(const std::string& buffer, size_t dim, const std::string& extent,
                                              int64_t value) {
  return "extent " + std::to_string(dim) + " of buffer " + q(buffer) + " (" + extent + ") is " + std::to_string(value) +
         " for the given sizes; it must be positive";
}
inline std::string buffer_too_large(const std::string& buffer) {
  return "buffer " + q(buffer) + " has more than 2^62 bytes for the given sizes";
}
inline std::string dim_extent_out_of_range(const std::string& dim, const std::string& extent, int64_t value) {
  return "dimension " + q(dim) + " has extent " + extent + " = " + std::to_string(value) +
         " for the given sizes; it must be between 1 and 2^31-1";
}
inline std::string empty_window_bound(const std::string& index, int64_t lo, int64_t hi) {
  return "window in index " + q(index) + " is empty for the given sizes (" + std::to_string(lo) + ".." +
         std::to_string(hi) + ")";
}
inline std::string window_too_wide(const std::string& index, int64_t lo, int64_t hi) {
  return "window in index " + q(index) + " is too wide for the given sizes (" + std::to_string(lo) + ".." +
         std::to_string(hi) + "): it may span at most 2^31-1 elements, as a dimension may";
}
inline std::string access_out_of_bounds(const std::string& access, bool is_write, size_t dim, const std::string& lo,
                                        const std::string& hi, int64_t extent) {
  return "access " + q(access) + (is_write ? " writes" : " reads") + " dimension " + std::to_string(dim) +
         " at indices " + lo + ".." + hi + " but the extent there is " + std::to_string(extent);
}
inline std::string output_not_injective(const std::string& access, const std::string& dims) {
  return "output access " + q(access) + " is not injective for the given sizes: different points of the ++ " +
         "dimensions (" + dims + ") may write the same element";
}
inline std::string metric_not_positive(const std::string& which, int64_t value) {
  return which + " evaluates to " + std::to_string(value) + " for the given sizes; it must not be negative";
}

}  // namespace mdh::msg
