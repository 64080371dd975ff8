// PoCL compiles a kernel's work-group function at its first launch. A process that builds a plan ahead and launches
// each kernel once on one work-group (compile_first_launches, what `mdh tune`'s compile workers do there) stores a
// binary with which another process runs the full plan without compiling. Each role runs in a child process of its
// own with a fresh PoCL cache folder, since PoCL reads POCL_CACHE_DIR once per process; the evaluating child
// compiled exactly when its launch wrote files into its PoCL cache after the program was loaded.
#include "runtime/first_launch.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "mdh/parser.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/kernel.h"
#include "pipeline/md_hom_run.h"
#include "runtime/binary_cache.h"
#include "runtime/device.h"
#include "runtime/execute.h"
#include "scratch_directory.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

// What the parent tells a child: its role, spec, sizes, binary cache and the file for its answer.
constexpr const char* kRole = "MDH_FIRST_LAUNCH_ROLE";  // "build", "build-and-launch" or "run"
constexpr const char* kSpec = "MDH_FIRST_LAUNCH_SPEC";
constexpr const char* kSizes = "MDH_FIRST_LAUNCH_SIZES";
constexpr const char* kCache = "MDH_FIRST_LAUNCH_CACHE";
constexpr const char* kAnswer = "MDH_FIRST_LAUNCH_ANSWER";

// Every file under `folder` with what changes when it is written again.
using FileStamps = std::map<std::string, std::tuple<uintmax_t, ino_t, long long>>;
FileStamps stamps_under(const fs::path& folder) {
  FileStamps stamps;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file()) continue;
    struct stat info {};
    if (::stat(entry.path().c_str(), &info) != 0) continue;
    stamps[entry.path().string()] = {entry.file_size(), info.st_ino,
                                     info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec};
  }
  return stamps;
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The role of a child process; skipped where the parent test did not start it.
TEST(FirstLaunchChild, Role) {
  const std::string role = env(kRole);
  if (role.empty()) GTEST_SKIP() << "runs only as a child of FirstLaunch tests";
  const DeviceInfo device = select_device("");
  const BoundMdh bound = bind(parse_spec_file(env(kSpec)), parse_size_binding(env(kSizes)));
  const LaunchPlan plan = prepare_kernel(bound, device_limits(device), KernelChoice{}).plan;
  Context context(device);
  context.use_binary_cache(std::make_shared<BinaryCache>(env(kCache)));
  std::map<std::string, DeviceBuffer> buffers = zeroed_device_buffers(context, bound);
  const auto params = checked_param_bytes(bound, {});
  std::ofstream answer(env(kAnswer));
  if (role == "build") {
    context.program(plan.source, plan.build_options);
    answer << "built";
  } else if (role == "build-and-launch") {
    context.store_binaries_at_build(false);
    compile_first_launches(context, plan, buffer_handles(buffers), params);
    answer << "built";
  } else {
    context.program(plan.source, plan.build_options);
    ASSERT_EQ(context.binary_cache_hits(), 1u) << "the program was not loaded from the binary cache";
    const fs::path pocl_cache = env("POCL_CACHE_DIR");
    const FileStamps loaded = stamps_under(pocl_cache);
    execute_plan(context, plan, buffer_handles(buffers), params, 0, 1);
    const FileStamps ran = stamps_under(pocl_cache);
    if (ran == loaded) {
      answer << "ran without compiling";
    } else {
      answer << "compiled at its launch";
      for (const auto& [path, stamp] : ran)
        if (!loaded.count(path) || loaded.at(path) != stamp) std::cerr << "written at the launch: " << path << '\n';
    }
  }
}

class FirstLaunch : public testing::ScratchDirectoryTest {
 protected:
  FirstLaunch() : ScratchDirectoryTest("first_launch") {}

  // Runs `role` in a child process with a PoCL cache folder of its own; returns its answer.
  std::string child(const std::string& role, const std::string& spec, const std::string& sizes) {
    const std::string name = role + "-" + std::to_string(children_++);
    const fs::path pocl_cache = dir_ / (name + "-pocl"), answer = dir_ / (name + ".answer");
    fs::create_directories(pocl_cache);
    const std::string command =
        std::string(kRole) + "='" + role + "' " + kSpec + "='" + MDH_SOURCE_DIR + "/apps/" + spec + "' " + kSizes +
        "='" + sizes + "' " + kCache + "='" + (dir_ / "binaries").string() + "' " + kAnswer + "='" + answer.string() +
        "' POCL_CACHE_DIR='" + pocl_cache.string() + "' '" + fs::read_symlink("/proc/self/exe").string() +
        "' --gtest_filter=FirstLaunchChild.Role > '" + (dir_ / (name + ".log")).string() + "' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(answer);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  void SetUp() override {
    ScratchDirectoryTest::SetUp();
    if (!compiles_at_first_launch(select_device(""))) GTEST_SKIP() << "the default device is not PoCL";
  }

  int children_ = 0;
};

// The control: a binary stored right after the build leaves the evaluating process to compile at its launch (else
// the check below could not see a compile).
TEST_F(FirstLaunch, ABinaryStoredAfterTheBuildCompilesAtItsFirstLaunch) {
  ASSERT_EQ(child("build", "gemm.mdh", "I=64,J=96,K=128"), "built");
  EXPECT_EQ(child("run", "gemm.mdh", "I=64,J=96,K=128"), "compiled at its launch");
}

// GEMM (one kernel) and DOT (its work-groups' partial results combined by a second kernel or the last work-group).
TEST_F(FirstLaunch, ABinaryStoredAfterOneWorkGroupLaunchesRunsWithoutCompiling) {
  for (const auto& [spec, sizes] : {std::pair{"gemm.mdh", "I=64,J=96,K=128"}, std::pair{"dot.mdh", "K=65536"}}) {
    SCOPED_TRACE(spec);
    fs::remove_all(dir_ / "binaries");
    ASSERT_EQ(child("build-and-launch", spec, sizes), "built");
    EXPECT_EQ(child("run", spec, sizes), "ran without compiling");
  }
}

TEST(OneWorkGroupEach, CutsEachGlobalSizeToItsLocalSize) {
  LaunchPlan plan;
  KernelLaunch sized, unsized;
  sized.work_dims = 2;
  sized.global_size = {256, 64, 1};
  sized.local_size = std::array<uint64_t, 3>{8, 4, 1};
  unsized.global_size = {100, 1, 1};
  plan.kernels = {sized, unsized};
  const LaunchPlan cut = one_work_group_each(plan);
  EXPECT_EQ(cut.kernels[0].global_size, (std::array<uint64_t, 3>{8, 4, 1}));
  EXPECT_EQ(cut.kernels[0].local_size, sized.local_size);
  EXPECT_EQ(cut.kernels[1].global_size, unsized.global_size);  // the driver chooses its local size from it
}

}  // namespace
}  // namespace mdh
