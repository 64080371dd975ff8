// Recursive-descent parser of the spec language: one statement per line, user OpenCL C captured verbatim.
// Names are resolved where the IR needs an index (view accesses -> buffers, index names -> dimensions);
// everything else is checked by verify() once the whole file is read.
#include "mdh/parser.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "mdh/combine_operator.h"
#include "mdh/index_expr.h"
#include "mdh/lexer.h"
#include "mdh/messages.h"
#include "mdh/struct_layout.h"
#include "mdh/verify.h"
#include "support/input_file.h"

namespace mdh {

namespace {

/// A view access whose buffer name is resolved once all declarations are read (they may follow the view).
struct PendingAccess {
  std::string buffer;
  SourceLoc loc;
};

class Parser {
 public:
  Parser(const std::string& text, const std::string& file, const ReservedNameRule& generated_names)
      : lex_(text, file), mdh_(std::make_shared<Mdh>()), generated_names_(generated_names) {
    mdh_->file = file;
  }

  // spec ::= {NEWLINE} [statement {NEWLINE {NEWLINE} statement}] {NEWLINE}
  std::shared_ptr<Mdh> parse() {
    for (;;) {
      while (lex_.peek().kind == TokenKind::Newline) lex_.next();
      if (lex_.peek().kind == TokenKind::End) break;
      parse_statement();
      const Token& after = lex_.peek();
      if (!after.ends_statement()) throw UserError(after.loc, msg::junk_after_statement(after.describe(), statement_));
    }
    finish();
    verify(*mdh_, generated_names_);
    note_called_functions(*mdh_);
    return mdh_;
  }

 private:
  // ------------------------------------------------------------------------------------------ token helpers

  Token expect_punct(const char* punct, const std::string& context) {
    const Token& t = lex_.peek();
    if (!t.is(punct)) throw UserError(t.loc, msg::expected("'" + std::string(punct) + "' " + context, t));
    return lex_.next();
  }

  Token expect_identifier(const std::string& what) {
    const Token& t = lex_.peek();
    if (t.kind != TokenKind::Identifier) throw UserError(t.loc, msg::expected(what, t));
    return lex_.next();
  }

  bool accept_punct(const char* punct) {
    if (!lex_.peek().is(punct)) return false;
    lex_.next();
    return true;
  }

  void skip_newlines() {
    while (lex_.peek().kind == TokenKind::Newline) lex_.next();
  }

  /// Statements that may appear once: a second one is an error pointing at it.
  void once(const Token& keyword) {
    auto [it, fresh] = seen_.emplace(keyword.text, keyword.loc);
    if (!fresh) throw UserError(keyword.loc, msg::repeated_statement(keyword.text, it->second.line));
  }

  // ------------------------------------------------------------------------------------------ statements

  // statement ::= md_hom_stmt | size_stmt | type_stmt | param_stmt | buffer_stmt | view_stmt | helper_stmt
  //             | scalar_stmt | operator_stmt | combine_stmt | flops_stmt | bytes_stmt
  void parse_statement() {
    const Token& first = lex_.peek();
    if (first.kind != TokenKind::Identifier) throw UserError(first.loc, msg::expected_statement(first.describe()));
    Token keyword = lex_.next();
    statement_ = keyword.text;
    const std::string& k = keyword.text;
    if (k == "md_hom") return parse_md_hom(keyword);
    if (k == "size") return parse_size();
    if (k == "type") return parse_type();
    if (k == "param") return parse_param();
    if (k == "input") return parse_buffer(BufferKind::Input);
    if (k == "output") return parse_buffer(BufferKind::Output);
    if (k == "table") return parse_buffer(BufferKind::Table);
    if (k == "view") return parse_view(keyword);
    if (k == "helper") return parse_helper();
    if (k == "scalar") return parse_scalar(keyword);
    if (k == "operator") return parse_operator(keyword);
    if (k == "combine") return parse_combine(keyword);
    if (k == "flops" || k == "bytes") return parse_metric(keyword);
    throw UserError(keyword.loc, msg::unknown_statement(k));
  }

  // md_hom_stmt ::= 'md_hom' NAME
  void parse_md_hom(const Token& keyword) {
    once(keyword);
    Token name = expect_identifier("the md_hom's name after 'md_hom'");
    mdh_->name = name.text;
    mdh_->name_loc = name.loc;
  }

  // size_stmt ::= 'size' NAME {[','] NAME}
  void parse_size() {
    do {
      Token name = expect_identifier("a size name");
      mdh_->sizes.push_back(SizeSymbol{name.text, name.loc});
      accept_punct(",");
    } while (!lex_.peek().ends_statement());
  }

  // type_stmt ::= 'type' NAME '{' struct_body '}'
  void parse_type() {
    Token name = expect_identifier("the struct's name after 'type'");
    if (parse_scalar_type(name.text)) throw UserError(name.loc, msg::struct_named_like_scalar(name.text));
    UserCode body = lex_.capture_braced("the fields of struct '" + name.text + "'");
    mdh_->structs.push_back(parse_struct_body(name.text, name.loc, body));
  }

  // type_name ::= SCALAR_TYPE | STRUCT_NAME
  ElementType parse_type_name(const std::string& what) {
    Token name = expect_identifier(what);
    ElementType type;
    if (auto scalar = parse_scalar_type(name.text)) {
      type.scalar = *scalar;
    } else {
      type.struct_name = name.text;
      type_uses_.push_back({name.text, name.loc});
    }
    return type;
  }

  // param_stmt ::= 'param' NAME ':' type_name
  void parse_param() {
    Token name = expect_identifier("the param's name after 'param'");
    expect_punct(":", "after param name '" + name.text + "'");
    const SourceLoc type_loc = lex_.peek().loc;
    ElementType type = parse_type_name("the param's element type");
    if (!type.is_struct() && is_storage_only(type.scalar))
      throw UserError(type_loc, msg::storage_type_param(name.text, opencl_name(type.scalar)));
    mdh_->params.push_back(Param{name.text, type, name.loc});
  }

  // buffer_stmt ::= ('input' | 'output' | 'table') NAME ':' type_name '[' int_expr ']' {'[' int_expr ']'}
  void parse_buffer(BufferKind kind) {
    Buffer buffer;
    buffer.kind = kind;
    Token name = expect_identifier("the buffer's name after '" + statement_ + "'");
    buffer.name = name.text;
    buffer.loc = name.loc;
    expect_punct(":", "after buffer name '" + name.text + "'");
    const SourceLoc type_loc = lex_.peek().loc;
    buffer.type = parse_type_name("the element type of buffer '" + name.text + "'");
    if (kind == BufferKind::Table && !buffer.type.is_struct() && is_storage_only(buffer.type.scalar))
      throw UserError(type_loc, msg::storage_type_table(name.text, opencl_name(buffer.type.scalar)));
    if (!lex_.peek().is("[")) throw UserError(lex_.peek().loc, msg::buffer_without_extents(name.text, lex_.peek()));
    while (accept_punct("[")) {
      if (buffer.extents.size() == msg::kMaxDimensions)
        throw UserError(lex_.peek().loc, msg::too_many_buffer_dimensions(name.text));
      buffer.extents.push_back(parse_size_expression(lex_, "an extent of buffer '" + name.text + "'"));
      expect_punct("]", "to close the extent");
    }
    mdh_->buffers.push_back(std::move(buffer));
  }

  // view_stmt ::= 'view' '(' dim_decl {',' dim_decl} ')' ':' access {',' access} '->' access
  // dim_decl ::= NAME '<' int_expr
  void parse_view(const Token& keyword) {
    once(keyword);
    expect_punct("(", "to open the view's dimension list, e.g. 'view (i < I, j < J) : ...'");
    do {
      skip_newlines();
      Token name = expect_identifier("a dimension name, e.g. 'i < I'");
      if (mdh_->dims.size() == msg::kMaxDimensions) throw UserError(name.loc, msg::too_many_dimensions(name.text));
      expect_punct("<", "after dimension '" + name.text + "' (dimensions are declared as 'NAME < EXTENT')");
      Dimension dim;
      dim.name = name.text;
      dim.loc = name.loc;
      dim.extent = parse_size_expression(lex_, "the extent of dimension '" + name.text + "'");
      mdh_->dims.push_back(std::move(dim));
      skip_newlines();
    } while (accept_punct(","));
    expect_punct(")", "to close the view's dimension list");
    expect_punct(":", "after the view's dimensions, followed by the input accesses");
    std::vector<std::string> dim_names;
    for (const auto& d : mdh_->dims) dim_names.push_back(d.name);
    do {
      mdh_->inputs.push_back(parse_access(dim_names, pending_inputs_));
    } while (accept_punct(","));
    expect_punct("->", "between the input accesses and the output access");
    std::vector<PendingAccess> out;
    mdh_->output = parse_access(dim_names, out);
    pending_output_ = out.front();
  }

  // access ::= NAME '[' index ']' {'[' index ']'}
  Access parse_access(const std::vector<std::string>& dims, std::vector<PendingAccess>& pending) {
    Token name = expect_identifier("a buffer access, e.g. 'A[i][k]'");
    Access access;
    access.loc = name.loc;
    pending.push_back(PendingAccess{name.text, name.loc});
    if (!lex_.peek().is("[")) throw UserError(lex_.peek().loc, msg::access_without_index(name.text, lex_.peek()));
    while (accept_punct("[")) {
      access.indices.push_back(parse_affine_index(lex_, dims));
      expect_punct("]", "to close the index");
    }
    return access;
  }

  // helper_stmt ::= 'helper' '{' OPENCL_C '}'
  void parse_helper() { mdh_->helpers.push_back(lex_.capture_braced("the helper block")); }

  // scalar_stmt ::= 'scalar' '(' [NAME {',' NAME}] ')' ('=' OPENCL_EXPR | '{' OPENCL_C '}')
  void parse_scalar(const Token& keyword) {
    once(keyword);
    ScalarFunction& f = mdh_->scalar;
    f.loc = keyword.loc;
    expect_punct("(", "to open the scalar function's argument list, e.g. 'scalar (a, b) = a * b'");
    if (!lex_.peek().is(")")) {
      do {
        Token arg = expect_identifier("an argument name of the scalar function");
        f.arg_names.push_back(arg.text);
        f.arg_locs.push_back(arg.loc);
      } while (accept_punct(","));
    }
    expect_punct(")", "to close the scalar function's argument list");
    if (accept_punct("=")) {
      f.is_expression = true;
      f.body = lex_.capture_expression("the scalar function", false);
    } else if (lex_.peek().is("{")) {
      f.body = lex_.capture_braced("the scalar function's body");
    } else {
      throw UserError(lex_.peek().loc,
                      msg::expected("'= EXPRESSION' or a '{ ... }' body for the scalar function", lex_.peek()));
    }
  }

  // operator_stmt ::= 'operator' NAME '(' type_name NAME ',' type_name NAME ')'
  //                   ('=' OPENCL_EXPR | '{' OPENCL_C '}') 'identity' OPENCL_EXPR
  void parse_operator(const Token& keyword) {
    UserOperator op;
    op.loc = keyword.loc;
    Token name = expect_identifier("the operator's name after 'operator'");
    op.name = name.text;
    op.loc = name.loc;
    expect_punct("(", "to open the operator's parameter list, e.g. 'operator best(T p, T q)'");
    const SourceLoc type_loc = lex_.peek().loc;
    op.type = parse_type_name("the type of the operator's first parameter");
    if (!op.type.is_struct() && is_storage_only(op.type.scalar))
      throw UserError(type_loc, msg::storage_type_operator(op.name, opencl_name(op.type.scalar)));
    op.lhs_name = expect_identifier("the name of the operator's first parameter").text;
    expect_punct(",", "between the operator's two parameters");
    SourceLoc rhs_type_loc = lex_.peek().loc;
    ElementType rhs_type = parse_type_name("the type of the operator's second parameter");
    Token rhs = expect_identifier("the name of the operator's second parameter");
    op.rhs_name = rhs.text;
    expect_punct(")", "to close the operator's parameter list (an operator takes exactly two parameters)");
    if (!(rhs_type == op.type))
      throw UserError(rhs_type_loc, msg::operator_parameter_types_differ(op.name, mdh_->type_name(op.type),
                                                                         mdh_->type_name(rhs_type)));
    if (op.lhs_name == op.rhs_name) throw UserError(rhs.loc, msg::operator_parameters_same_name(op.name, rhs.text));
    if (accept_punct("=")) {
      op.is_expression = true;
      op.body = lex_.capture_expression("operator '" + op.name + "'", true);
    } else if (lex_.peek().is("{")) {
      op.body = lex_.capture_braced("the body of operator '" + op.name + "'");
      skip_newlines();
    } else {
      throw UserError(lex_.peek().loc,
                      msg::expected("'= EXPRESSION' or a '{ ... }' body for operator '" + op.name + "'", lex_.peek()));
    }
    const Token& identity = lex_.peek();
    if (!identity.is_word("identity"))
      throw UserError(identity.loc,
                      msg::expected("'identity' and the identity element of operator '" + op.name + "'", identity));
    lex_.next();
    op.identity = lex_.capture_expression("the identity of operator '" + op.name + "'", false);
    mdh_->operators.push_back(std::move(op));
  }

  // combine_stmt ::= 'combine' '(' combine_op {',' combine_op} ')'
  // combine_op ::= BUILTIN (the spellings of builtin_combine_operators(): ++ + * max min) | OPERATOR_NAME
  void parse_combine(const Token& keyword) {
    once(keyword);
    expect_punct("(", "to open the combine list, e.g. 'combine (++, ++, +)'");
    do {
      skip_newlines();
      const Token& t = lex_.peek();
      CombineOp op;
      op.loc = t.loc;
      // A word that spells a built-in (max) is the built-in; verify() rejects operators declared with that name.
      const BuiltinCombineOperator* builtin = t.kind == TokenKind::Punct || t.kind == TokenKind::Identifier
                                                  ? find_builtin_combine_operator(t.text)
                                                  : nullptr;
      if (builtin != nullptr) {
        op.kind = builtin->kind;
      } else if (t.kind == TokenKind::Identifier) {
        op.kind = CombineOp::Kind::User;
        op.user_name = t.text;
      } else {
        throw UserError(
            t.loc, msg::expected("a combine operator (" + builtin_combine_spellings() + " or a declared operator)", t));
      }
      lex_.next();
      combine_.push_back(op);
      skip_newlines();
    } while (accept_punct(","));
    combine_close_ = expect_punct(")", "to close the combine list").loc;
  }

  // flops_stmt ::= 'flops' int_expr        bytes_stmt ::= 'bytes' int_expr
  void parse_metric(const Token& keyword) {
    once(keyword);
    SizeExpr e = parse_size_expression(lex_, "the " + keyword.text + " expression");
    (keyword.text == "flops" ? mdh_->flops : mdh_->bytes) = e;
  }

  // ------------------------------------------------------------------------------------------ end of file

  /// Statement-level checks that need the whole file, then the name resolution that the IR needs.
  void finish() {
    SourceLoc file_start{mdh_->file, 1, 1};
    if (!seen_.count("md_hom")) throw UserError(file_start, msg::kMissingMdHom);
    for (const char* required : {"view", "scalar", "combine"}) {
      if (!seen_.count(required)) throw UserError(mdh_->name_loc, msg::missing_statement(mdh_->name, required));
    }
    for (const auto& [name, loc] : type_uses_) {
      if (mdh_->find_struct(name) < 0) throw UserError(loc, msg::undeclared_type(name));
    }
    for (size_t k = 0; k < mdh_->inputs.size(); ++k) mdh_->inputs[k].buffer = resolve_buffer(pending_inputs_[k]);
    mdh_->output.buffer = resolve_buffer(*pending_output_);
    if (combine_.size() != mdh_->dims.size()) {
      std::string dims;
      for (const auto& d : mdh_->dims) dims += (dims.empty() ? "" : ", ") + d.name;
      SourceLoc at = combine_.size() > mdh_->dims.size() ? combine_[mdh_->dims.size()].loc : combine_close_;
      throw UserError(at, msg::combine_length(combine_.size(), mdh_->dims.size(), dims));
    }
    for (size_t d = 0; d < combine_.size(); ++d) mdh_->dims[d].combine = combine_[d];
  }

  int resolve_buffer(const PendingAccess& access) {
    int b = mdh_->find_buffer(access.buffer);
    if (b < 0) throw UserError(access.loc, msg::undeclared_buffer(access.buffer));
    return b;
  }

  // ------------------------------------------------------------------------------------------ state

  Lexer lex_;
  std::shared_ptr<Mdh> mdh_;
  const ReservedNameRule& generated_names_;                   // the code generators' names, checked with the language's
  std::string statement_;                                     // keyword of the statement being parsed, for diagnostics
  std::map<std::string, SourceLoc> seen_;                     // once-only statements already read
  std::vector<std::pair<std::string, SourceLoc>> type_uses_;  // struct names used as element types
  std::vector<PendingAccess> pending_inputs_;
  std::optional<PendingAccess> pending_output_;
  std::vector<CombineOp> combine_;
  SourceLoc combine_close_;
};

}  // namespace

std::shared_ptr<Mdh> parse_spec(const std::string& text, const std::string& file,
                                const ReservedNameRule& generated_names) {
  // User code is passed on verbatim; a NUL byte in it would reach the device compiler as a puzzling error there.
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    const size_t line_start = text.rfind('\n', nul);
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
    const int col = static_cast<int>(nul - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
    throw UserError(SourceLoc{file, line, col}, msg::kNulByte);
  }
  return Parser(text, file, generated_names).parse();
}

std::shared_ptr<Mdh> parse_spec_file(const std::string& path, const ReservedNameRule& generated_names) {
  const InputFile file = read_input_file(path, kMaxSpecBytes);
  if (!file.ok) throw UserError(SourceLoc{path, 0, 0}, std::string(msg::kCannotReadSpec) + ": " + file.problem);
  return parse_spec(file.bytes, path, generated_names);
}

}  // namespace mdh
