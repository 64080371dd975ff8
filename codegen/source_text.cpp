// Escaping of the user's text for string literals and comments of generated OpenCL C.
#include "codegen/source_text.h"

namespace mdh {

namespace {

/// Escapes every byte of `text` that could end a literal or a line, or be read as a trigraph; `quote` says whether
/// `"` is escaped too.
std::string escaped(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size() + 2);
  for (size_t k = 0; k < text.size(); ++k) {
    const unsigned char c = static_cast<unsigned char>(text[k]);
    const bool next_to_question_mark = (k > 0 && text[k - 1] == '?') || (k + 1 < text.size() && text[k + 1] == '?');
    if (c == '\\' || (quote && c == '"') || (c == '?' && next_to_question_mark)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7f) {
      // Three octal digits always: an octal escape ends after three, whatever follows (a hex escape would not).
      out += '\\';
      out += static_cast<char>('0' + (c >> 6));
      out += static_cast<char>('0' + ((c >> 3) & 7));
      out += static_cast<char>('0' + (c & 7));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

std::string c_string_literal(std::string_view text) {
  return '"' + escaped(text, true) + '"';
}

std::string comment_text(std::string_view text) {
  const std::string inner = escaped(text, false);
  std::string out;
  out.reserve(inner.size());
  for (size_t k = 0; k < inner.size(); ++k) {
    out += inner[k];
    const bool opens_or_closes =
        k + 1 < inner.size() && ((inner[k] == '*' && inner[k + 1] == '/') || (inner[k] == '/' && inner[k + 1] == '*'));
    if (opens_or_closes) out += '\\';
  }
  return out;
}

}  // namespace mdh
