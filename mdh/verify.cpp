#include "mdh/verify.h"

#include <cctype>
#include <map>
#include <optional>

#include "mdh/combine_operator.h"
#include "mdh/describe.h"
#include "mdh/messages.h"
#include "mdh/reserved_names.h"

namespace mdh {

namespace {

/// Every name a spec declares shares one namespace, because scalar code sees dimensions, params, tables and
/// sizes side by side and generated code uses buffer names as kernel arguments.
class NameTable {
 public:
  void declare(const std::string& name, const char* kind, const SourceLoc& loc) {
    auto [it, fresh] = names_.emplace(name, Entry{kind, loc});
    if (!fresh) throw UserError(loc, msg::duplicate_name(name, it->second.kind, it->second.loc.line));
  }

 private:
  struct Entry {
    const char* kind;
    SourceLoc loc;
  };
  std::map<std::string, Entry> names_;
};

// Walks a size expression and reports the first symbol that is not a declared size.
void check_symbols(const Mdh& m, const SizeExpr& e, bool in_index) {
  switch (e.kind()) {
    case SizeExpr::Kind::Constant:
      return;
    case SizeExpr::Kind::Symbol:
      if (m.find_size(e.symbol_name()) < 0) {
        std::string name = e.symbol_name();
        if (in_index) throw UserError(e.loc(), msg::unknown_index_name(name));
        if (m.find_dim(name) >= 0) throw UserError(e.loc(), msg::dimension_in_size_expression(name));
        throw UserError(e.loc(), msg::undeclared_size(name));
      }
      return;
    case SizeExpr::Kind::Neg:
      check_symbols(m, e.lhs(), in_index);
      return;
    default:
      check_symbols(m, e.lhs(), in_index);
      check_symbols(m, e.rhs(), in_index);
  }
}

void check_type(const Mdh& m, const ElementType& t, const SourceLoc& loc) {
  if (t.is_struct() && m.find_struct(t.struct_name) < 0) throw UserError(loc, msg::undeclared_type(t.struct_name));
}

/// Names the generated OpenCL C could never compile with: the language's, then the generators' (mdh/reserved_names.h).
void check_reserved(const Mdh& m, const ReservedNameRule& generated_names) {
  const std::vector<std::string> declared = declared_names(m);
  const auto check = [&](const std::string& name, NameScope scope, const char* kind, const SourceLoc& loc) {
    std::optional<std::string> reason = language_reserved_reason(name);
    if (!reason && generated_names) reason = generated_names(name, scope, declared);
    if (reason) throw UserError(loc, msg::reserved_name(name, kind, *reason));
  };
  for (const auto& s : m.sizes) check(s.name, NameScope::macro, "a size", s.loc);
  for (const auto& s : m.structs) {
    check(s.name, NameScope::kernel, "a type", s.loc);
    for (const auto& f : s.fields) check(f.name, NameScope::member, "a struct field", s.loc);
  }
  for (const auto& p : m.params) check(p.name, NameScope::kernel, "a param", p.loc);
  for (const auto& b : m.buffers) check(b.name, NameScope::kernel, "a buffer", b.loc);
  for (const auto& d : m.dims) check(d.name, NameScope::kernel, "a dimension", d.loc);
  for (const auto& op : m.operators) {
    check(op.name, NameScope::kernel, "an operator", op.loc);
    check(op.lhs_name, NameScope::member, "a parameter of an operator", op.loc);
    check(op.rhs_name, NameScope::member, "a parameter of an operator", op.loc);
  }
  const auto& args = m.scalar.arg_names;
  for (size_t k = 0; k < args.size(); ++k)
    check(args[k], NameScope::kernel, "an argument of the scalar function",
          k < m.scalar.arg_locs.size() ? m.scalar.arg_locs[k] : m.scalar.loc);
}

void check_names(const Mdh& m) {
  NameTable names;
  for (const auto& s : m.sizes) names.declare(s.name, "a size", s.loc);
  for (const auto& s : m.structs) names.declare(s.name, "a type", s.loc);
  for (const auto& p : m.params) names.declare(p.name, "a param", p.loc);
  for (const auto& b : m.buffers) names.declare(b.name, "a buffer", b.loc);
  for (const auto& d : m.dims) names.declare(d.name, "a dimension", d.loc);
  for (const auto& op : m.operators) {
    if (find_builtin_combine_operator(op.name) != nullptr)
      throw UserError(op.loc, msg::operator_named_like_builtin(op.name));
    names.declare(op.name, "an operator", op.loc);
  }
  const auto& args = m.scalar.arg_names;
  for (size_t k = 0; k < args.size(); ++k) {
    SourceLoc loc = k < m.scalar.arg_locs.size() ? m.scalar.arg_locs[k] : m.scalar.loc;
    names.declare(args[k], "an argument of the scalar function", loc);
  }
}

void check_declarations(const Mdh& m) {
  for (const auto& p : m.params) check_type(m, p.type, p.loc);
  for (const auto& op : m.operators) check_type(m, op.type, op.loc);
  const Buffer* first_output = nullptr;
  for (const auto& b : m.buffers) {
    check_type(m, b.type, b.loc);
    if (b.extents.empty()) throw UserError(b.loc, msg::buffer_needs_extent(b.name));
    for (const auto& e : b.extents) check_symbols(m, e, false);
    if (b.kind == BufferKind::Output) {
      if (first_output) throw UserError(b.loc, msg::second_output(b.name, first_output->name, first_output->loc.line));
      first_output = &b;
    }
  }
  if (!first_output) throw UserError(m.name_loc, msg::no_output(m.name));
  if (m.dims.empty()) throw UserError(m.name_loc, msg::missing_statement(m.name, "view"));
  for (const auto& d : m.dims) check_symbols(m, d.extent, false);
  if (m.flops) check_symbols(m, *m.flops, false);
  if (m.bytes) check_symbols(m, *m.bytes, false);
}

void check_access(const Mdh& m, const Access& a) {
  MDH_INTERNAL_ASSERT(a.buffer >= 0 && static_cast<size_t>(a.buffer) < m.buffers.size(), "access to no buffer");
  const Buffer& b = m.buffers[a.buffer];
  if (a.indices.size() != b.extents.size())
    throw UserError(a.loc, msg::wrong_index_count(access_text(m, a), b.name, a.indices.size(), b.extents.size()));
  for (const auto& index : a.indices) {
    for (const auto& term : index.terms) {
      MDH_INTERNAL_ASSERT(term.dim >= 0 && static_cast<size_t>(term.dim) < m.dims.size(), "index of no dimension");
      check_symbols(m, term.coefficient, true);
    }
    check_symbols(m, index.offset, true);
    if (index.window) {
      check_symbols(m, index.window->lo, true);
      check_symbols(m, index.window->hi, true);
      const Window& w = *index.window;
      if (w.lo.is_constant() && w.hi.is_constant() && w.lo.evaluate({}) > w.hi.evaluate({}))
        throw UserError(w.loc, msg::empty_window(index.text));
    }
  }
}

void check_view(const Mdh& m) {
  if (m.inputs.empty()) throw UserError(m.name_loc, msg::no_input_access(m.name));
  for (const auto& in : m.inputs) {
    check_access(m, in);
    const Buffer& b = m.buffers[in.buffer];
    if (b.kind == BufferKind::Table) throw UserError(in.loc, msg::table_in_view(b.name));
    if (b.kind == BufferKind::Output) throw UserError(in.loc, msg::output_read_in_view(b.name));
  }
  const Access& out = m.output;
  check_access(m, out);
  const Buffer& ob = m.buffers[out.buffer];
  if (ob.kind != BufferKind::Output) throw UserError(out.loc, msg::view_writes_non_output(ob.name));
  std::vector<bool> used(m.dims.size(), false);
  for (const auto& index : out.indices) {
    if (index.window) throw UserError(index.window->loc, msg::window_on_output(ob.name));
    for (const auto& term : index.terms) {
      const Dimension& d = m.dims[term.dim];
      if (!d.combine.is_concat()) throw UserError(index.loc, msg::reduction_dim_in_output(d.name, ob.name));
      used[term.dim] = true;
    }
  }
  for (int d : m.concat_dims()) {
    if (!used[d]) throw UserError(out.loc, msg::output_misses_concat_dim(access_text(m, out), m.dims[d].name));
  }
}

// Where `name` is followed by `[` in C code, outside comments and literals.
std::optional<size_t> indexed_at(const std::string& code, const std::string& name) {
  auto identifier_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = 0; at < code.size(); ++at) {
    if (code.compare(at, 2, "//") == 0) {
      at = code.find('\n', at);
      if (at == std::string::npos) break;
    } else if (code.compare(at, 2, "/*") == 0) {
      at = code.find("*/", at + 2);
      if (at == std::string::npos) break;
      ++at;
    } else if (code[at] == '"' || code[at] == '\'') {
      const char quote = code[at];
      for (++at; at < code.size() && code[at] != quote; ++at)
        if (code[at] == '\\') ++at;
    } else if (code.compare(at, name.size(), name) == 0 && (at == 0 || !identifier_char(code[at - 1])) &&
               (at + name.size() == code.size() || !identifier_char(code[at + name.size()]))) {
      size_t next = at + name.size();
      while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
      if (next < code.size() && code[next] == '[') return at;
      at += name.size() - 1;
    }
  }
  return std::nullopt;
}

// The spec position of offset `at` in user code that starts at `code.loc`.
SourceLoc location_in(const UserCode& code, size_t at) {
  SourceLoc loc = code.loc;
  for (size_t k = 0; k < at && k < code.text.size(); ++k) {
    if (code.text[k] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

void check_scalar(const Mdh& m) {
  const ScalarFunction& f = m.scalar;
  if (f.arg_names.size() != m.inputs.size()) {
    SourceLoc at = f.arg_names.size() > m.inputs.size() && m.inputs.size() < f.arg_locs.size()
                       ? f.arg_locs[m.inputs.size()]
                       : f.loc;
    throw UserError(at, msg::scalar_arity(f.arg_names.size(), m.inputs.size()));
  }
  // A window access gives f an accessor, which the device compiler would call undeclared when it meets `w[...]`.
  for (size_t k = 0; k < m.inputs.size(); ++k) {
    const Access& access = m.inputs[k];
    if (!access.has_window()) continue;
    if (const std::optional<size_t> at = indexed_at(f.body.text, f.arg_names[k])) {
      size_t windows = 0;
      for (const auto& index : access.indices) windows += index.window ? 1 : 0;
      throw UserError(location_in(f.body, *at), msg::window_indexed(f.arg_names[k], windows));
    }
  }
}

void check_combine(const Mdh& m) {
  const ElementType& result = m.result_type();
  std::string result_name = m.type_name(result), output_name = m.buffers[m.output.buffer].name;
  for (const auto& d : m.dims) {
    const CombineOp& op = d.combine;
    if (op.kind == CombineOp::Kind::User) {
      int k = m.find_operator(op.user_name);
      if (k < 0) throw UserError(op.loc, msg::unknown_combine_operator(op.user_name));
      const UserOperator& user = m.operators[k];
      // A half or bfloat16 output is combined in float, so its operators take float.
      if (!result.is_struct() && is_storage_only(result.scalar)) {
        if (!(user.type == ElementType{compute_type(result.scalar), ""}))
          throw UserError(
              op.loc, msg::operator_type_mismatch_storage(user.name, m.type_name(user.type), output_name, result_name));
      } else if (!(user.type == result))
        throw UserError(op.loc,
                        msg::operator_type_mismatch(user.name, m.type_name(user.type), output_name, result_name));
    } else if (builtin_combine_operator(op.kind).scalar_types_only && result.is_struct()) {
      throw UserError(op.loc, msg::builtin_on_struct(op.spelling(), output_name, result_name));
    }
  }
}

}  // namespace

void verify(const Mdh& m, const ReservedNameRule& generated_names) {
  if (m.name.empty()) throw UserError(SourceLoc{m.file, 1, 1}, msg::kMissingMdHom);
  check_names(m);
  check_reserved(m, generated_names);
  check_declarations(m);
  check_view(m);
  check_scalar(m);
  check_combine(m);
}

}  // namespace mdh
