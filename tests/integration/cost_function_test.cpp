// MdHomCostFunction on PoCL: a candidate far behind the best is cut after its warm-up where the driver builds the
// whole kernel at clBuildProgram (NVIDIA; here its limits are claimed), else after one timed run; without a best
// nothing is cut and the result is verified, on the device, with the host's report where it fails. A candidate whose
// build log reports spills is rejected before it runs.
#include "pipeline/cost_function.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>

#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "mdh/parser.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/kernel.h"
#include "pipeline/md_hom_run.h"
#include "runtime/binary_cache.h"
#include "runtime/device.h"

namespace mdh {
namespace {

// GEMM 24x16x8 with seeded inputs on the default device (PoCL here).
struct SmallGemmRun {
  const DeviceInfo device = select_device("");
  Context context{device};
  BoundMdh bound =
      bind(parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/gemm.mdh"), parse_size_binding("I=24,J=16,K=8"));
  MdHomRun run{context, bound, {}, {}, 7};
  // The device's own limits and the cost settings of a tuning run.
  DeviceLimits limits = device_limits(device);
  std::shared_ptr<const TuningSpace> space = std::make_shared<const TuningSpace>(make_tuning_space(bound, limits));
  MdHomCostFunction cost{run, space, limits, CostSettings{}};
};

TEST(CostFunction, FarBehindCandidatesAreCutAfterTheirWarmUpOnlyWhereTheBuildIsComplete) {
  SmallGemmRun gemm;
  const DeviceInfo& device = gemm.device;
  const BoundMdh& bound = gemm.bound;
  MdHomRun& run = gemm.run;
  const KernelConfig config = default_config(bound, device_limits(device));
  const tuner::EvaluationContext far_behind{1e-12};  // a best no real kernel comes near
  for (const bool nvidia : {true, false}) {
    DeviceLimits limits = device_limits(device);
    limits.nvidia_driver = nvidia;
    auto space = std::make_shared<const TuningSpace>(make_tuning_space(bound, limits));
    MdHomCostFunction cost(run, space, limits, CostSettings{});  // 1 warm-up, 3 runs, cut factor 3
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

// A final timing (tuner/evaluate/final_timing.h) is timed in full and checked even far behind the best.
TEST(CostFunction, AFinalTimingIsNeverCutAndAlwaysChecked) {
  SmallGemmRun gemm;
  tuner::EvaluationContext final_timing{1e-12};
  final_timing.final_runs = 4;
  const tuner::EvaluationResult result = gemm.cost.evaluate(default_config(gemm.bound, gemm.limits), final_timing);
  EXPECT_EQ(result.status, tuner::EvaluationStatus::ok);
  EXPECT_FALSE(result.cut);
  EXPECT_TRUE(result.verified);
  EXPECT_GT(result.cost, 1e-12);
  ASSERT_GE(result.stage_seconds.size(), 2u);
  EXPECT_EQ(result.stage_seconds.back().first, "verification");
}

// MdHomRun poisons the output (NaN) before the first run of a call only where asked: the cost function and the
// benchmark poison an evaluation's or a measurement's first launch and time the later ones as an application's calls
// follow one another. A kernel that writes nothing shows which: after OutputPoison::none the previous kernel's right
// output is still there; after before_first_run every byte is 0xFF and the check fails.
TEST(CostFunction, OnlyAPoisonedRunStartsFromNaNsAndTheOthersKeepWhatTheKernelsWrote) {
  SmallGemmRun gemm;
  const LaunchPlan plan =
      prepare_kernel(gemm.bound, gemm.limits, KernelChoice::typed(default_config(gemm.bound, gemm.limits))).plan;
  ASSERT_EQ(plan.kernels.size(), 1u);
  LaunchPlan writes_nothing = plan;
  std::string params;
  for (size_t a = 0; a < plan.kernels[0].args.size(); ++a) {
    ASSERT_EQ(plan.kernels[0].args[a].kind, KernelArg::Kind::Buffer);
    params += (a ? ", " : "") + std::string("__global float* arg") + std::to_string(a);
  }
  writes_nothing.source = "__kernel void " + plan.kernels[0].kernel_name + "(" + params + ") {}\n";

  gemm.run.run(plan, 0, 1);
  EXPECT_EQ(gemm.run.output_passes_on_device(), std::optional<bool>(true));
  gemm.run.run(writes_nothing, 1, 2, KernelEvents::profiled, OutputPoison::none);
  EXPECT_EQ(gemm.run.output_passes_on_device(), std::optional<bool>(true));
  gemm.run.run(writes_nothing, 0, 1, KernelEvents::plain, OutputPoison::before_first_run);
  EXPECT_EQ(gemm.run.output_passes_on_device(), std::optional<bool>(false));
  const HostBuffer poisoned = gemm.run.read_output();
  ASSERT_FALSE(poisoned.bytes.empty());
  EXPECT_EQ(std::count(poisoned.bytes.begin(), poisoned.bytes.end(), static_cast<unsigned char>(0xFF)),
            static_cast<std::ptrdiff_t>(poisoned.bytes.size()));
}

// The check of a candidate that could become the best is decided on the device (runtime/device_check.h); a failed
// check is done again on the host, whose report is the reason. Against a reference that differs in one value, the
// same candidate is a wrong result, and against the right one again it passes.
TEST(CostFunction, TheDevicesCheckPassesWhatIsRightAndTheHostReportsWhatIsWrong) {
  SmallGemmRun gemm;
  MdHomCostFunction& cost = gemm.cost;
  const KernelConfig config = default_config(gemm.bound, gemm.limits);
  EXPECT_TRUE(cost.evaluate(config, {}).verified);
  EXPECT_EQ(gemm.run.output_passes_on_device(), std::optional<bool>(true));
  const HostBuffer right = gemm.run.reference_output();
  const bool in_double = gemm.run.reference_in_double();
  HostBuffer wrong = right;
  ASSERT_TRUE(in_double);  // PoCL has fp64
  double value;
  std::memcpy(&value, wrong.bytes.data() + 5 * sizeof(double), sizeof value);
  value += 1.0;
  std::memcpy(wrong.bytes.data() + 5 * sizeof(double), &value, sizeof value);
  gemm.run.adopt_reference(wrong, in_double);
  const tuner::EvaluationResult failed = cost.evaluate(config, {});
  EXPECT_EQ(failed.status, tuner::EvaluationStatus::wrong_result);
  EXPECT_EQ(failed.reason.rfind("FAIL: ", 0), 0u) << failed.reason;
  EXPECT_NE(failed.reason.find("1 of 384 values outside the tolerance"), std::string::npos) << failed.reason;
  EXPECT_EQ(gemm.run.output_passes_on_device(), std::optional<bool>(false));
  gemm.run.adopt_reference(right, in_double);
  EXPECT_TRUE(cost.evaluate(config, {}).verified);
}

// What a compile worker on NVIDIA leaves in the binary cache for a spilling candidate: the binary with the log of
// its build. Here the binary is PoCL's and the log one recorded in NVIDIA's form; the evaluating Context loads the
// binary instead of compiling, so the verdict can only come from the log stored beside it. (Tuning runs on PoCL
// itself never reject: tuning_cost_settings, tests/integration/spill_check_test.cpp.)
TEST(CostFunction, ACandidateWhoseStoredBuildLogReportsSpillsIsRejectedBeforeItRuns) {
  const DeviceInfo device = select_device("");
  const DeviceLimits limits = device_limits(device);
  BoundMdh bound =
      bind(parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/gemm.mdh"), parse_size_binding("I=24,J=16,K=8"));
  auto space = std::make_shared<const TuningSpace>(make_tuning_space(bound, limits));
  const KernelConfig config = default_config(bound, limits);
  const LaunchPlan plan = prepare_kernel(bound, limits, KernelChoice::typed(config)).plan;
  const std::string folder =
      (std::filesystem::temp_directory_path() / ("mdh-spill-cache-" + std::to_string(::getpid()))).string();
  auto cache = std::make_shared<BinaryCache>(folder);
  {
    Context compile_worker(device);
    compile_worker.use_binary_cache(cache);
    compile_worker.program(plan.source, plan.build_options);
  }
  std::optional<CachedBinary> built = cache->load(device, plan.source, plan.build_options);
  ASSERT_TRUE(built);
  built->build_log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'gemm_tunable' for 'sm_90'\n"
      "ptxas info    : Function properties for gemm_tunable\n"
      "ptxas         .     96 bytes stack frame, 96 bytes spill stores, 96 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 16384 bytes smem, 380 bytes cmem[0]\n";
  cache->store(device, plan.source, plan.build_options, *built);

  Context context(device);
  context.use_binary_cache(cache);
  MdHomRun run(context, bound, {}, {}, 7);
  CostSettings rejecting;  // no -cl-nv-verbose: PoCL does not know it, and the log is already there
  rejecting.reject_spills = true;
  const tuner::EvaluationResult rejected = MdHomCostFunction(run, space, limits, rejecting).evaluate(config);
  EXPECT_EQ(rejected.status, tuner::EvaluationStatus::constraint);
  EXPECT_EQ(rejected.reason,
            "kernel 'gemm_tunable' spills: 96 bytes spill stores, 96 bytes spill loads (ptxas, 255 registers)");
  EXPECT_EQ(context.binary_cache_hits(), 1u) << "the evaluation must have loaded the compile worker's binary";
  // --allow-spills: the same candidate is timed and checked.
  const tuner::EvaluationResult timed = MdHomCostFunction(run, space, limits, CostSettings{}).evaluate(config);
  EXPECT_EQ(timed.status, tuner::EvaluationStatus::ok) << timed.reason;
  EXPECT_TRUE(timed.verified);
  EXPECT_GT(timed.cost, 0);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace mdh
