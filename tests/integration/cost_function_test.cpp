// MdHomCostFunction's cuts on PoCL: a candidate far behind the best is cut after its warm-up where the driver builds
// the whole kernel at clBuildProgram (NVIDIA; here its limits are claimed), else after one timed run; without a
// best nothing is cut and the result is verified.
#include "pipeline/cost_function.h"

#include <gtest/gtest.h>

#include <memory>

#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "mdh/parser.h"
#include "pipeline/device_limits.h"
#include "pipeline/md_hom_run.h"
#include "runtime/device.h"

namespace mdh {
namespace {

TEST(CostFunction, FarBehindCandidatesAreCutAfterTheirWarmUpOnlyWhereTheBuildIsComplete) {
  const DeviceInfo device = select_device("");
  Context context(device);
  BoundMdh bound =
      bind(parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/gemm.mdh"), parse_size_binding("I=24,J=16,K=8"));
  MdHomRun run(context, bound, {}, {}, 7);
  const KernelConfig config = default_config(bound, device_limits(device));
  const tuner::EvaluationContext far_behind{1e-12};  // a best no real kernel comes near
  for (const bool nvidia : {true, false}) {
    DeviceLimits limits = device_limits(device);
    limits.nvidia_driver = nvidia;
    auto space = std::make_shared<const TuningSpace>(make_tuning_space(bound, limits));
    MdHomCostFunction cost(run, space, limits, CostSettings{1, 3, 3});
    const tuner::EvaluationResult cut = cost.evaluate(config, far_behind);
    EXPECT_EQ(cut.status, tuner::EvaluationStatus::ok);
    EXPECT_TRUE(cut.cut);
    EXPECT_FALSE(cut.verified);
    EXPECT_GT(cut.cost, 0);
    EXPECT_EQ(cut.reason, nvidia ? "cut after its warm-up run" : "cut after one timed run");
    const tuner::EvaluationResult full = cost.evaluate(config, {});
    EXPECT_FALSE(full.cut);
    EXPECT_TRUE(full.verified);
    EXPECT_EQ(full.reason, "");
  }
}

}  // namespace
}  // namespace mdh
