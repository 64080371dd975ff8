// The family table's modules register themselves by one line in their own file (codegen/families/family_module.h):
// every module file under codegen/families/ must be in the table's module list, in the order of its position.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "codegen/parameter_families.h"
#include "tests/codegen/codegen_test_support.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

/// The files under codegen/families/ that add families to the table: those defining an `add_<module>` function.
std::vector<std::string> module_files() {
  const std::regex adds_families(R"(void add_\w+\(std::vector<ParameterFamily>& \w+\) \{)");
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(fs::path(MDH_SOURCE_DIR) / "codegen" / "families"))
    if (entry.path().extension() == ".cpp" &&
        std::regex_search(testing::read_source_file("codegen/families/" + entry.path().filename().string()),
                          adds_families))
      out.push_back(entry.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FamilyModules, EveryModuleFileIsRegistered) {
  std::set<std::string> registered;
  for (const FamilyModule& module : family_modules()) registered.insert(module.name);
  const std::vector<std::string> files = module_files();
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files)
    EXPECT_TRUE(registered.count(file)) << "codegen/families/" << file
                                        << ".cpp adds families but is not in the table: it needs its line "
                                           "MDH_FAMILY_MODULE("
                                        << file << ", <a position above every other>);";
  for (const std::string& module : registered)
    EXPECT_TRUE(std::binary_search(files.begin(), files.end(), module)) << module << " has no module file";
}

// The build sorts the modules by position (codegen/list_family_modules.cmake): positions 90 and 100 in that order.
TEST(FamilyModules, TableOrderIsPositionOrder) {
  const std::vector<FamilyModule>& modules = family_modules();
  ASSERT_GT(modules.size(), 10u);
  for (size_t k = 1; k < modules.size(); ++k)
    EXPECT_LT(modules[k - 1].position, modules[k].position) << modules[k - 1].name << ", " << modules[k].name;
}

}  // namespace
}  // namespace mdh
