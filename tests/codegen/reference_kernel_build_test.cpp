// Every spec in apps/ yields a reference kernel that builds on the default OpenCL device, in its own types and,
// where the types allow, promoted to double (the verifying reference of `mdh run --verify`).
#include <gtest/gtest.h>

#include <filesystem>

#include "codegen/reference_kernel.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/opencl_test_device.h"

namespace mdh {
namespace {

/// Small sizes, prime where possible, for every size symbol any app uses.
std::string small_sizes(const Mdh& mdh) {
  static const std::map<std::string, int> kPrimes = {{"I", 7}, {"J", 5}, {"K", 3}, {"N", 2}, {"M", 3}, {"P", 3},
                                                     {"Q", 5}, {"C", 3}, {"R", 3}, {"S", 2}, {"A", 3}, {"B", 2},
                                                     {"D", 3}, {"E", 2}, {"F", 2}, {"G", 5}};
  std::string text;
  for (const auto& s : mdh.sizes) {
    auto it = kPrimes.find(s.name);
    text += (text.empty() ? "" : ",") + s.name + "=" + std::to_string(it == kPrimes.end() ? 4 : it->second);
  }
  return text;
}

std::vector<std::string> app_specs() {
  std::vector<std::string> specs;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(MDH_SOURCE_DIR) + "/apps"))
    if (entry.path().extension() == ".mdh")
      specs.push_back(std::filesystem::relative(entry.path(), MDH_SOURCE_DIR).string());
  std::sort(specs.begin(), specs.end());
  return specs;
}

TEST(ReferenceKernelBuild, EveryAppBuildsOnTheDevice) {
  std::vector<std::string> specs = app_specs();
  ASSERT_GE(specs.size(), 17u) << "apps/ should hold 8 workloads and 9 tensor contractions";
  for (const auto& spec : specs) {
    SCOPED_TRACE(spec);
    auto parsed = parse_spec(testing::read_source_file(spec), spec);
    BoundMdh bound = bind(parsed, parse_size_binding(small_sizes(*parsed)));
    LaunchPlan plan = generate_reference_kernel(bound, {});
    testing::BuildResult built = testing::build_program(plan.source, plan.build_options);
    EXPECT_TRUE(built.ok) << built.log << "\n--- source ---\n" << plan.source;
    if (can_promote_to_double(*parsed) && testing::device_has_fp64()) {
      LaunchPlan promoted = generate_reference_kernel(bound, PreambleOptions{true});
      built = testing::build_program(promoted.source, promoted.build_options);
      EXPECT_TRUE(built.ok) << "promoted to double:\n" << built.log << "\n--- source ---\n" << promoted.source;
    }
  }
}

}  // namespace
}  // namespace mdh
