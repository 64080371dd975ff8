// Text of the user's (file names, which are data) placed into generated OpenCL C: as a string literal that
// cannot end early, and as comment text that can neither close the comment nor end its line.
#pragma once

#include <string>
#include <string_view>

namespace mdh {

/// `text` as a C string literal, quotes included: `\` and `"` escaped, a `?` next to another `?` escaped (no
/// trigraph), and every byte outside printable ASCII as an escape (`\n`, `\t`, `\r`, else three octal digits), so
/// that no newline or control character appears raw. The compiler's own messages show the unescaped text again.
/// Printable ASCII other than those stays as it is: `#line 7 "apps/gemm.mdh"` is unchanged.
std::string c_string_literal(std::string_view text);

/// `text` for the inside of a `//` or `/* */` comment: escaped as in c_string_literal (quotes excepted), and `*/`
/// and `/*` broken up as `*\/` and `/\*`.
std::string comment_text(std::string_view text);

}  // namespace mdh
