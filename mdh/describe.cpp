#include "mdh/describe.h"

#include <iomanip>
#include <sstream>

namespace mdh {

std::string collapse_blanks(const std::string& code) {
  std::string out;
  bool blank = false;
  for (char c : code) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

const char* buffer_kind_name(BufferKind kind) {
  switch (kind) {
    case BufferKind::Input:
      return "input";
    case BufferKind::Output:
      return "output";
    case BufferKind::Table:
      return "table";
  }
  return "?";
}

std::string access_text(const Mdh& mdh, const Access& access) {
  std::string s = access.buffer >= 0 && static_cast<size_t>(access.buffer) < mdh.buffers.size()
                      ? mdh.buffers[access.buffer].name
                      : "?";
  for (const auto& index : access.indices) s += "[" + index.text + "]";
  return s;
}

std::string describe(const Mdh& m) {
  std::ostringstream out;
  out << "md_hom " << m.name << "\n";
  out << "  sizes:";
  for (const auto& s : m.sizes) out << " " << s.name;
  out << "\n  dimensions:\n";
  for (const auto& d : m.dims)
    out << "    " << d.name << " < " << d.extent.to_string() << "  combine " << d.combine.spelling()
        << (d.combine.is_concat() ? "" : "  (reduction)") << "\n";
  out << "  buffers:\n";
  for (const auto& b : m.buffers) {
    out << "    " << std::left << std::setw(6) << buffer_kind_name(b.kind) << std::right << " " << b.name << " : "
        << m.type_name(b.type);
    for (const auto& e : b.extents) out << "[" << e.to_string() << "]";
    if (!b.type.is_struct() && is_storage_only(b.type.scalar)) out << "  (stored; computed in float)";
    out << "\n";
  }
  out << "  view:\n    ";
  for (size_t k = 0; k < m.inputs.size(); ++k) out << (k ? ", " : "") << access_text(m, m.inputs[k]);
  out << " -> " << access_text(m, m.output) << "\n";
  out << "  scalar: (";
  for (size_t k = 0; k < m.scalar.arg_names.size(); ++k) out << (k ? ", " : "") << m.scalar.arg_names[k];
  // f computes in the output's compute type: float for half and bfloat16.
  const ElementType& result = m.result_type();
  out << ") -> " << (result.is_struct() ? m.type_name(result) : std::string(opencl_name(compute_type(result.scalar))))
      << (m.scalar.is_expression ? " = " + collapse_blanks(m.scalar.body.text) : " { ... }") << "\n";
  if (!m.params.empty()) {
    out << "  params:\n";
    for (const auto& p : m.params) out << "    " << p.name << " : " << m.type_name(p.type) << "\n";
  }
  if (!m.structs.empty()) {
    out << "  types:\n";
    for (const auto& s : m.structs) {
      out << "    " << s.name << " (" << s.size << " bytes, align " << s.alignment << "):";
      for (const auto& f : s.fields) {
        out << " " << opencl_name(f.type) << " " << f.name;
        for (int64_t e : f.array_extents) out << "[" << e << "]";
        out << " @" << f.offset << ";";
      }
      out << "\n";
    }
  }
  if (!m.operators.empty()) {
    out << "  operators:\n";
    for (const auto& op : m.operators)
      out << "    " << op.name << "(" << m.type_name(op.type) << " " << op.lhs_name << ", " << m.type_name(op.type)
          << " " << op.rhs_name << ") identity " << collapse_blanks(op.identity.text) << "\n";
  }
  if (!m.helpers.empty())
    out << "  helpers: " << m.helpers.size() << " block" << (m.helpers.size() == 1 ? "" : "s") << "\n";
  if (m.flops) out << "  flops: " << m.flops->to_string() << "\n";
  if (m.bytes) out << "  bytes: " << m.bytes->to_string() << "\n";
  return out.str();
}

}  // namespace mdh
