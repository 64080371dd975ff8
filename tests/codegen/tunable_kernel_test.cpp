// Targeted tests of the tunable kernel: one family at a time, against the reference kernel on PoCL.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codegen/kernel_config.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

using testing::bind_app;

// Runs `config` and the reference on seeded inputs; empty string when they agree.
std::string check(const BoundMdh& bound, const KernelConfig& config) {
  const auto buffers = testing::seeded_buffers(bound, 7);
  const auto expected = testing::reference_output(bound, buffers);
  const LaunchPlan plan = generate_tunable_kernel(bound, config, testing::first_device_limits());
  const auto run = testing::run_plan_with_scratch(bound, plan, buffers);
  if (!run.error.empty()) return run.error + "\n" + plan.source;
  if (auto why = testing::compare_outputs(bound, expected, run.output))
    return *why + "\nconfig: " + config_to_json(*bound.mdh, config).dump() + "\n" + plan.source;
  return "";
}

TEST(TunableKernel, DefaultConfigGemm) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=13,J=7,K=5");
  EXPECT_EQ(check(bound, default_config(bound, testing::first_device_limits())), "");
}

}  // namespace
}  // namespace mdh
