// Messages name types as nouns: "a float array", "an int32 array".
#pragma once

#include <string>

namespace mdh {

/// "a" or "an" before `word`, by its first letter (type names: "an int", "a uint", "a float").
inline std::string indefinite_article(const std::string& word) {
  return !word.empty() && std::string("aeioAEIO").find(word[0]) != std::string::npos ? "an" : "a";
}

}  // namespace mdh
