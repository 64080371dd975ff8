// The program preamble shared by every generated kernel: pragmas, struct typedefs, helper code, the combine
// operators and the scalar function f. User code is emitted verbatim between `#line` directives (see
// number_generated_lines) so that a build error in it is reported at its spec line and column.
#include "codegen/preamble.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string_view>

#include "codegen/inline_math.h"
#include "codegen/source_text.h"
#include "mdh/combine_operator.h"
#include "mdh/messages.h"

namespace mdh {

namespace {

/// Emits `code` so that its first character stands at code.loc in the spec file: a `#line` directive naming the
/// spec line, blanks up to the spec column, the text verbatim, then a directive back to the generated numbering.
/// `before` is printed in front of the text on its first line (it eats into the blanks), `after` behind it.
void emit_user_code(std::ostringstream& out, const UserCode& code, const std::string& before = "",
                    const std::string& after = "") {
  std::string_view text = code.text;
  int line = code.loc.line > 0 ? code.loc.line : 1;
  int col = code.loc.col;
  // A block that opens with the rest of the `{` line blank starts at the next line, in column 1.
  size_t first_newline = text.find('\n');
  if (first_newline != std::string_view::npos &&
      text.substr(0, first_newline).find_first_not_of(" \t\r") == std::string_view::npos) {
    text.remove_prefix(first_newline + 1);
    ++line;
    col = 1;
  }
  out << "#line " << line << ' ' << c_string_literal(code.loc.file) << '\n';
  int pad = (col > 1 ? col - 1 : 0) - static_cast<int>(before.size());
  out << before << std::string(pad > 0 ? pad : 0, ' ') << text << after;
  if (after.empty() ? text.empty() || text.back() != '\n' : after.back() != '\n') out << '\n';
  out << kGeneratedLineDirective << '\n';
}

/// Whether `s` needs no parentheses as a factor: a word, or one parenthesised group.
bool is_atomic_code(const std::string& s) {
  bool word = !s.empty();
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') word = false;
  if (word) return true;
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  int depth = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    depth += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
    if (depth == 0 && k + 1 < s.size()) return false;  // the first group closes before the end
  }
  return true;
}

bool is_bfloat16(const ElementType& t) {
  return !t.is_struct() && t.scalar == ScalarType::Bfloat16;
}

// bfloat16 is the upper half of a float's bits: widening is a shift, and narrowing rounds to nearest even by adding
// 0x7fff plus the lowest kept bit before the shift (a carry into the exponent rounds up to the next binade or to
// infinity, as it should). A NaN keeps its sign and becomes quiet, where adding could carry it into infinity.
// Written before `#define float double` would reach it, so that a verifying reference reads bfloat16 as float does.
constexpr const char* kBfloat16Conversions =
    "// bfloat16 elements are ushort bit patterns: the upper 16 bits of a float.\n"
    "float mdh_bfloat16_to_float(const ushort mdh_pattern) { return as_float((uint)mdh_pattern << 16); }\n"
    "ushort mdh_float_to_bfloat16(const float mdh_x)\n"
    "{\n"
    "  const uint mdh_bits = as_uint(mdh_x);\n"
    "  if ((mdh_bits & 0x7fffffffu) > 0x7f800000u) return (ushort)((mdh_bits >> 16) | 0x0040u);\n"
    "  return (ushort)((mdh_bits + 0x7fffu + ((mdh_bits >> 16) & 1u)) >> 16);\n"
    "}\n";

bool type_uses_double(const ElementType& t) {
  return !t.is_struct() && t.scalar == ScalarType::Double;
}

/// Whether the program needs cl_khr_fp64: a double anywhere in the IR's types or in the user's code.
bool uses_double(const Mdh& mdh) {
  for (const auto& b : mdh.buffers)
    if (type_uses_double(b.type)) return true;
  for (const auto& p : mdh.params)
    if (type_uses_double(p.type)) return true;
  for (const auto& op : mdh.operators)
    if (type_uses_double(op.type)) return true;
  for (const auto& s : mdh.structs)
    for (const auto& f : s.fields)
      if (f.type == ScalarType::Double) return true;
  auto mentions = [](const std::string& text) { return text.find("double") != std::string::npos; };
  for (const auto& h : mdh.helpers)
    if (mentions(h.text)) return true;
  for (const auto& op : mdh.operators)
    if (mentions(op.body.text) || mentions(op.identity.text)) return true;
  return mentions(mdh.scalar.body.text);
}

void emit_user_operator(std::ostringstream& out, const Mdh& mdh, const UserOperator& op,
                        const PreambleOptions& options) {
  std::string type = element_type_name(mdh, op.type, options);
  out << "// Combine operator " << op.name << " (spec line " << op.loc.line << "): applied as " << op.name
      << "(earlier, later).\n";
  out << type << ' ' << op.name << '(' << type << ' ' << op.lhs_name << ", " << type << ' ' << op.rhs_name << ")\n{\n";
  if (op.is_expression) {
    out << "  return\n";
    emit_user_code(out, op.body);
    out << "  ;\n";
  } else {
    emit_user_code(out, op.body);
  }
  out << "}\n\n";
}

void emit_dimension_operator(std::ostringstream& out, const Mdh& mdh, int d, const PreambleOptions& options) {
  const Dimension& dim = mdh.dims[d];
  std::string type = element_type_name(mdh, mdh.result_type(), options);
  if (dim.combine.kind == CombineOp::Kind::User) {
    int o = mdh.find_operator(dim.combine.user_name);
    MDH_INTERNAL_ASSERT(o >= 0, "unknown combine operator " + dim.combine.user_name);
    const UserOperator& op = mdh.operators[o];
    out << "// Dimension " << d << " (" << dim.name << ") combines with " << op.name << ".\n";
    out << type << " mdh_combine_" << d << '(' << type << " p, " << type << " q) { return " << op.name << "(p, q); }\n";
    out << type << " mdh_identity_" << d << "(void)\n{\n  return\n";
    emit_user_code(out, op.identity);
    out << "  ;\n}\n\n";
    return;
  }
  const ElementType& result = mdh.result_type();
  const BuiltinCombineOperator& builtin = builtin_combine_operator(dim.combine.kind);
  if (builtin.scalar_types_only && result.is_struct())
    throw UserError(dim.combine.loc, msg::builtin_on_struct(dim.combine.spelling(), mdh.buffers[mdh.output.buffer].name,
                                                            mdh.type_name(result)));
  out << "// Dimension " << d << " (" << dim.name << ") combines with " << builtin.spelling << ".\n";
  out << type << " mdh_combine_" << d << '(' << type << " p, " << type << " q) { return "
      << combine_expression(builtin, result.scalar) << "; }\n";
  out << type << " mdh_identity_" << d << "(void) { return " << identity_expression(builtin, result.scalar)
      << "; }\n\n";
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? separator : "") + parts[k];
  return out;
}

const Buffer& buffer_of(const Mdh& mdh, int buffer) {
  MDH_INTERNAL_ASSERT(buffer >= 0 && buffer < static_cast<int>(mdh.buffers.size()), "buffer index out of range");
  return mdh.buffers[buffer];
}

}  // namespace

bool can_promote_to_double(const Mdh& mdh) {
  return mdh.structs.empty();
}

std::string element_type_name(const Mdh& mdh, const ElementType& type, const PreambleOptions& options) {
  if (type.is_struct()) return mdh.type_name(type);
  const ScalarType computed = compute_type(type.scalar);
  if (options.promote_float_to_double && computed == ScalarType::Float) return "double";
  return opencl_name(computed);
}

std::string storage_type_name(const Mdh& mdh, const ElementType& type, const PreambleOptions& options) {
  if (!type.is_struct() && is_storage_only(type.scalar)) return opencl_storage_name(type.scalar);
  return element_type_name(mdh, type, options);
}

std::string load_element(const ElementType& type, const std::string& pointer, const std::string& offset) {
  if (!type.is_struct() && type.scalar == ScalarType::Half) return "vload_half(" + offset + ", " + pointer + ")";
  if (is_bfloat16(type)) return "mdh_bfloat16_to_float(" + pointer + "[" + offset + "])";
  return pointer + "[" + offset + "]";
}

std::string store_element(const ElementType& type, const std::string& pointer, const std::string& offset,
                          const std::string& value) {
  if (!type.is_struct() && type.scalar == ScalarType::Half)
    return "vstore_half_rte(" + value + ", " + offset + ", " + pointer + ");";
  if (is_bfloat16(type)) return pointer + "[" + offset + "] = mdh_float_to_bfloat16(" + value + ");";
  return pointer + "[" + offset + "] = " + value + ";";
}

std::string emit_preamble(const BoundMdh& bound, const PreambleOptions& options) {
  const Mdh& mdh = *bound.mdh;
  MDH_INTERNAL_ASSERT(!options.promote_float_to_double || can_promote_to_double(mdh),
                      "promote_float_to_double on an md_hom with struct types");
  std::ostringstream out;
  // Contraction of a*b+c into fma rounds once instead of twice. Only the tunable kernel contracts (for speed; a fused
  // multiply-add is one instruction); a reference rounds as written, and the checks' tolerance covers the difference.
  out << "#pragma OPENCL FP_CONTRACT " << (options.contract_multiply_add ? "ON" : "OFF") << "\n";
  if (options.contract_multiply_add && options.contract_across_functions)
    out << "#if defined(__clang__)\n#pragma clang fp contract(fast)\n#endif\n";
  const bool fp64 = options.promote_float_to_double || uses_double(mdh);
  if (fp64) out << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (std::any_of(mdh.buffers.begin(), mdh.buffers.end(), [](const Buffer& b) { return is_bfloat16(b.type); }))
    out << kBfloat16Conversions;
  if (options.promote_float_to_double)
    out << "// Verifying reference: every float of the spec (user code included) computes in double.\n"
           "#define float double\n";
  out << '\n';

  for (const auto& s : mdh.structs) {
    out << "// Struct type " << s.name << " (" << s.size << " bytes, alignment " << s.alignment << ").\n";
    std::string fields = s.body;
    fields.erase(0, fields.find_first_not_of(" \t"));
    fields.erase(fields.find_last_not_of(" \t") + 1);
    UserCode body{fields, SourceLoc{s.loc.file.empty() ? mdh.file : s.loc.file, s.loc.line, 0}};
    emit_user_code(out, body, "typedef struct { ", " } " + s.name + ";");
    out << '\n';
  }
  MDH_INTERNAL_ASSERT(!(options.inline_math && options.promote_float_to_double), "inline math in a reference");
  if (options.inline_math) out << inline_math_definitions(fp64);
  for (const auto& h : mdh.helpers) {
    out << "// Helper code (spec line " << h.loc.line << ").\n";
    emit_user_code(out, h);
    out << '\n';
  }
  for (const auto& op : mdh.operators) emit_user_operator(out, mdh, op, options);
  for (int d : mdh.reduction_dims()) emit_dimension_operator(out, mdh, d, options);
  return out.str();
}

std::string emit_scalar_function(const BoundMdh& bound, const std::string& function_name,
                                 const std::vector<std::optional<WindowBinding>>& windows,
                                 const PreambleOptions& options) {
  const Mdh& mdh = *bound.mdh;
  const ScalarFunction& f = mdh.scalar;
  MDH_INTERNAL_ASSERT(windows.size() == mdh.inputs.size(), "one window binding per input access");
  MDH_INTERNAL_ASSERT(f.arg_names.size() == mdh.inputs.size(), "one scalar argument per input access");

  std::vector<std::string> parameters, accessor_defines, accessor_undefs;
  const std::string lanes_suffix = options.vector_lanes > 1 ? std::to_string(options.vector_lanes) : "";
  for (size_t a = 0; a < mdh.inputs.size(); ++a) {
    const Access& access = mdh.inputs[a];
    const Buffer& buffer = buffer_of(mdh, access.buffer);
    std::string type = element_type_name(mdh, buffer.type, options) + lanes_suffix;
    const std::string& arg = f.arg_names[a];
    MDH_INTERNAL_ASSERT(windows[a].has_value() == access.has_window(),
                        "window binding given exactly for window accesses (argument " + arg + ")");
    if (!windows[a]) {
      parameters.push_back("const " + type + ' ' + arg);
      continue;
    }
    const WindowBinding& window = *windows[a];
    MDH_INTERNAL_ASSERT(window.strides.size() == access.indices.size(), "one window stride per index");
    // Global memory holds half and bfloat16 as stored, caches hold their compute type.
    const bool stored = window.address_space == "__global";
    const std::string element_type = stored ? storage_type_name(mdh, buffer.type, options) + lanes_suffix : type;
    parameters.push_back(window.address_space + " const " + element_type + "* restrict " + arg + "_origin");
    // The accessor takes one offset per index of the access; offset k moves along buffer dimension k. Its
    // parameters carry the reserved mdh_ prefix so that they cannot capture a name used in a stride.
    std::vector<std::string> names, terms;
    for (size_t k = 0; k < access.indices.size(); ++k) {
      std::string name = "mdh_o";
      name += std::to_string(k);
      names.push_back(name);
      const std::string& stride = window.strides[k];
      std::string term = '(' + name;
      term += stride == "1" ? ")" : ") * " + (is_atomic_code(stride) ? stride : '(' + stride + ')');
      terms.push_back(term);
    }
    const std::string origin = arg + "_origin";
    accessor_defines.push_back(
        "#define " + arg + '(' + join(names, ", ") + ") (" +
        (stored ? load_element(buffer.type, origin, join(terms, " + ")) : origin + "[" + join(terms, " + ") + "]") +
        ")");
    accessor_undefs.push_back("#undef " + arg);
  }
  for (const auto& dim : mdh.dims) parameters.push_back("const int " + dim.name);
  std::string trailing = param_and_table_decls(bound, options);
  if (!trailing.empty()) parameters.push_back(trailing);

  std::ostringstream out;
  std::string result = element_type_name(mdh, mdh.result_type(), options) + lanes_suffix;
  MDH_INTERNAL_ASSERT(!options.unroll_scalar_loops || options.inline_scalar_function, "unrolled f not inlined");
  out << "// The scalar function f (spec line " << f.loc.line << ").\n";
  // A macro named `for` marks every for loop of f's body, its macros' included, and nothing outside it. 32: loops of
  // up to 32 iterations unroll fully (PRL's 14 fields, Gaussian's 5 x 5 window), longer ones by 32, so that a loop
  // of thousands does not become thousands of copies.
  if (options.unroll_scalar_loops) out << "#define for _Pragma(\"unroll 32\") for\n";
  if (options.inline_scalar_function) out << "__attribute__((always_inline)) inline ";
  out << result << ' ' << function_name << '(' << join(parameters, ", ") << ")\n{\n";
  for (const auto& d : accessor_defines) out << d << '\n';
  if (f.is_expression) {
    out << "  return\n";
    emit_user_code(out, f.body);
    out << "  ;\n";
  } else {
    emit_user_code(out, f.body);
  }
  for (const auto& u : accessor_undefs) out << u << '\n';
  out << "}\n";
  if (options.unroll_scalar_loops) out << "#undef for\n";
  return out.str();
}

std::string param_and_table_args(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  std::vector<std::string> names;
  for (const auto& p : mdh.params) names.push_back(p.name);
  for (const auto& b : mdh.buffers)
    if (b.kind == BufferKind::Table) names.push_back(b.name);
  return join(names, ", ");
}

std::string param_and_table_decls(const BoundMdh& bound, const PreambleOptions& options) {
  const Mdh& mdh = *bound.mdh;
  std::vector<std::string> decls;
  for (const auto& p : mdh.params) decls.push_back("const " + element_type_name(mdh, p.type, options) + ' ' + p.name);
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    const Buffer& buffer = mdh.buffers[b];
    if (buffer.kind != BufferKind::Table) continue;
    std::string type = element_type_name(mdh, buffer.type, options);
    MDH_INTERNAL_ASSERT(b < bound.buffer_extents.size(), "bound extents for every buffer");
    const auto& extents = bound.buffer_extents[b];
    if (extents.size() <= 1) {
      decls.push_back("__global const " + type + "* " + buffer.name);
      continue;
    }
    // A pointer to rows lets user code index the table as written in the spec: freq[f][v].
    std::string rows;
    for (size_t k = 1; k < extents.size(); ++k) rows += '[' + std::to_string(extents[k]) + ']';
    decls.push_back("__global const " + type + " (*" + buffer.name + ')' + rows);
  }
  return join(decls, ", ");
}

std::string combine_call(int dim, const std::string& lhs, const std::string& rhs) {
  return "mdh_combine_" + std::to_string(dim) + '(' + lhs + ", " + rhs + ')';
}

std::string identity_call(int dim) {
  return "mdh_identity_" + std::to_string(dim) + "()";
}

std::string number_generated_lines(const std::string& source, const std::string& file_name) {
  std::string out;
  int line_number = 1;
  for (size_t begin = 0; begin < source.size();) {
    size_t end = source.find('\n', begin);
    if (end == std::string::npos) end = source.size();
    std::string_view line(source.data() + begin, end - begin);
    if (line == kGeneratedLineDirective)
      out += "#line " + std::to_string(line_number + 1) + ' ' + c_string_literal(file_name);
    else
      out += line;
    if (end < source.size()) out += '\n';
    begin = end + 1;
    ++line_number;
  }
  return out;
}

}  // namespace mdh
