// Tokens of the spec language, and verbatim capture of the OpenCL C that a spec embeds (scalar and operator
// bodies, identities, helper blocks, struct bodies). The parser drives it one token at a time; user code is
// captured as raw text with the location of its first character, so that build logs map back to spec lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mdh/ir.h"
#include "support/error.h"

namespace mdh {

/// A name or token as diagnostics quote it: whole up to 64 characters, else its first 60 and how long it is (a
/// 1 MB identifier is not echoed whole).
std::string quoted_for_message(const std::string& text);

enum class TokenKind { Identifier, Integer, Punct, Newline, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;   // identifier, digits or punctuation as written; empty for Newline and End
  int64_t value = 0;  // TokenKind::Integer
  SourceLoc loc;
  size_t begin = 0, end = 0;  // byte range in the lexed text

  bool is(const char* punct) const { return kind == TokenKind::Punct && text == punct; }
  bool is_word(const char* word) const { return kind == TokenKind::Identifier && text == word; }
  bool ends_statement() const { return kind == TokenKind::Newline || kind == TokenKind::End; }
  /// For diagnostics: "'foo'", "end of line", "end of file".
  std::string describe() const;
};

/// Splits spec text into tokens. `#` and `//` start a comment that runs to the end of the line, `/* */` is a
/// comment too (struct bodies are C); newlines are tokens
/// because statements end at the end of their line. Punctuation: ( ) [ ] { } , : ; < = -> ++ .. + - * / %.
class Lexer {
 public:
  /// `line`/`col` give the position of text[0] in the spec file (struct bodies are lexed where they stand).
  Lexer(const std::string& text, const std::string& file, int line = 1, int col = 1);

  const Token& peek();
  Token next();
  /// End of the most recently consumed token (byte offset), for slicing source text as written.
  size_t last_end() const { return last_end_; }
  const std::string& text() const { return text_; }

  /// Captures the OpenCL C between a `{` (the next non-blank character, required) and its matching `}`,
  /// skipping braces inside strings, character literals and comments. Returns the text between the braces.
  UserCode capture_braced(const std::string& what);

  /// Captures an OpenCL C expression up to the end of the line; the expression continues onto further lines
  /// while a bracket is open. A `//` or `#` comment at bracket depth 0 ends it. With `stop_at_identity`, the
  /// word `identity` at bracket depth 0 ends it too (it is left for the parser). Trailing blanks are dropped.
  UserCode capture_expression(const std::string& what, bool stop_at_identity);

 private:
  struct Position {
    size_t pos = 0;
    int line = 1, col = 1;
  };
  Token scan();
  void skip_blanks_and_comments();
  char at(size_t k) const { return k < text_.size() ? text_[k] : '\0'; }
  void advance();
  SourceLoc here() const { return SourceLoc{file_, cur_.line, cur_.col}; }
  /// Skips a string/char literal or a comment starting at the cursor; false if none starts there.
  bool skip_literal_or_comment();
  void rewind_peek();

  std::string text_, file_;
  Position cur_;
  std::optional<Token> peeked_;
  Position before_peek_;
  size_t last_end_ = 0;
};

}  // namespace mdh
