// tests/diagnostics/: one small broken spec per error case, each carrying its exact expected diagnostic in a line
// `# expect: MESSAGE`. A line `# sizes: I=4,J=5` makes the case a binding error: the spec must parse, and
// binding it at those sizes must fail with the message. Specs are parsed under the path
// `tests/diagnostics/NAME.mdh`, the file part of every expected message, with the code generators' reserved names as
// `mdh check` reads them (pipeline's load_spec).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/generated_names.h"
#include "mdh/bind.h"
#include "mdh/parser.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

constexpr int kMinimumCases = 20;
const std::string kExpectPrefix = "# expect: ";
const std::string kSizesPrefix = "# sizes: ";

std::vector<fs::path> diagnostic_specs() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(fs::path(MDH_SOURCE_DIR) / "tests" / "diagnostics"))
    if (entry.path().extension() == ".mdh") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// What parsing (and, with a sizes line, binding) reports for the spec, or "no error".
std::string diagnose(const std::string& text, const std::string& file, const std::optional<std::string>& sizes,
                     std::string& stage) {
  stage = "parse";
  try {
    auto mdh = parse_spec(text, file, generated_name_reason);
    if (!sizes) return "no error";
    stage = "bind";
    bind(mdh, parse_size_binding(*sizes));
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Diagnostics, EveryBrokenSpecGivesItsExactMessage) {
  auto specs = diagnostic_specs();
  EXPECT_GE(static_cast<int>(specs.size()), kMinimumCases) << "tests/diagnostics/ holds too few cases";
  for (const auto& path : specs) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::optional<std::string> expected, sizes;
    std::string line;
    for (std::istringstream lines(text.str()); std::getline(lines, line);) {
      if (line.rfind(kExpectPrefix, 0) == 0) {
        expected = line.substr(kExpectPrefix.size());
      } else if (line.rfind(kSizesPrefix, 0) == 0) {
        sizes = line.substr(kSizesPrefix.size());
      }
    }
    std::string name = path.filename().string();
    ASSERT_TRUE(expected.has_value()) << name << " has no '# expect: ' line";
    std::string stage;
    std::string actual = diagnose(text.str(), "tests/diagnostics/" + name, sizes, stage);
    EXPECT_EQ(actual, *expected) << name;
    if (sizes) {
      EXPECT_EQ(stage, "bind") << name << ": a case with '# sizes:' must parse and fail in binding";
    }
  }
}

}  // namespace
}  // namespace mdh
