#include "mdh/lexer.h"

#include <cctype>
#include <vector>

#include "mdh/messages.h"

namespace mdh {

namespace {
bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
}  // namespace

std::string quoted_for_message(const std::string& text) {
  constexpr size_t kWhole = 64, kShown = 60;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) about "'" + std::string&&.
  std::string out = "'";
  if (text.size() <= kWhole) return out.append(text).append("'");
  return out.append(text, 0, kShown).append("...' (").append(std::to_string(text.size())).append(" characters)");
}

std::string Token::describe() const {
  switch (kind) {
    case TokenKind::Newline:
      return "end of line";
    case TokenKind::End:
      return "end of file";
    default:
      return quoted_for_message(text);
  }
}

Lexer::Lexer(const std::string& text, const std::string& file, int line, int col) : text_(text), file_(file) {
  cur_.line = line;
  cur_.col = col;
}

void Lexer::advance() {
  if (cur_.pos >= text_.size()) return;
  if (text_[cur_.pos] == '\n') {
    ++cur_.line;
    cur_.col = 1;
  } else {
    ++cur_.col;
  }
  ++cur_.pos;
}

void Lexer::skip_blanks_and_comments() {
  for (;;) {
    char c = at(cur_.pos);
    if (is_blank(c)) {
      advance();
    } else if (c == '#' || (c == '/' && at(cur_.pos + 1) == '/')) {
      while (cur_.pos < text_.size() && text_[cur_.pos] != '\n') advance();
    } else if (c == '/' && at(cur_.pos + 1) == '*') {
      skip_literal_or_comment();
    } else {
      return;
    }
  }
}

const Token& Lexer::peek() {
  if (!peeked_) {
    before_peek_ = cur_;
    peeked_ = scan();
  }
  return *peeked_;
}

Token Lexer::next() {
  Token t = peeked_ ? *peeked_ : scan();
  peeked_.reset();
  if (t.kind != TokenKind::End) last_end_ = t.end;
  return t;
}

void Lexer::rewind_peek() {
  if (peeked_) {
    cur_ = before_peek_;
    peeked_.reset();
  }
}

Token Lexer::scan() {
  skip_blanks_and_comments();
  Token t;
  t.loc = here();
  t.begin = cur_.pos;
  char c = at(cur_.pos);
  if (cur_.pos >= text_.size()) {
    t.kind = TokenKind::End;
  } else if (c == '\n') {
    t.kind = TokenKind::Newline;
    advance();
  } else if (is_ident_start(c)) {
    t.kind = TokenKind::Identifier;
    while (is_ident_char(at(cur_.pos))) {
      t.text += at(cur_.pos);
      advance();
    }
  } else if (std::isdigit(static_cast<unsigned char>(c))) {
    t.kind = TokenKind::Integer;
    while (std::isdigit(static_cast<unsigned char>(at(cur_.pos)))) {
      t.text += at(cur_.pos);
      advance();
    }
    if (is_ident_char(at(cur_.pos))) throw UserError(t.loc, msg::bad_integer_literal(t.text + at(cur_.pos)));
    for (char d : t.text) {
      if (__builtin_mul_overflow(t.value, 10, &t.value) || __builtin_add_overflow(t.value, d - '0', &t.value))
        throw UserError(t.loc, msg::integer_too_large(t.text));
    }
  } else {
    static const char* const kTwoChar[] = {"->", "++", ".."};
    t.kind = TokenKind::Punct;
    for (const char* p : kTwoChar) {
      if (c == p[0] && at(cur_.pos + 1) == p[1]) t.text = p;
    }
    if (t.text.empty()) {
      if (std::string("()[]{},:;<=+-*/%").find(c) == std::string::npos || c == '\0')
        throw UserError(t.loc, msg::unexpected_character(c));
      t.text = std::string(1, c);
    }
    for (size_t k = 0; k < t.text.size(); ++k) advance();
  }
  t.end = cur_.pos;
  return t;
}

bool Lexer::skip_literal_or_comment() {
  char c = at(cur_.pos);
  if (c == '"' || c == '\'') {
    SourceLoc start = here();
    advance();
    while (at(cur_.pos) != c) {
      if (cur_.pos >= text_.size() || at(cur_.pos) == '\n') throw UserError(start, msg::unterminated_literal(c));
      if (at(cur_.pos) == '\\') advance();
      advance();
    }
    advance();
    return true;
  }
  if (c == '/' && at(cur_.pos + 1) == '/') {
    while (cur_.pos < text_.size() && at(cur_.pos) != '\n') advance();
    return true;
  }
  if (c == '/' && at(cur_.pos + 1) == '*') {
    SourceLoc start = here();
    advance();
    advance();
    while (!(at(cur_.pos) == '*' && at(cur_.pos + 1) == '/')) {
      if (cur_.pos >= text_.size()) throw UserError(start, msg::kUnterminatedComment);
      advance();
    }
    advance();
    advance();
    return true;
  }
  return false;
}

UserCode Lexer::capture_braced(const std::string& what) {
  rewind_peek();
  skip_blanks_and_comments();
  SourceLoc open = here();
  if (at(cur_.pos) != '{') {
    Token found = scan();
    throw UserError(found.loc, msg::expected("'{' to open " + what, found));
  }
  advance();
  UserCode code;
  code.loc = here();
  size_t begin = cur_.pos;
  int depth = 1;
  for (;;) {
    if (cur_.pos >= text_.size()) throw UserError(open, msg::unterminated_block(what));
    if (skip_literal_or_comment()) continue;
    char c = at(cur_.pos);
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) break;
    advance();
  }
  code.text = text_.substr(begin, cur_.pos - begin);
  advance();  // the closing brace
  last_end_ = cur_.pos;
  return code;
}

UserCode Lexer::capture_expression(const std::string& what, bool stop_at_identity) {
  rewind_peek();
  while (is_blank(at(cur_.pos))) advance();
  UserCode code;
  code.loc = here();
  size_t begin = cur_.pos, end = cur_.pos;
  std::string open_brackets;         // a stack of the brackets still open
  std::vector<SourceLoc> open_locs;  // and where each was opened
  for (;;) {
    char c = at(cur_.pos);
    if (cur_.pos >= text_.size()) break;
    bool top = open_brackets.empty();
    if (top && (c == '\n' || c == '#' || (c == '/' && at(cur_.pos + 1) == '/'))) break;
    if (top && stop_at_identity && text_.compare(cur_.pos, 8, "identity") == 0 && !is_ident_char(at(cur_.pos + 8)) &&
        (cur_.pos == 0 || !is_ident_char(at(cur_.pos - 1))))
      break;
    if (skip_literal_or_comment()) {
      end = cur_.pos;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      open_brackets += c;
      open_locs.push_back(here());
    }
    if (c == ')' || c == ']' || c == '}') {
      char expected_open = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (open_brackets.empty() || open_brackets.back() != expected_open)
        throw UserError(here(), msg::unbalanced_bracket(c, what));
      open_brackets.pop_back();
      open_locs.pop_back();
    }
    advance();
    if (!is_blank(c) && c != '\n') end = cur_.pos;
  }
  if (!open_brackets.empty()) throw UserError(open_locs.back(), msg::unclosed_bracket(open_brackets.back(), what));
  code.text = text_.substr(begin, end - begin);
  if (code.text.empty()) throw UserError(code.loc, msg::empty_expression(what));
  last_end_ = end;
  return code;
}

}  // namespace mdh
