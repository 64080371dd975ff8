// Which md_homs can compute lanes of results as OpenCL vectors (vector_lanes.h).
#include "codegen/vector_lanes.h"

#include <cctype>
#include <set>

#include "codegen/parameter_families.h"
#include "support/error.h"

namespace mdh {

namespace {

// Built-ins that OpenCL C defines for floatN and doubleN lane by lane with the scalar meaning. `log` is left out:
// INLINE_MATH replaces it by mdh's scalar function.
const std::set<std::string>& lanewise_builtins() {
  static const std::set<std::string> names = {"fma",   "mad", "fmax", "fmin",       "fabs",        "sqrt",
                                              "rsqrt", "exp", "exp2", "native_exp", "native_sqrt", "native_rsqrt",
                                              "sin",   "cos", "tanh", "pow",        "copysign"};
  return names;
}

bool is_float_type(const ElementType& type) {
  return !type.is_struct() && (type.scalar == ScalarType::Float || type.scalar == ScalarType::Double);
}

}  // namespace

bool scalar_function_is_lanewise(const Mdh& mdh) {
  const ScalarFunction& f = mdh.scalar;
  if (!f.is_expression) return false;
  const std::set<std::string> args(f.arg_names.begin(), f.arg_names.end());
  const std::string& text = f.body.text;
  for (size_t k = 0; k < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    if (std::isspace(c) || std::string("+-*/(),").find(static_cast<char>(c)) != std::string::npos) {
      ++k;
    } else if (std::isdigit(c) || c == '.') {
      // A numeric literal: digits, '.', an exponent with its sign, an `f` suffix.
      while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '.' ||
                                 ((text[k] == '+' || text[k] == '-') && (text[k - 1] == 'e' || text[k - 1] == 'E'))))
        ++k;
    } else if (std::isalpha(c) || c == '_') {
      size_t end = k;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
      const std::string name = text.substr(k, end - k);
      if (!args.count(name) && !lanewise_builtins().count(name)) return false;
      k = end;
    } else {
      return false;  // comparisons, ?:, [], casts' keywords are names above, comments, preprocessor
    }
  }
  return true;
}

int vector_lanes_dimension(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  const int d = store_dimension(bound);
  if (d < 0) return -1;
  const ElementType& result = mdh.buffers[bound.output.buffer].type;
  if (!is_float_type(result)) return -1;
  for (int r : mdh.reduction_dims()) {
    const CombineOp::Kind kind = mdh.dims[r].combine.kind;
    if (kind != CombineOp::Kind::Add && kind != CombineOp::Kind::Mul && kind != CombineOp::Kind::Max &&
        kind != CombineOp::Kind::Min)
      return -1;
  }
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const BoundAccess& access = bound.inputs[a];
    if (mdh.inputs[a].has_window() || !(mdh.buffers[access.buffer].type == result)) return -1;
    int indices_moving = 0;
    for (const BoundIndex& index : access.indices) {
      const int64_t c = index.coefficient[static_cast<size_t>(d)];
      if (c != 0 && (c != 1 || ++indices_moving > 1)) return -1;
    }
  }
  return scalar_function_is_lanewise(mdh) ? d : -1;
}

std::string lanewise_combine(const Mdh& mdh, int dim, const std::string& lhs, const std::string& rhs) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict, its bug 105329) on "literal" + std::string.
  std::string out;
  switch (mdh.dims[dim].combine.kind) {
    case CombineOp::Kind::Add:
    case CombineOp::Kind::Mul:
      out += '(';
      out += lhs;
      out += mdh.dims[dim].combine.kind == CombineOp::Kind::Add ? " + " : " * ";
      out += rhs;
      out += ')';
      return out;
    case CombineOp::Kind::Max:
    case CombineOp::Kind::Min:
      out += mdh.dims[dim].combine.kind == CombineOp::Kind::Max ? "fmax(" : "fmin(";
      out += lhs;
      out += ", ";
      out += rhs;
      out += ')';
      return out;
    default:
      MDH_INTERNAL_ASSERT(false, "lanewise combine of a dimension without a built-in reduction");
      return out;
  }
}

}  // namespace mdh
