#include "mdh/signature.h"

#include <sstream>

#include "mdh/describe.h"
#include "support/fnv1a.h"

namespace mdh {

namespace {

// An access in canonical form: each index as its affine terms, offset and window, not as the user spaced it.
void write_access(std::ostream& out, const Mdh& mdh, const Access& access) {
  out << mdh.buffers.at(access.buffer).name;
  for (const AffineIndex& index : access.indices) {
    out << '[';
    for (const AffineIndex::Term& term : index.terms)
      out << '(' << term.coefficient.to_string() << ")*" << mdh.dims.at(term.dim).name << '+';
    out << '(' << index.offset.to_string() << ')';
    if (index.window) out << "+(" << index.window->lo.to_string() << ".." << index.window->hi.to_string() << ')';
    out << ']';
  }
}

// User code after `=` (an expression) or in braces (a block).
void write_code(std::ostream& out, bool is_expression, const UserCode& code) {
  if (is_expression)
    out << "= " << collapse_blanks(code.text);
  else
    out << '{' << collapse_blanks(code.text) << '}';
}

}  // namespace

std::string md_hom_signature(const Mdh& mdh) {
  // The canonical text is its own, not describe()'s: a signature is stored in result files and must not change when
  // the human summary is reworded. Changing this text changes every signature (tests/mdh/signature_test.cpp pins
  // one); the results under tuned/ are then signed again with scripts/sign_tuned_results.py.
  std::ostringstream out;
  out << "md_hom " << mdh.name << '\n';
  for (const SizeSymbol& s : mdh.sizes) out << "size " << s.name << '\n';
  for (const StructType& s : mdh.structs) out << "type " << s.name << " {" << collapse_blanks(s.body) << "}\n";
  for (const Param& p : mdh.params) out << "param " << p.name << ' ' << mdh.type_name(p.type) << '\n';
  for (const Buffer& b : mdh.buffers) {
    out << buffer_kind_name(b.kind) << ' ' << b.name << ' ' << mdh.type_name(b.type);
    for (const SizeExpr& e : b.extents) out << '[' << e.to_string() << ']';
    out << '\n';
  }
  for (const Dimension& d : mdh.dims)
    out << "dimension " << d.name << " < " << d.extent.to_string() << " combine " << d.combine.spelling() << '\n';
  out << "view";
  for (const Access& input : mdh.inputs) write_access(out << ' ', mdh, input);
  write_access(out << " -> ", mdh, mdh.output);
  out << '\n';
  for (const UserCode& helper : mdh.helpers) out << "helper {" << collapse_blanks(helper.text) << "}\n";
  out << "scalar (";
  for (size_t k = 0; k < mdh.scalar.arg_names.size(); ++k) out << (k ? ", " : "") << mdh.scalar.arg_names[k];
  write_code(out << ") ", mdh.scalar.is_expression, mdh.scalar.body);
  out << '\n';
  for (const UserOperator& op : mdh.operators) {
    out << "operator " << op.name << '(' << mdh.type_name(op.type) << ' ' << op.lhs_name << ", " << op.rhs_name << ") ";
    write_code(out, op.is_expression, op.body);
    out << " identity " << collapse_blanks(op.identity.text) << '\n';
  }
  return fnv1a_64_hex(out.str());
}

}  // namespace mdh
