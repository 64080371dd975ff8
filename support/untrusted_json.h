// JSON that mdh reads from files it does not own (configurations, tuning results in the store, journals) is data of
// unknown origin: its nesting is bounded before it is parsed, so that no reader of it recurses without end.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "support/error.h"

namespace mdh {

/// Deeper than anything mdh writes (a configuration nests 4 levels) and far from any stack limit.
inline constexpr int kMaxJsonNesting = 64;

/// The deepest nesting of arrays and objects in `text`, skipping strings; counting stops once it passes `limit`.
inline int json_nesting_depth(std::string_view text, int limit = kMaxJsonNesting) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size() && deepest <= limit; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

/// `text` parsed, after checking its nesting: UserError("nested deeper than 64 levels") when too deep; syntax errors
/// as nlohmann::json::parse_error, as nlohmann::json::parse throws them.
inline nlohmann::json parse_untrusted_json(std::string_view text) {
  if (json_nesting_depth(text) > kMaxJsonNesting)
    throw UserError("nested deeper than " + std::to_string(kMaxJsonNesting) + " levels");
  return nlohmann::json::parse(text);
}

/// As above, but a discarded value (is_discarded()) for too deep or malformed text, never an exception.
inline nlohmann::json parse_untrusted_json_or_discarded(std::string_view text) {
  if (json_nesting_depth(text) > kMaxJsonNesting) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace mdh
