// The reference kernel (see reference_kernel.h). Index arithmetic is printed from the symbolic IR over the size
// macros, so the generated code reads like the spec; the macros are long constants, so flat offsets are computed
// in 64-bit arithmetic whatever the sizes.
#include "codegen/reference_kernel.h"

#include <cctype>
#include <climits>
#include <set>
#include <sstream>

#include "codegen/source_text.h"
#include "mdh/combine_operator.h"

namespace mdh {

namespace {

// ------------------------------------------------------------------------------------------------ size macros

/// Every identifier-like word in OpenCL C text (over-approximate: words in comments count too, which only makes
/// the clash check more careful).
void collect_words(const std::string& text, std::set<std::string>& words) {
  for (size_t k = 0; k < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[k]);
    if (std::isalpha(c) || c == '_') {
      size_t end = k;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
      words.insert(text.substr(k, end - k));
      k = end;
    } else if (std::isdigit(c)) {  // a number with its suffix (1.0f, 0x1F) is not a word
      while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '.' || text[k] == '_'))
        ++k;
    } else {
      ++k;
    }
  }
}

/// Words that a size macro must not redefine: OpenCL C keywords and types, and what the generated code calls
/// (the built-in combine operators' functions and identities for every type are taken from their table).
const std::set<std::string>& reserved_words() {
  static const std::set<std::string> kWords = [] {
    std::set<std::string> words = {
        "auto",     "break",      "case",      "char",          "const",    "continue", "default",  "do",
        "double",   "else",       "enum",      "extern",        "float",    "for",      "goto",     "if",
        "inline",   "int",        "long",      "register",      "restrict", "return",   "short",    "signed",
        "sizeof",   "static",     "struct",    "switch",        "typedef",  "union",    "unsigned", "void",
        "volatile", "while",      "uchar",     "ushort",        "uint",     "ulong",    "half",     "bool",
        "size_t",   "kernel",     "global",    "local",         "constant", "private",  "__kernel", "__global",
        "__local",  "__constant", "__private", "get_global_id", "NAN",      "p",        "q"};
    for (const BuiltinCombineOperator& op : builtin_combine_operators()) {
      if (!op.reduction) continue;
      for (ScalarType type : all_scalar_types()) {
        collect_words(combine_expression(op, type), words);
        collect_words(identity_expression(op, type), words);
      }
    }
    return words;
  }();
  return kWords;
}

bool sizes_need_prefix(const Mdh& mdh) {
  std::set<std::string> taken = reserved_words();
  taken.insert(mdh.name);
  for (const auto& b : mdh.buffers) taken.insert(b.name);
  for (const auto& d : mdh.dims) taken.insert(d.name);
  for (const auto& p : mdh.params) taken.insert(p.name);
  for (const auto& s : mdh.structs) {
    taken.insert(s.name);
    collect_words(s.body, taken);
  }
  for (const auto& op : mdh.operators) {
    taken.insert({op.name, op.lhs_name, op.rhs_name});
    collect_words(op.body.text, taken);
    collect_words(op.identity.text, taken);
  }
  for (const auto& a : mdh.scalar.arg_names) taken.insert(a);
  for (const auto& h : mdh.helpers) collect_words(h.text, taken);
  collect_words(mdh.scalar.body.text, taken);
  for (const auto& s : mdh.sizes)
    if (taken.count(s.name) || s.name.rfind("mdh_", 0) == 0 || s.name.rfind("MDH_", 0) == 0) return true;
  return false;
}

/// Prints size expressions as OpenCL C over the size macros. Parenthesises by C precedence (never relying on
/// associativity for - / %, which would change the value).
class SizeCode {
 public:
  explicit SizeCode(const Mdh& mdh) : prefixed_(sizes_need_prefix(mdh)) {}

  std::string macro(const std::string& size) const { return prefixed_ ? "MDH_SIZE_" + size : size; }

  std::string operator()(const SizeExpr& e) const {
    using K = SizeExpr::Kind;
    switch (e.kind()) {
      case K::Constant:
        return std::to_string(e.constant_value());
      case K::Symbol:
        return macro(e.symbol_name());
      case K::Neg:
        return "-" + operand((*this)(e.lhs()), e.lhs(), 3);
      default:
        break;
    }
    int p = precedence(e.kind());
    const char* op = e.kind() == K::Add   ? " + "
                     : e.kind() == K::Sub ? " - "
                     : e.kind() == K::Mul ? " * "
                     : e.kind() == K::Div ? " / "
                                          : " % ";
    std::string lhs = operand((*this)(e.lhs()), e.lhs(), p);
    // a + (b - c) == a + b - c and a * (b * c) == a * b * c; every other right operand of equal rank keeps
    // its parentheses.
    bool regroupable = (e.kind() == K::Add && (e.rhs().kind() == K::Add || e.rhs().kind() == K::Sub)) ||
                       (e.kind() == K::Mul && e.rhs().kind() == K::Mul);
    std::string rhs = (*this)(e.rhs());
    if (precedence(e.rhs().kind()) < p || (precedence(e.rhs().kind()) == p && !regroupable)) rhs = "(" + rhs + ")";
    return lhs + op + rhs;
  }

  /// The expression as a factor of a product: parenthesised unless a name, a number or itself a product.
  std::string factor(const SizeExpr& e) const {
    using K = SizeExpr::Kind;
    std::string s = (*this)(e);
    bool bare = e.kind() == K::Constant ? e.constant_value() >= 0 : e.kind() == K::Symbol || e.kind() == K::Mul;
    return bare ? s : "(" + s + ")";
  }

 private:
  static int precedence(SizeExpr::Kind k) {
    using K = SizeExpr::Kind;
    if (k == K::Add || k == K::Sub) return 1;
    if (k == K::Mul || k == K::Div || k == K::Mod) return 2;
    if (k == K::Neg) return 3;
    return 4;
  }
  static std::string operand(const std::string& s, const SizeExpr& e, int p) {
    return precedence(e.kind()) < p ? "(" + s + ")" : s;
  }
  bool prefixed_;
};

// ------------------------------------------------------------------------------------------------ index code

bool is_zero(const SizeExpr& e) {
  return e.kind() == SizeExpr::Kind::Constant && e.constant_value() == 0;
}

/// `+ x` or `- n` for a constant negative x, appended to a sum.
void append_summand(std::string& sum, const SizeExpr& e, const SizeCode& code) {
  if (e.kind() == SizeExpr::Kind::Constant && e.constant_value() < 0)
    sum += (sum.empty() ? "-" : " - ") + std::to_string(-e.constant_value());
  else
    sum += (sum.empty() ? "" : " + ") + code(e);
}

/// One index of an access as OpenCL C, e.g. `2 * i + r`; with `include_window_lo`, the window's first offset is
/// added (the index of the window origin).
std::string index_code(const Mdh& mdh, const AffineIndex& index, const SizeCode& code, bool include_window_lo) {
  std::string sum;
  for (const auto& term : index.terms) {
    const std::string& dim = mdh.dims.at(term.dim).name;
    const SizeExpr& c = term.coefficient;
    if (c.kind() == SizeExpr::Kind::Constant) {
      int64_t v = c.constant_value();
      if (v == 0) continue;
      std::string magnitude = (v == 1 || v == -1) ? dim : std::to_string(v < 0 ? -v : v) + " * " + dim;
      sum += v < 0 ? (sum.empty() ? "-" : " - ") + magnitude : (sum.empty() ? "" : " + ") + magnitude;
    } else {
      sum += (sum.empty() ? "" : " + ") + dim + " * " + code.factor(c);
    }
  }
  if (!is_zero(index.offset)) append_summand(sum, index.offset, code);
  if (include_window_lo && index.window && !is_zero(index.window->lo)) append_summand(sum, index.window->lo, code);
  return sum.empty() ? "0" : sum;
}

bool is_simple_word(const std::string& s) {
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

/// The row-major flat offset of an access in its buffer, in long arithmetic: ((long)x0 * E1 + x1) * E2 + x2.
std::string flat_offset_code(const Mdh& mdh, const Access& access, const SizeCode& code, bool window_origin) {
  const Buffer& buffer = mdh.buffers.at(access.buffer);
  MDH_INTERNAL_ASSERT(buffer.extents.size() == access.indices.size(), "one index per buffer dimension");
  std::string offset;
  for (size_t m = 0; m < access.indices.size(); ++m) {
    std::string x = index_code(mdh, access.indices[m], code, window_origin);
    if (m == 0) {
      offset = access.indices.size() == 1 ? x : "(long)" + (is_simple_word(x) ? x : "(" + x + ")");
      continue;
    }
    if (m > 1) offset = "(" + offset + ")";
    offset += " * " + code.factor(buffer.extents[m]) + (x == "0" ? "" : (x[0] == '-' ? " " : " + ") + x);
  }
  return offset;
}

/// The access as the spec wrote it, for comments: `A[i][k]`.
std::string access_text(const Mdh& mdh, const Access& access) {
  std::string s = mdh.buffers.at(access.buffer).name;
  for (const auto& index : access.indices) s += "[" + index.text + "]";
  return s;
}

/// Row strides of a buffer (elements between neighbours along each dimension) as code: {(J + 4), 1}.
std::vector<std::string> row_strides(const Buffer& buffer, const SizeCode& code) {
  std::vector<std::string> strides;
  for (size_t m = 0; m < buffer.extents.size(); ++m) {
    std::string s;
    for (size_t l = m + 1; l < buffer.extents.size(); ++l)
      s += (s.empty() ? "" : " * ") + code.factor(buffer.extents[l]);
    strides.push_back(s.empty() ? "1" : s);
  }
  return strides;
}

std::string product_code(const Mdh& mdh, const std::vector<int>& dims, const SizeCode& code) {
  std::string s;
  for (int d : dims) s += (s.empty() ? "" : " * ") + code.factor(mdh.dims[d].extent);
  return s.empty() ? "1" : s;
}

std::string indent(int level) {
  return std::string(2 * level, ' ');
}

// ------------------------------------------------------------------------------------------------ the kernel

class ReferenceKernelWriter {
 public:
  ReferenceKernelWriter(const BoundMdh& bound, const PreambleOptions& options)
      : bound_(bound), mdh_(*bound.mdh), options_(options), code_(mdh_), kernel_name_(mdh_.name + "_reference") {}

  LaunchPlan write() {
    check_extents();
    LaunchPlan plan;
    KernelLaunch launch;
    launch.kernel_name = kernel_name_;
    launch.work_dims = 1;
    launch.global_size = {static_cast<uint64_t>(output_points()), 1, 1};
    for (const auto& b : mdh_.buffers) launch.args.push_back({KernelArg::Kind::Buffer, b.name, -1});
    for (const auto& p : mdh_.params) launch.args.push_back({KernelArg::Kind::Param, p.name, -1});

    std::ostringstream out;
    write_header(out);
    write_size_macros(out);
    out << emit_preamble(bound_, options_);
    out << emit_scalar_function(bound_, "mdh_scalar", window_bindings(), options_) << '\n';
    write_kernel(out);
    plan.source = number_generated_lines(out.str(), kernel_name_ + ".cl");
    plan.build_options = "-cl-std=CL1.2";
    plan.kernels.push_back(launch);
    return plan;
  }

 private:
  void check_extents() const {
    for (size_t d = 0; d < mdh_.dims.size(); ++d)
      if (bound_.dim_extents.at(d) > INT_MAX)
        throw UserError(mdh_.dims[d].loc, "dimension '" + mdh_.dims[d].name + "' has extent " +
                                              std::to_string(bound_.dim_extents[d]) +
                                              ", more than the kernel's int indices hold (2147483647)");
  }

  int64_t output_points() const {
    int64_t n = 1;
    for (int d : mdh_.concat_dims()) n *= bound_.dim_extents.at(d);
    return n;
  }

  std::string result_type() const { return element_type_name(mdh_, mdh_.result_type(), options_); }
  // A verifying reference (computing in double) writes a half or bfloat16 output in double, unrounded: the check
  // compares the rounded results against the exact ones.
  bool output_widened() const {
    const ElementType& t = mdh_.result_type();
    return options_.promote_float_to_double && !t.is_struct() && is_storage_only(t.scalar);
  }
  std::string output_type() const {
    return output_widened() ? result_type() : storage_type_name(mdh_, mdh_.result_type(), options_);
  }

  void write_header(std::ostringstream& out) const {
    std::vector<int> concat = mdh_.concat_dims(), reduction = mdh_.reduction_dims();
    std::string combines, dims, inputs;
    for (const auto& d : mdh_.dims) {
      combines += (combines.empty() ? "" : ", ") + d.combine.spelling();
      dims += (dims.empty() ? "" : ", ") + d.name + " < " + d.extent.to_string();
    }
    for (const auto& a : mdh_.inputs) inputs += (inputs.empty() ? "" : ", ") + access_text(mdh_, a);
    out << "// " << kernel_name_ << ": the reference kernel of md_hom " << mdh_.name << " (" << comment_text(mdh_.file)
        << "), generated by mdh.\n";
    out << "//   md_hom(f, (" << combines << ")) o view (" << dims << ") : " << inputs << " -> "
        << access_text(mdh_, mdh_.output) << "\n";
    std::string sizes;
    for (const auto& [name, value] : bound_.sizes)
      sizes += (sizes.empty() ? "" : ", ") + name + " = " + std::to_string(value);
    out << "//   sizes: " << sizes << (options_.promote_float_to_double ? "; float computed in double" : "") << "\n";
    out << "// Launch: 1-D NDRange of global size ";
    if (concat.empty()) {
      out << "1 (no ++ dimension: a single work-item)";
    } else {
      std::string names;
      for (int d : concat) names += (names.empty() ? "" : ", ") + mdh_.dims[d].name;
      out << product_code(mdh_, concat, code_) << " = " << output_points() << ", any local size: one work-item per\n"
          << "//   output element, the ++ dimensions (" << names << ") flattened row-major";
    }
    if (!reduction.empty()) {
      std::string names;
      for (int d : reduction) names += (names.empty() ? "" : ", ") + mdh_.dims[d].name;
      out << ";\n//   each work-item combines over " << names << " sequentially in index order";
    }
    out << ".\n// Arguments: ";
    std::string args;
    for (const auto& b : mdh_.buffers) args += (args.empty() ? "" : ", ") + b.name;
    for (const auto& p : mdh_.params) args += (args.empty() ? "" : ", ") + p.name;
    out << args << "\n\n";
  }

  void write_size_macros(std::ostringstream& out) const {
    out << "// Size symbols: long constants, so that index arithmetic is 64-bit.\n";
    for (const auto& s : mdh_.sizes) {
      std::string m = code_.macro(s.name);
      auto value = bound_.sizes.find(s.name);
      MDH_INTERNAL_ASSERT(value != bound_.sizes.end(), "size " + s.name + " bound");
      out << "#ifndef " << m << "\n#define " << m << ' ' << value->second << "L\n#endif\n";
    }
    out << '\n';
  }

  std::vector<std::optional<WindowBinding>> window_bindings() const {
    std::vector<std::optional<WindowBinding>> windows;
    for (const auto& access : mdh_.inputs) {
      if (!access.has_window()) {
        windows.emplace_back();
        continue;
      }
      WindowBinding w;
      w.address_space = "__global";
      w.strides = row_strides(mdh_.buffers.at(access.buffer), code_);
      windows.push_back(w);
    }
    return windows;
  }

  std::string kernel_parameters() const {
    std::vector<std::string> decls;
    for (const auto& b : mdh_.buffers) {
      std::string type = storage_type_name(mdh_, b.type, options_);
      decls.push_back(b.kind == BufferKind::Output ? "__global " + output_type() + "* " + b.name
                                                   : "__global const " + type + "* restrict " + b.name);
    }
    for (const auto& p : mdh_.params)
      decls.push_back("const " + element_type_name(mdh_, p.type, options_) + ' ' + p.name);
    std::string s;
    for (size_t k = 0; k < decls.size(); ++k) s += (k ? ",\n    " : "") + decls[k];
    return s;
  }

  /// The call of f at the current point: one line per input access with the access as a comment.
  void write_scalar_call(std::ostringstream& out, int level) const {
    out << indent(level) << "const " << result_type() << " mdh_value = mdh_scalar(\n";
    std::vector<std::pair<std::string, std::string>> args;  // code, comment
    for (const auto& access : mdh_.inputs) {
      const std::string& buffer = mdh_.buffers.at(access.buffer).name;
      std::string offset = flat_offset_code(mdh_, access, code_, access.has_window());
      const ElementType& type = mdh_.buffers.at(access.buffer).type;
      args.push_back({access.has_window() ? buffer + " + " + offset : load_element(type, buffer, offset),
                      access_text(mdh_, access) + (access.has_window() ? ", window origin" : "")});
    }
    std::string dims;
    for (const auto& d : mdh_.dims) dims += (dims.empty() ? "" : ", ") + d.name;
    args.push_back({dims, "the current point"});
    std::vector<std::string> trailing;
    for (const auto& p : mdh_.params) trailing.push_back(p.name);
    for (size_t b = 0; b < mdh_.buffers.size(); ++b) {
      const Buffer& buffer = mdh_.buffers[b];
      if (buffer.kind != BufferKind::Table) continue;
      const auto& extents = bound_.buffer_extents.at(b);
      std::string rows;
      for (size_t k = 1; k < extents.size(); ++k) rows += "[" + std::to_string(extents[k]) + "]";
      // f indexes a table as the spec writes it (freq[f][v]), so it receives a pointer to the table's rows.
      trailing.push_back(rows.empty() ? buffer.name
                                      : "(__global const " + element_type_name(mdh_, buffer.type, options_) + " (*)" +
                                            rows + ")" + buffer.name);
    }
    if (!trailing.empty()) {
      std::string s;
      for (const auto& t : trailing) s += (s.empty() ? "" : ", ") + t;
      args.push_back({s, "params and tables"});
    }
    for (size_t k = 0; k < args.size(); ++k)
      out << indent(level + 2) << args[k].first << (k + 1 < args.size() ? "," : ");") << "  // " << args[k].second
          << '\n';
  }

  /// Nested loops over the reduction dimensions from position `r` on; leaves the combined value in
  /// `mdh_acc_<dim>` of the outermost level (or mdh_value when there is no reduction dimension).
  void write_reduction(std::ostringstream& out, const std::vector<int>& reduction, size_t r, int level) const {
    if (r == reduction.size()) {
      write_scalar_call(out, level);
      return;
    }
    int d = reduction[r];
    const Dimension& dim = mdh_.dims[d];
    std::string acc = "mdh_acc_" + dim.name;
    std::string inner = r + 1 == reduction.size() ? "mdh_value" : "mdh_acc_" + mdh_.dims[reduction[r + 1]].name;
    out << indent(level) << "// Combine over " << dim.name << " with " << dim.combine.spelling()
        << ", in index order.\n";
    out << indent(level) << result_type() << ' ' << acc << " = " << identity_call(d) << ";\n";
    out << indent(level) << "for (int " << dim.name << " = 0; " << dim.name << " < " << code_(dim.extent) << "; ++"
        << dim.name << ") {\n";
    write_reduction(out, reduction, r + 1, level + 1);
    out << indent(level + 1) << acc << " = " << combine_call(d, acc, inner) << ";\n";
    out << indent(level) << "}\n";
  }

  void write_kernel(std::ostringstream& out) const {
    std::vector<int> concat = mdh_.concat_dims(), reduction = mdh_.reduction_dims();
    out << "__kernel void " << kernel_name_ << "(\n    " << kernel_parameters() << ")\n{\n";
    if (!concat.empty()) {
      out << "  // This work-item's output point: the ++ dimensions, row-major in the flat work-item id.\n";
      out << "  const long mdh_point = get_global_id(0);\n";
      out << "  if (mdh_point >= " << product_code(mdh_, concat, code_) << ") return;\n";
      for (size_t m = 0; m < concat.size(); ++m) {
        std::vector<int> later(concat.begin() + m + 1, concat.end());
        std::string value = "mdh_point";
        if (!later.empty())
          value += " / " + (later.size() == 1 ? product_code(mdh_, later, code_)
                                              : "(" + product_code(mdh_, later, code_) + ")");
        if (m > 0) value += " % " + code_.factor(mdh_.dims[concat[m]].extent);
        out << "  const int " << mdh_.dims[concat[m]].name << " = (int)(" << value << ");\n";
      }
      out << '\n';
    }
    write_reduction(out, reduction, 0, 1);
    std::string result = reduction.empty() ? "mdh_value" : "mdh_acc_" + mdh_.dims[reduction[0]].name;
    const Buffer& output = mdh_.buffers.at(mdh_.output.buffer);
    const ElementType stored = output_widened() ? ElementType{ScalarType::Double, ""} : output.type;
    out << "  " << store_element(stored, output.name, flat_offset_code(mdh_, mdh_.output, code_, false), result)
        << "  // " << access_text(mdh_, mdh_.output) << "\n}\n";
  }

  const BoundMdh& bound_;
  const Mdh& mdh_;
  const PreambleOptions& options_;
  SizeCode code_;
  std::string kernel_name_;
};

}  // namespace

std::string size_macro_name(const Mdh& mdh, const std::string& size_name) {
  return SizeCode(mdh).macro(size_name);
}

LaunchPlan generate_reference_kernel(const BoundMdh& bound, const PreambleOptions& options) {
  MDH_INTERNAL_ASSERT(bound.mdh != nullptr, "bound md_hom without IR");
  MDH_INTERNAL_ASSERT(!options.promote_float_to_double || can_promote_to_double(*bound.mdh),
                      "promote_float_to_double on an md_hom with struct types");
  return ReferenceKernelWriter(bound, options).write();
}

}  // namespace mdh
