// The two error channels of mdh (see STYLE.md "Errors"): user errors for a bad spec, size, config or
// device (reported as `file:line:col: error: message`, exit status 2), and internal asserts for our own bugs.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace mdh {

/// A position in a spec file; line and column are 1-based, 0 means "unknown".
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;
};

/// An error in what the user gave us. `what()` is the complete diagnostic, ready to print.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(message) {}
  UserError(const SourceLoc& loc, const std::string& message) : std::runtime_error(format(loc, message)), loc_(loc) {}
  const SourceLoc& loc() const { return loc_; }

  /// `file:line:col: error: message`, or `error: message` when the location is unknown.
  static std::string format(const SourceLoc& loc, const std::string& message) {
    std::ostringstream out;
    if (!loc.file.empty()) {
      out << loc.file << ':';
      if (loc.line > 0) out << loc.line << ':' << loc.col << ':';
      out << ' ';
    }
    out << "error: " << message;
    return out.str();
  }

 private:
  SourceLoc loc_;
};

/// A broken invariant inside mdh: a bug of ours, never the user's fault. Always checked.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] inline void internal_error(const char* file, int line, const std::string& what) {
  throw InternalError(std::string("internal error at ") + file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace mdh

#define MDH_INTERNAL_ASSERT(cond, msg)                                                              \
  do {                                                                                              \
    if (!(cond)) ::mdh::internal_error(__FILE__, __LINE__, std::string(#cond " failed: ") + (msg)); \
  } while (0)
