// Golden tests: the complete reference kernels of gemm and gaussian, compared with tests/codegen/golden/*.cl.
// After an intended change of the generated code, rewrite the files with MDH_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "codegen/reference_kernel.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/opencl_test_device.h"

namespace mdh {
namespace {

void expect_golden(const std::string& actual, const std::string& golden_name) {
  const std::string relative = "tests/codegen/golden/" + golden_name;
  const char* update = std::getenv("MDH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(std::string(MDH_SOURCE_DIR) + "/" + relative, std::ios::binary) << actual;
    return;
  }
  std::string expected = testing::read_source_file(relative);
  EXPECT_EQ(actual, expected) << "generated code differs from " << relative
                              << " (MDH_UPDATE_GOLDEN=1 rewrites it after an intended change)";
}

TEST(ReferenceKernelGolden, Gemm) {
  LaunchPlan plan = generate_reference_kernel(testing::bind_app("apps/gemm.mdh", "I=10,J=500,K=64"), {});
  expect_golden(plan.source, "gemm_reference.cl");
  EXPECT_EQ(plan.build_options, "-cl-std=CL1.2");
  ASSERT_EQ(plan.kernels.size(), 1u);
  const KernelLaunch& launch = plan.kernels[0];
  EXPECT_EQ(launch.kernel_name, "gemm_reference");
  EXPECT_EQ(launch.work_dims, 1);
  EXPECT_EQ(launch.global_size, (std::array<uint64_t, 3>{5000, 1, 1}));
  EXPECT_FALSE(launch.local_size.has_value());
  EXPECT_EQ(launch.args, (std::vector<KernelArg>{{KernelArg::Kind::Buffer, "A", -1},
                                                 {KernelArg::Kind::Buffer, "B", -1},
                                                 {KernelArg::Kind::Buffer, "C", -1}}));
  EXPECT_TRUE(plan.scratch.empty());
}

TEST(ReferenceKernelGolden, Gaussian) {
  LaunchPlan plan = generate_reference_kernel(testing::bind_app("apps/gaussian.mdh", "I=224,J=224"), {});
  expect_golden(plan.source, "gaussian_reference.cl");
  EXPECT_EQ(plan.kernels.at(0).global_size, (std::array<uint64_t, 3>{224 * 224, 1, 1}));
}

TEST(ReferenceKernelGolden, GaussianPromotedToDouble) {
  LaunchPlan plan =
      generate_reference_kernel(testing::bind_app("apps/gaussian.mdh", "I=224,J=224"), PreambleOptions{true});
  expect_golden(plan.source, "gaussian_reference_double.cl");
}

TEST(ReferenceKernel, NoConcatDimensionIsOneWorkItem) {
  LaunchPlan plan = generate_reference_kernel(testing::bind_app("apps/dot.mdh", "K=100"), {});
  EXPECT_EQ(plan.kernels.at(0).global_size, (std::array<uint64_t, 3>{1, 1, 1}));
  EXPECT_EQ(plan.source.find("get_global_id"), std::string::npos) << plan.source;
}

TEST(ReferenceKernel, SizeMacrosAvoidClashes) {
  auto gemm = testing::bind_app("apps/gemm.mdh", "I=2,J=2,K=2");
  EXPECT_EQ(size_macro_name(*gemm.mdh, "K"), "K");
  // User code that uses a size's name for its own variable would see it replaced by the macro: every size gets
  // the MDH_SIZE_ prefix then.
  std::string spec =
      "md_hom clash\nsize A N\ninput x : float[N][A]\noutput r : float[N]\n"
      "view (i < N, k < A) : x[i][k] -> r[i]\nscalar (v) { float N = v; return N; }\ncombine (++, +)\n";
  BoundMdh clash = testing::bind_spec_text(spec, "clash.mdh", "A=3,N=4");
  EXPECT_EQ(size_macro_name(*clash.mdh, "A"), "MDH_SIZE_A");
  std::string source = generate_reference_kernel(clash, {}).source;
  EXPECT_NE(source.find("#define MDH_SIZE_A 3L"), std::string::npos) << source;
  EXPECT_NE(source.find("x[(long)i * MDH_SIZE_A + k]"), std::string::npos) << source;
  EXPECT_NE(source.find("if (mdh_point >= MDH_SIZE_N) return;"), std::string::npos) << source;
  testing::BuildResult built = testing::build_program(source, "-cl-std=CL1.2");
  EXPECT_TRUE(built.ok) << built.log;
}

}  // namespace
}  // namespace mdh
