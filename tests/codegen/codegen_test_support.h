// Shared by the codegen tests: specs parsed from the source tree (or from text) and bound to sizes.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mdh/bind.h"
#include "mdh/parser.h"

namespace mdh::testing {

/// Reads a file below the source tree, e.g. "apps/gemm.mdh".
inline std::string read_source_file(const std::string& relative_path) {
  std::ifstream in(std::string(MDH_SOURCE_DIR) + "/" + relative_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + relative_path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// How often `what` occurs in `text` (overlapping occurrences count), e.g. a statement in generated source.
inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// Parses `text` as if it were the file `file_name` and binds `sizes` ("I=4,J=5").
inline BoundMdh bind_spec_text(const std::string& text, const std::string& file_name, const std::string& sizes) {
  return bind(parse_spec(text, file_name), parse_size_binding(sizes));
}

/// Parses a spec of the source tree (diagnostics and #line directives name it by its relative path).
inline BoundMdh bind_app(const std::string& relative_path, const std::string& sizes) {
  return bind_spec_text(read_source_file(relative_path), relative_path, sizes);
}

/// Every (spec, sizes) that the experiment files of the source tree benchmark, once each, in file order.
inline std::vector<std::pair<std::string, std::string>> experiment_cases(const std::vector<std::string>& files) {
  std::vector<std::pair<std::string, std::string>> cases;
  std::set<std::pair<std::string, std::string>> seen;
  for (const std::string& file : files) {
    const nlohmann::json experiments = nlohmann::json::parse(read_source_file(file));
    for (const auto& routine : experiments.at("routines"))
      for (const auto& size : routine.at("sizes")) {
        const std::pair<std::string, std::string> c{routine.at("spec"), size.at("size")};
        if (seen.insert(c).second) cases.push_back(c);
      }
  }
  return cases;
}

}  // namespace mdh::testing
