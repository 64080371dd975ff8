// `mdh inspect` on the default device (PoCL here): the files it writes, the summary it prints (registers unknown on
// PoCL), its JSON, and that it never replaces an earlier inspection's files without --force.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "mdh/parser.h"
#include "pipeline/device_limits_query.h"
#include "runtime/device.h"
#include "tests/integration/command_runner.h"
#include "tests/integration/scratch_directory.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

using Result = testing::CommandResult;

Result mdh_cli(const std::string& args) {
  return testing::run_command("'" MDH_BINARY "' " + args);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr const char* kGemmSize = "I=37,J=29,K=13";

class InspectTest : public testing::ScratchDirectoryTest {
 protected:
  InspectTest() : ScratchDirectoryTest("mdh_inspect_test") {}

  /// A gemm configuration whose plan has two kernels (the reduction split over two work-groups adds
  /// gemm_combine_wg), checked valid for the default device first.
  std::string two_kernel_config() {
    const BoundMdh bound = bind(parse_spec_file(MDH_SOURCE_DIR "/apps/gemm.mdh"), parse_size_binding(kGemmSize));
    KernelConfig c = default_config(bound, DeviceLimits{});
    c.num_wg = {3, 2, 2};
    c.num_wi = {4, 4, 2};
    c.local_tile_size = {16, 16, 8};
    c.private_tile_size = {4, 4, 2};
    c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};
    c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
    c.combine_layer = Layer::Local;
    check_config(bound, c, device_limits(select_device("")));
    const fs::path path = dir_ / "two-kernels.json";
    std::ofstream(path) << config_to_json(bound, c).dump(1);
    return path.string();
  }
};

TEST_F(InspectTest, WritesSourceBinaryLogAndSummaryAndSaysRegistersAreUnknownOnPocl) {
  const DeviceInfo device = select_device("");
  if (is_nvidia_platform(device.platform_name)) GTEST_SKIP() << "the default device is NVIDIA's: PTX, not PoCL";
  const fs::path out = dir_ / "out";
  const Result r = mdh_cli(std::string("inspect apps/gemm.mdh --size ") + kGemmSize + " --config " +
                           two_kernel_config() + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* file : {"gemm.cl", "gemm.launch.json", "gemm.bin", "gemm.build.log", "gemm.resources.json"})
    EXPECT_TRUE(fs::exists(out / file)) << file;
  EXPECT_FALSE(fs::exists(out / "gemm.ptx"));
  EXPECT_GT(fs::file_size(out / "gemm.bin"), 0u);

  // The source and launch description are what `mdh generate` writes with the same options.
  const fs::path cl = dir_ / "generated.cl", launch = dir_ / "generated.json";
  const Result g =
      mdh_cli(std::string("generate apps/gemm.mdh --size ") + kGemmSize + " --config " +
              (dir_ / "two-kernels.json").string() + " -o " + cl.string() + " --launch " + launch.string());
  ASSERT_EQ(g.status, 0) << g.output;
  EXPECT_EQ(read_file(out / "gemm.cl"), read_file(cl));
  EXPECT_EQ(read_file(out / "gemm.launch.json"), read_file(launch));

  const std::string base = out.string() + "/gemm";
  const std::string expected_lines[] = {
      "gemm (I=37,J=29,K=13) on " + device.name + " [" + device.selector() + "], tunable kernel, config " +
          (dir_ / "two-kernels.json").string() + "\n",
      "\nwrote " + base + ".cl, " + base + ".launch.json, " + base + ".bin (the driver's program binary, " +
          std::to_string(fs::file_size(out / "gemm.bin")) + " bytes), " + base + ".build.log (" +
          std::to_string(fs::file_size(out / "gemm.build.log")) + " bytes) and " + base + ".resources.json\n",
      "\nregisters and spills: unknown (" + device.platform_name +
          " reports no register allocation; its build log is " + base + ".build.log, " +
          std::to_string(fs::file_size(out / "gemm.build.log")) + " bytes)\n"};
  for (const std::string& line : expected_lines) EXPECT_NE(r.output.find(line), std::string::npos) << line << r.output;
  EXPECT_NE(r.output.find("\nbuild options: -cl-std=CL1.2"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("-cl-nv-verbose"), std::string::npos) << "NVIDIA's option on another platform";

  const nlohmann::json summary = nlohmann::json::parse(read_file(out / "gemm.resources.json"));
  EXPECT_EQ(summary["md_hom"], "gemm");
  EXPECT_EQ(summary["sizes"]["K"], 13);
  EXPECT_EQ(summary["device"]["selector"], device.selector());
  EXPECT_EQ(summary["device"]["slug"], device_slug(device));
  EXPECT_EQ(summary["binary"]["format"], "driver");
  EXPECT_EQ(summary["binary"]["bytes"], fs::file_size(out / "gemm.bin"));
  EXPECT_EQ(summary["config"], nlohmann::json::parse(read_file(dir_ / "two-kernels.json")));
  ASSERT_EQ(summary["kernels"].size(), 2u) << summary.dump(1);
  EXPECT_EQ(summary["kernels"][0]["name"], "gemm_tunable");
  EXPECT_EQ(summary["kernels"][1]["name"], "gemm_combine_wg");
  for (const auto& kernel : summary["kernels"]) {
    EXPECT_EQ(kernel["resources_from"], "unknown");
    EXPECT_TRUE(kernel["registers"].is_null());
  }
}

TEST_F(InspectTest, RefusesToReplaceAnEarlierInspectionWithoutForce) {
  const fs::path out = dir_ / "out";
  const std::string command = std::string("inspect apps/gemm.mdh --size ") + kGemmSize + " -o " + out.string();
  ASSERT_EQ(mdh_cli(command).status, 0);
  std::ofstream(out / "gemm.cl") << "// my notes\n";

  Result r = mdh_cli(command);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(r.output, "error: mdh inspect: '" + out.string() +
                          "/gemm.cl' exists (an earlier inspection?); pass --force to replace it, or choose another "
                          "-o\n");
  EXPECT_EQ(read_file(out / "gemm.cl"), "// my notes\n");

  r = mdh_cli(command + " --force");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(read_file(out / "gemm.cl"), "// my notes\n");
}

TEST_F(InspectTest, JsonSummaryIsWhatTheFileHolds) {
  const fs::path out = dir_ / "out";
  const Result r =
      mdh_cli(std::string("inspect apps/gemm.mdh --size ") + kGemmSize + " --reference --json -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json printed = nlohmann::json::parse(r.output);
  EXPECT_EQ(printed, nlohmann::json::parse(read_file(out / "gemm.resources.json")));
  EXPECT_EQ(printed["kernel"], "reference kernel");
  EXPECT_TRUE(printed["config"].is_null());
  ASSERT_EQ(printed["kernels"].size(), 1u);
}

TEST_F(InspectTest, UserErrorsAreClear) {
  const std::string gemm = std::string("inspect apps/gemm.mdh --size ") + kGemmSize;
  Result r = mdh_cli(gemm);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "error: mdh inspect: missing the output directory (-o DIR)\n");

  r = mdh_cli(gemm + " --reference --config x.json -o " + dir_.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "error: --config and --reference exclude each other\n");

  std::ofstream(dir_ / "a-file") << "x";
  r = mdh_cli(gemm + " -o " + (dir_ / "a-file").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("error: mdh inspect: cannot create the directory '" + (dir_ / "a-file").string() + "'"),
            std::string::npos)
      << r.output;

  std::ofstream(dir_ / "bad.json") << "{";
  r = mdh_cli(gemm + " --config " + (dir_ / "bad.json").string() + " -o " + (dir_ / "out").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output.rfind((dir_ / "bad.json").string() + ": error: not valid JSON", 0), 0u) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "gemm.cl")) << "nothing is written when the kernel cannot be made";

  r = mdh_cli("inspect apps/gemm.mdh --size I=37 -o " + (dir_ / "out").string());
  EXPECT_EQ(r.status, 2);
}

}  // namespace
}  // namespace mdh
