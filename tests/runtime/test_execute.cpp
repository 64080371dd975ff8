// execute_plan on a hand-written plan: a param, a scratch buffer shared by two kernels, timings, launch errors.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/execute.h"
#include "support/error.h"
#include "tests/runtime/shared_context_test.h"

namespace mdh {
namespace {

// c = alpha * a + b, in two kernels that pass alpha * a through scratch buffer 0.
const char* kScaleAddSource = R"(
kernel void scale(global const float* a, global float* tmp, float alpha, int n) {
  int i = get_global_id(0);
  if (i < n) tmp[i] = alpha * a[i];
}
kernel void add(global const float* tmp, global const float* b, global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = tmp[i] + b[i];
}
)";

constexpr int kN = 1000;

LaunchPlan scale_add_plan(std::optional<std::array<uint64_t, 3>> local = std::nullopt) {
  LaunchPlan plan;
  plan.source = kScaleAddSource;
  plan.build_options = "-cl-std=CL1.2";
  plan.scratch.push_back({"alpha * a", kN * sizeof(float)});
  KernelLaunch scale;
  scale.kernel_name = "scale";
  scale.global_size = {kN, 1, 1};
  scale.local_size = local;
  scale.args = {{KernelArg::Kind::Buffer, "a", -1},
                {KernelArg::Kind::Scratch, "", 0},
                {KernelArg::Kind::Param, "alpha", -1},
                {KernelArg::Kind::Param, "n", -1}};
  KernelLaunch add;
  add.kernel_name = "add";
  add.global_size = {kN, 1, 1};
  add.args = {{KernelArg::Kind::Scratch, "", 0},
              {KernelArg::Kind::Buffer, "b", -1},
              {KernelArg::Kind::Buffer, "c", -1},
              {KernelArg::Kind::Param, "n", -1}};
  plan.kernels = {scale, add};
  return plan;
}

template <class T>
std::vector<unsigned char> bytes_of(T value) {
  std::vector<unsigned char> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

using ExecuteTest = testing::SharedContextTest;

TEST_F(ExecuteTest, ScaleAddGivesTheRightNumbersAndPositiveTimings) {
  std::vector<float> a(kN), b(kN), c(kN, -1.0f);
  for (int i = 0; i < kN; ++i) a[i] = static_cast<float>(i), b[i] = static_cast<float>(3 * i + 1);
  DeviceBuffer da = context_->create_buffer(kN * sizeof(float)), db = context_->create_buffer(kN * sizeof(float)),
               dc = context_->create_buffer(kN * sizeof(float));
  da.write(a.data(), da.bytes());
  db.write(b.data(), db.bytes());
  std::map<std::string, cl_mem> buffers{{"a", da.get()}, {"b", db.get()}, {"c", dc.get()}};
  std::map<std::string, std::vector<unsigned char>> params{{"alpha", bytes_of(2.5f)}, {"n", bytes_of<cl_int>(kN)}};

  PlanTiming timing = execute_plan(*context_, scale_add_plan(), buffers, params, 1, 3);
  dc.read(c.data(), dc.bytes());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(c[i], 2.5f * static_cast<float>(i) + static_cast<float>(3 * i + 1)) << i;
  ASSERT_EQ(timing.kernel_ns.size(), 3u);
  ASSERT_EQ(timing.wall_ns.size(), 3u);
  ASSERT_EQ(timing.each_kernel_ns.size(), scale_add_plan().kernels.size());
  for (int r = 0; r < 3; ++r) {
    EXPECT_GT(timing.kernel_ns[r], 0u);
    EXPECT_GT(timing.wall_ns[r], 0u);
    // The sum over the kernels is the repetition's kernel time.
    uint64_t sum = 0;
    for (const auto& each : timing.each_kernel_ns) {
      ASSERT_EQ(each.size(), 3u);
      sum += each[r];
    }
    EXPECT_EQ(sum, timing.kernel_ns[r]);
  }
  EXPECT_GT(timing.median_kernel_ns(), 0u);

  // A second call with another param reuses the built program and gives the new numbers.
  size_t programs = context_->cached_program_count();
  params["alpha"] = bytes_of(-1.0f);
  execute_plan(*context_, scale_add_plan(), buffers, params, 0, 1);
  EXPECT_EQ(context_->cached_program_count(), programs);
  dc.read(c.data(), dc.bytes());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(c[i], -static_cast<float>(i) + static_cast<float>(3 * i + 1)) << i;
}

// KernelEvents::plain: the kernels run as with events (same numbers), and only the whole-call times are kept.
TEST_F(ExecuteTest, PlainCallsComputeTheSameAndKeepOnlyTheirWallTimes) {
  std::vector<float> a(kN), b(kN), c(kN, -1.0f);
  for (int i = 0; i < kN; ++i) a[i] = static_cast<float>(i), b[i] = static_cast<float>(5 * i + 2);
  DeviceBuffer da = context_->create_buffer(kN * sizeof(float)), db = context_->create_buffer(kN * sizeof(float)),
               dc = context_->create_buffer(kN * sizeof(float));
  da.write(a.data(), da.bytes());
  db.write(b.data(), db.bytes());
  dc.write(c.data(), dc.bytes());
  std::map<std::string, cl_mem> buffers{{"a", da.get()}, {"b", db.get()}, {"c", dc.get()}};
  std::map<std::string, std::vector<unsigned char>> params{{"alpha", bytes_of(-3.0f)}, {"n", bytes_of<cl_int>(kN)}};
  PlanTiming timing = execute_plan(*context_, scale_add_plan(), buffers, params, 1, 2, KernelEvents::plain);
  dc.read(c.data(), dc.bytes());
  for (int i = 0; i < kN; ++i) ASSERT_EQ(c[i], -3.0f * static_cast<float>(i) + static_cast<float>(5 * i + 2)) << i;
  EXPECT_TRUE(timing.kernel_ns.empty());
  ASSERT_EQ(timing.wall_ns.size(), 2u);
  for (uint64_t ns : timing.wall_ns) EXPECT_GT(ns, 0u);
  for (const auto& each : timing.each_kernel_ns) EXPECT_TRUE(each.empty());
}

// One kernel `name(counts, seen)` with `body`, `counts` a zeroed scratch buffer (as WG_COMBINE's counts are) and
// `seen` the caller's buffer.
LaunchPlan counting_plan(const std::string& name, const std::string& body) {
  LaunchPlan plan;
  plan.source = "kernel void " + name + "(global int* counts, global int* seen) { " + body + " }";
  plan.build_options = "-cl-std=CL1.2";
  plan.scratch.push_back({"counts", sizeof(cl_int), true});
  KernelLaunch launch;
  launch.kernel_name = name;
  launch.args = {{KernelArg::Kind::Scratch, "", 0}, {KernelArg::Kind::Buffer, "seen", -1}};
  plan.kernels = {launch};
  return plan;
}

// A zeroed scratch buffer (WG_COMBINE's counts) is zero when the plan's first kernel starts, even where the
// Context's pool hands it over from another plan that left other bytes in that slot; kernels keep it zero, so the
// repetitions need no fill. The kernel reports what it found and leaves zero.
TEST_F(ExecuteTest, ZeroedScratchStartsAtZeroWhateverThePoolHeld) {
  LaunchPlan plan = counting_plan("take", "seen[0] += counts[0]; counts[0] = 0;");
  DeviceBuffer seen = context_->create_buffer(sizeof(cl_int));
  for (bool zeroed : {true, false}) {
    // Another plan's leftovers in slot 0.
    const cl_int leftover = 7;
    cl_mem slot = context_->scratch(0, sizeof(cl_int));
    ASSERT_EQ(
        clEnqueueWriteBuffer(context_->queue(), slot, CL_TRUE, 0, sizeof leftover, &leftover, 0, nullptr, nullptr),
        CL_SUCCESS);
    const cl_int none = 0;
    seen.write(&none, sizeof none);
    plan.scratch[0].zeroed = zeroed;
    execute_plan(*context_, plan, {{"seen", seen.get()}}, {}, 1, 3);
    cl_int sum = -1;
    seen.read(&sum, sizeof sum);
    // Zeroed: every launch found zero. Not zeroed (the control): the first launch found the leftovers.
    EXPECT_EQ(sum, zeroed ? 0 : leftover) << zeroed;
  }
}

// The next call of the program whose kernels ran last on the scratch buffers gets no fill: its kernels leave zeroed
// buffers at zero, as an application's calls through mdh_runner.hpp's Runner find them. Any other program's call,
// and a call after the pool was released, is filled first. The kernel here does not reset its count (as a broken
// candidate would not), so what it finds shows whether a fill came before it.
TEST_F(ExecuteTest, ScratchIsFilledAgainOnlyWhenAnotherProgramRanOnIt) {
  const LaunchPlan a = counting_plan("bump", "seen[0] = counts[0]; counts[0] += 1;"),
                   b = counting_plan("bump", "seen[0] = counts[0]; counts[0] += 1; /* another program */");
  DeviceBuffer seen = context_->create_buffer(sizeof(cl_int));
  const auto found = [&](const LaunchPlan& plan, int repetitions) {
    execute_plan(*context_, plan, {{"seen", seen.get()}}, {}, 0, repetitions);
    cl_int value = -1;
    seen.read(&value, sizeof value);
    return value;
  };
  EXPECT_EQ(found(a, 1), 0);  // new buffers: filled
  EXPECT_EQ(found(a, 1), 1);  // a's kernels ran last: no fill
  EXPECT_EQ(found(a, 2), 3);  // nor between the repetitions of one call
  EXPECT_EQ(found(b, 1), 0);  // another program: filled
  EXPECT_EQ(found(a, 1), 0);  // and a again after it
  context_->release_scratch();
  EXPECT_EQ(found(a, 1), 0);  // new buffers again
}

TEST_F(ExecuteTest, LocalSizeThatDoesNotDivideTheGlobalSizeIsAUserError) {
  DeviceBuffer d = context_->create_buffer(kN * sizeof(float));
  std::map<std::string, cl_mem> buffers{{"a", d.get()}, {"b", d.get()}, {"c", d.get()}};
  std::map<std::string, std::vector<unsigned char>> params{{"alpha", bytes_of(1.0f)}, {"n", bytes_of<cl_int>(kN)}};
  try {
    execute_plan(*context_, scale_add_plan(std::array<uint64_t, 3>{7, 1, 1}), buffers, params, 0, 1);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(
        e.what(),
        "OpenCL error in launching kernel 'scale' (global 1000, local 7): CL_INVALID_WORK_GROUP_SIZE (-54): the "
        "local size does not divide the global size, exceeds the device's or kernel's maximum work-group size, "
        "or conflicts with reqd_work_group_size");
  }
}

TEST_F(ExecuteTest, MissingBufferOrParamIsAnInternalError) {
  DeviceBuffer d = context_->create_buffer(kN * sizeof(float));
  std::map<std::string, std::vector<unsigned char>> params{{"alpha", bytes_of(1.0f)}, {"n", bytes_of<cl_int>(kN)}};
  EXPECT_THROW(execute_plan(*context_, scale_add_plan(), {{"a", d.get()}, {"b", d.get()}}, params, 0, 1),
               InternalError);
  EXPECT_THROW(execute_plan(*context_, scale_add_plan(), {{"a", d.get()}, {"b", d.get()}, {"c", d.get()}},
                            {{"alpha", bytes_of(1.0f)}}, 0, 1),
               InternalError);
}

TEST_F(ExecuteTest, WrongParamSizeIsAUserErrorNamingTheArgument) {
  DeviceBuffer d = context_->create_buffer(kN * sizeof(float));
  std::map<std::string, std::vector<unsigned char>> params{{"alpha", bytes_of(1.0)}, {"n", bytes_of<cl_int>(kN)}};
  try {
    execute_plan(*context_, scale_add_plan(), {{"a", d.get()}, {"b", d.get()}, {"c", d.get()}}, params, 0, 1);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("OpenCL error in setting argument 2 of kernel 'scale' (global 1000, local "
                                          "chosen by OpenCL): CL_INVALID_ARG_SIZE (-51)",
                                          0),
              0u)
        << e.what();
  }
}

TEST(Median, OddEvenEmpty) {
  EXPECT_EQ(median_ns({}), 0u);
  EXPECT_EQ(median_ns({5, 1, 3}), 3u);
  EXPECT_EQ(median_ns({4, 1, 3, 10}), 3u);  // (3 + 4) / 2 rounded down
  EXPECT_EQ(median_ns({UINT64_MAX, UINT64_MAX}), UINT64_MAX);
  EXPECT_DOUBLE_EQ(median({2.0, 1.0}), 1.5);
}

}  // namespace
}  // namespace mdh
