// A tuning result of another device is generated, exported and inspected for the limits it recorded
// (pipeline/recorded_device.h): here results with the H200's limits on PoCL, and results that record none.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codegen/config_json.h"
#include "codegen/tunable_kernel.h"
#include "pipeline/device_limits_json.h"
#include "pipeline/pipeline.h"
#include "pipeline/tuning_result.h"
#include "support/error.h"
#include "tests/integration/command_runner.h"
#include "tests/integration/scratch_directory.h"
#include "tests/stored_device_limits.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDot = "apps/dot.mdh --size K=16777216";
// The committed H200 result: CMB_WI shuffle over 512 work-items, valid in warps of 32 and not in PoCL's sub-groups.
constexpr const char* kH200Result = MDH_SOURCE_DIR "/tuned/nvidia-h200/dot-RW.json";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

testing::CommandResult mdh_cli(const std::string& args) {
  return testing::run_command("'" MDH_BINARY "' " + args);
}

class RecordedDeviceTest : public testing::ScratchDirectoryTest {
 protected:
  RecordedDeviceTest() : ScratchDirectoryTest("mdh_recorded_device_test") {}

  // The committed H200 result, with `limits` recorded (none: as committed).
  std::string h200_result(const std::optional<DeviceLimits>& limits, const std::string& name) {
    nlohmann::json json = nlohmann::json::parse(read_file(kH200Result));
    if (limits) json["device_limits"] = device_limits_to_json(*limits);
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << json.dump(1);
    return path;
  }
  // The kernel the H200 generates for the committed configuration, made here in-process with its limits.
  std::string h200_kernel() {
    fs::current_path(MDH_SOURCE_DIR);  // the spec's path as the command line names it (the kernel's #line)
    const BoundMdh bound = load_and_bind("apps/dot.mdh", "K=16777216");
    const TuningResultFile result = TuningResultFile::from_json(nlohmann::json::parse(read_file(kH200Result)));
    const DeviceLimits h200 = testing::stored_device_limits("nvidia");
    return generate_tunable_kernel(bound, config_from_json(bound, result.config), h200).source;
  }
};

const char* const kRecordedNote = " was tuned on NVIDIA H200 (nvidia-h200), not on this device, ";
const char* const kRecordedNoteEnd = "): its kernel is generated for the limits it recorded for that device";

TEST_F(RecordedDeviceTest, GenerateAndExportUseTheRecordedLimitsOfAnotherDevice) {
  const std::string result = h200_result(testing::stored_device_limits("nvidia"), "h200.json");
  const auto generated =
      mdh_cli(std::string("generate ") + kDot + " --config " + result + " -o " + (dir_ / "dot.cl").string());
  ASSERT_EQ(generated.status, 0) << generated.output;
  EXPECT_NE(generated.output.find("note: " + result + kRecordedNote), std::string::npos) << generated.output;
  EXPECT_NE(generated.output.find(kRecordedNoteEnd), std::string::npos) << generated.output;
  const std::string expected = h200_kernel();
  EXPECT_EQ(read_file(dir_ / "dot.cl"), expected) << "the kernel the H200 generates, byte for byte";
  EXPECT_NE(expected.find("shfl.sync"), std::string::npos) << "NVIDIA's shuffle, which PoCL's limits never give";

  const auto exported =
      mdh_cli(std::string("export ") + kDot + " --config " + result + " -o " + (dir_ / "exported").string());
  ASSERT_EQ(exported.status, 0) << exported.output;
  EXPECT_NE(exported.output.find("note: " + result + kRecordedNote), std::string::npos) << exported.output;
  EXPECT_EQ(read_file(dir_ / "exported" / "dot.cl"), expected);
}

// mdh inspect builds the kernel on this device: one made for NVIDIA's driver (inline PTX) cannot be, and it says so.
TEST_F(RecordedDeviceTest, InspectSaysWhyANvidiaKernelCannotBeBuiltHere) {
  const std::string result = h200_result(testing::stored_device_limits("nvidia"), "h200.json");
  const auto r = mdh_cli(std::string("inspect ") + kDot + " --config " + result + " -o " + (dir_ / "out").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(result + ": error: its kernel is generated for NVIDIA's OpenCL driver, which "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(" does not run, so it cannot be built and inspected here; `mdh generate` and `mdh export` "
                          "write it without building it"),
            std::string::npos)
      << r.output;
}

// A result written before limits were recorded: refused with the reason and what to do where its configuration is
// invalid here; generated for this device's limits, with a note, where it is valid.
TEST_F(RecordedDeviceTest, AResultWithoutRecordedLimitsSaysWhatItCanAndCannotDo) {
  const std::string result = h200_result(std::nullopt, "old.json");
  const auto refused = mdh_cli(std::string("generate ") + kDot + " --config " + result);
  EXPECT_EQ(refused.status, 2) << refused.output;
  EXPECT_NE(refused.output.find(result + ": error: tuned on NVIDIA H200 (nvidia-h200), and it records no device "
                                         "limits (it was written before results recorded them), so it is checked "
                                         "against this device, "),
            std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("where config: violates CMB_WI != shuffle unless"), std::string::npos)
      << refused.output;
  EXPECT_NE(refused.output.find("; generate it on a machine with that device, or tune it again to record them"),
            std::string::npos)
      << refused.output;

  // The same result with a configuration PoCL can run.
  nlohmann::json json = nlohmann::json::parse(read_file(result));
  json["config"]["CMB_WI"] = "serial";
  std::ofstream(dir_ / "valid_here.json") << json.dump(1);
  const std::string valid_here = (dir_ / "valid_here.json").string();
  const auto taken =
      mdh_cli(std::string("generate ") + kDot + " --config " + valid_here + " -o " + (dir_ / "dot.cl").string());
  EXPECT_EQ(taken.status, 0) << taken.output;
  EXPECT_NE(taken.output.find("note: " + valid_here +
                              " was tuned on NVIDIA H200 (nvidia-h200) and records no device limits (results "
                              "written before mdh recorded them): its kernel is generated for this device's, "),
            std::string::npos)
      << taken.output;
  EXPECT_NE(taken.output.find("), and may differ from the one tuned"), std::string::npos) << taken.output;
}

TEST(DeviceLimitsJson, EveryFieldRoundTripsAndBadValuesAreNamed) {
  DeviceLimits limits = testing::stored_device_limits("nvidia");
  limits.compute_units = 132;
  limits.local_memory_dedicated = true;
  limits.private_mem_bytes = 12345;
  limits.float_vector_width = 2;
  limits.registers_per_work_item = 255;
  const nlohmann::json json = device_limits_to_json(limits);
  const DeviceLimits read = device_limits_from_json(json);
  EXPECT_EQ(device_limits_to_json(read), json);
  EXPECT_EQ(read.max_work_item_sizes, limits.max_work_item_sizes);
  EXPECT_EQ(read.subgroup_width, 32u);
  EXPECT_TRUE(read.nvidia_driver);
  auto refused = [&](const std::string& key, const nlohmann::json& value) {
    nlohmann::json bad = json;
    if (value.is_null())
      bad.erase(key);
    else
      bad[key] = value;
    try {
      device_limits_from_json(bad);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused("warp_size", nullptr), "device_limits: no 'warp_size'");
  EXPECT_EQ(refused("warp_size", -32), "device_limits: 'warp_size' must be a whole number");
  EXPECT_EQ(refused("warp_size", 0), "device_limits: 'warp_size' = 0 lies outside 1 to 2^48");
  EXPECT_EQ(refused("max_work_group_size", uint64_t{1} << 60),
            "device_limits: 'max_work_group_size' = 1152921504606846976 lies outside 1 to 2^48");
  EXPECT_EQ(refused("nvidia_driver", 1), "device_limits: 'nvidia_driver' must be true or false");
  EXPECT_EQ(refused("max_work_item_sizes", nlohmann::json::array({1, 2})),
            "device_limits: 'max_work_item_sizes' must be an array of 3 whole numbers");
  // In a result, the reader names the result.
  nlohmann::json result{{"config", nlohmann::json::object()}, {"device_limits", {{"warp_size", 32}}}};
  EXPECT_THROW(TuningResultFile::from_json(result), UserError);
}

}  // namespace
}  // namespace mdh
