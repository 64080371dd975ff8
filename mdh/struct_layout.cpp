#include "mdh/struct_layout.h"

#include "mdh/lexer.h"
#include "mdh/messages.h"

namespace mdh {

namespace {
// Far beyond any useful record; it keeps offset arithmetic free of overflow.
constexpr int64_t kMaxStructBytes = int64_t{1} << 30;

size_t round_up(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}
}  // namespace

// struct_body ::= {field_decl}
// field_decl  ::= SCALAR_TYPE declarator {',' declarator} ';'
// declarator  ::= NAME {'[' INTEGER ']'}
StructType parse_struct_body(const std::string& name, const SourceLoc& name_loc, const UserCode& body) {
  StructType st;
  st.name = name;
  st.body = body.text;
  st.loc = name_loc;
  Lexer lex(body.text, body.loc.file, body.loc.line, body.loc.col);
  auto skip_newlines = [&] {
    while (lex.peek().kind == TokenKind::Newline) lex.next();
  };
  int64_t offset = 0;
  for (skip_newlines(); lex.peek().kind != TokenKind::End; skip_newlines()) {
    Token type_token = lex.next();
    std::optional<ScalarType> type;
    if (type_token.kind == TokenKind::Identifier) type = parse_scalar_type(type_token.text);
    if (!type) throw UserError(type_token.loc, msg::bad_struct_field_type(name, type_token.describe()));
    if (is_storage_only(*type)) throw UserError(type_token.loc, msg::storage_type_field(name, type_token.text));
    do {
      skip_newlines();
      Token field_name = lex.next();
      if (field_name.kind != TokenKind::Identifier)
        throw UserError(field_name.loc, msg::expected("a field name in struct '" + name + "'", field_name));
      for (const auto& f : st.fields)
        if (f.name == field_name.text) throw UserError(field_name.loc, msg::duplicate_field(name, f.name));
      StructField field;
      field.type = *type;
      field.name = field_name.text;
      int64_t elements = 1;
      while (lex.peek().is("[")) {
        lex.next();
        Token extent = lex.next();
        if (extent.kind != TokenKind::Integer || extent.value <= 0)
          throw UserError(extent.loc, msg::bad_field_extent(name, field.name, extent.describe()));
        if (__builtin_mul_overflow(elements, extent.value, &elements) || elements > kMaxStructBytes)
          throw UserError(extent.loc, msg::struct_too_large(name));
        field.array_extents.push_back(extent.value);
        Token close = lex.next();
        if (!close.is("]")) throw UserError(close.loc, msg::expected("']' after the array extent", close));
      }
      int64_t align = static_cast<int64_t>(size_of(*type));
      offset = static_cast<int64_t>(round_up(static_cast<size_t>(offset), static_cast<size_t>(align)));
      field.offset = static_cast<size_t>(offset);
      offset += elements * align;
      if (offset > kMaxStructBytes) throw UserError(field_name.loc, msg::struct_too_large(name));
      st.alignment = std::max(st.alignment, static_cast<size_t>(align));
      st.fields.push_back(std::move(field));
    } while (lex.peek().is(",") && (lex.next(), true));
    Token semicolon = lex.next();
    if (!semicolon.is(";")) throw UserError(semicolon.loc, msg::expected("';' after the field declaration", semicolon));
  }
  if (st.fields.empty()) throw UserError(name_loc, msg::empty_struct(name));
  st.size = round_up(static_cast<size_t>(offset), st.alignment);
  return st;
}

}  // namespace mdh
