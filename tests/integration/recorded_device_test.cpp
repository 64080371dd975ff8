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
  EXPECT_NE(refused.output.find("; generate it on a machine with that device, give its --device-profile, or tune it "
                                "again to record them"),
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
                              "written before mdh recorded them): its kernel is generated for the limits of this "
                              "device, "),
            std::string::npos)
      << taken.output;
  EXPECT_NE(taken.output.find("), and may differ from the one tuned"), std::string::npos) << taken.output;
}

// --device-profile (pipeline/device_profile.h): the kernel a result carrying the H200's limits gets, from the same
// configuration without recorded limits and a profile holding them; and without --config, the H200's configuration
// from the tuned store, as on the H200.
TEST_F(RecordedDeviceTest, AProfileGeneratesWhatAResultCarryingItsLimitsGenerates) {
  const DeviceLimits h200 = testing::stored_device_limits("nvidia");
  const std::string with_limits = h200_result(h200, "h200.json"), without = h200_result(std::nullopt, "old.json");
  nlohmann::json profile = {{"device", {{"name", "NVIDIA H200"}, {"slug", "nvidia-h200"}}},
                            {"device_limits", device_limits_to_json(h200)}};
  std::ofstream(dir_ / "h200-profile.json") << profile.dump(1);
  const std::string profile_path = (dir_ / "h200-profile.json").string();
  const std::string expected = h200_kernel();
  for (const std::string command : {"generate", "export"}) {
    const fs::path out = dir_ / command;
    fs::create_directories(out);
    auto written = [&](const std::string& name) {
      return command == "generate" ? read_file(out / (name + ".cl")) : read_file(out / name / "dot.cl");
    };
    auto target = [&](const std::string& name) {
      return command == "generate" ? " -o " + (out / (name + ".cl")).string() : " -o " + (out / name).string();
    };
    const auto recorded = mdh_cli(command + " " + kDot + " --config " + with_limits + target("recorded"));
    ASSERT_EQ(recorded.status, 0) << recorded.output;
    const auto profiled = mdh_cli(command + " " + kDot + " --config " + without + " --device-profile " + profile_path +
                                  target("profile"));
    ASSERT_EQ(profiled.status, 0) << profiled.output;
    EXPECT_EQ(profiled.output.find("records no device limits"), std::string::npos) << profiled.output;
    EXPECT_EQ(written("profile"), written("recorded")) << command;
    EXPECT_EQ(written("profile"), expected) << command;
    // A result that records its limits is a profile file as well.
    const auto result_as_profile =
        mdh_cli(command + " " + kDot + " --config " + without + " --device-profile " + with_limits + target("result"));
    ASSERT_EQ(result_as_profile.status, 0) << result_as_profile.output;
    EXPECT_EQ(written("result"), expected) << command;
  }
  // Without --config: the store's H200 configuration, as on the H200 (the committed dot-RW.json is for these sizes).
  const auto stored =
      mdh_cli(std::string("generate ") + kDot + " --tuned-results " MDH_SOURCE_DIR "/tuned --device-profile " +
              profile_path + " -o " + (dir_ / "stored.cl").string());
  ASSERT_EQ(stored.status, 0) << stored.output;
  EXPECT_NE(stored.output.find("note: using tuned configuration " MDH_SOURCE_DIR "/tuned/nvidia-h200/dot-RW.json"),
            std::string::npos)
      << stored.output;
  EXPECT_EQ(read_file(dir_ / "stored.cl"), expected);
}

// The named profiles shipped in device_profiles/ are read, and the H200's generates the H200's stored kernel.
TEST_F(RecordedDeviceTest, TheShippedProfilesAreValid) {
  for (const auto& entry : fs::directory_iterator(MDH_SOURCE_DIR "/device_profiles")) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    const auto r = mdh_cli(std::string("generate ") + kDot + " --config default --device-profile " + name + " -o " +
                           (dir_ / (name + ".cl")).string());
    EXPECT_EQ(r.status, 0) << name << ": " << r.output;
    const nlohmann::json json = nlohmann::json::parse(read_file(entry.path()));
    EXPECT_EQ(json["device"]["slug"], name) << "a profile's file is named by its slug";
  }
  const auto h200 = mdh_cli(std::string("generate ") + kDot +
                            " --tuned-results " MDH_SOURCE_DIR "/tuned --device-profile nvidia-h200 -o " +
                            (dir_ / "h200.cl").string());
  ASSERT_EQ(h200.status, 0) << h200.output;
  EXPECT_NE(read_file(dir_ / "h200.cl").find("shfl.sync"), std::string::npos);
}

// `mdh devices --profile SEL` writes this device's profile, and generating for it is generating here; inspect
// builds a CPU profile's kernel on this device, and says why an NVIDIA profile's kernel cannot be built here.
TEST_F(RecordedDeviceTest, ThisDevicesProfileGeneratesWhatThisDeviceGenerates) {
  const auto profile = mdh_cli("devices --profile ''");
  ASSERT_EQ(profile.status, 0) << profile.output;
  std::ofstream(dir_ / "here.json") << profile.output;
  const nlohmann::json json = nlohmann::json::parse(profile.output);
  EXPECT_TRUE(json["device_limits"].is_object());
  const auto here = mdh_cli(std::string("generate ") + kDot + " --config default -o " + (dir_ / "here.cl").string());
  const auto profiled = mdh_cli(std::string("generate ") + kDot + " --config default --device-profile " +
                                (dir_ / "here.json").string() + " -o " + (dir_ / "profiled.cl").string());
  ASSERT_EQ(here.status, 0) << here.output;
  ASSERT_EQ(profiled.status, 0) << profiled.output;
  EXPECT_EQ(read_file(dir_ / "profiled.cl"), read_file(dir_ / "here.cl"));

  const auto cpu = mdh_cli(std::string("inspect ") + kDot + " --config default --device-profile " +
                           "pocl-cpu-intel-xeon-16c -o " + (dir_ / "cpu").string());
  EXPECT_EQ(cpu.status, 0) << cpu.output;
  const auto gpu = mdh_cli(std::string("inspect ") + kDot + " --config default --device-profile nvidia-h200 -o " +
                           (dir_ / "gpu").string());
  EXPECT_EQ(gpu.status, 2) << gpu.output;
  EXPECT_NE(gpu.output.find("--device-profile nvidia-h200: error: its kernel is generated for NVIDIA's OpenCL "
                            "driver, which "),
            std::string::npos)
      << gpu.output;
}

// Bad profile names and files: exit 2 with what is wrong.
TEST_F(RecordedDeviceTest, BadProfilesAreRefusedWithTheReason) {
  auto refused = [&](const std::string& profile, const std::string& extra = "") {
    const auto r = mdh_cli(std::string("generate ") + kDot + " --config default --device-profile '" + profile + "'" +
                           extra + " -o " + (dir_ / "bad.cl").string());
    EXPECT_EQ(r.status, 2) << profile << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "bad.cl")) << profile;
    return r.output;
  };
  const std::string unknown = refused("nvidia-h900");
  EXPECT_NE(unknown.find("error: --device-profile: no device profile named 'nvidia-h900' in " MDH_SOURCE_DIR
                         "/device_profiles (named profiles: "),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("nvidia-h200"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("; a profile file is named by a path (containing '/' or ending in .json)"), std::string::npos)
      << unknown;
  EXPECT_NE(refused("..").find("no device profile named '..'"), std::string::npos);

  const std::string missing = (dir_ / "missing.json").string();
  EXPECT_NE(refused(missing).find(missing + ": error: cannot read the device profile: No such file or directory"),
            std::string::npos);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  };
  const std::string not_json = write("not.json", "{\"device\": ");
  EXPECT_NE(refused(not_json).find(not_json + ": error: not a device profile: not JSON ("), std::string::npos);
  const std::string old = h200_result(std::nullopt, "old.json");
  EXPECT_NE(refused(old).find(old + ": error: not a device profile: no 'device_limits' (results written before mdh "
                                    "recorded limits are not profiles)"),
            std::string::npos);
  nlohmann::json bad = {{"device", {{"name", "X"}, {"slug", "x"}}},
                        {"device_limits", device_limits_to_json(testing::stored_device_limits("nvidia"))}};
  bad["device_limits"]["warp_size"] = 0;
  const std::string zero_warp = write("zero-warp.json", bad.dump());
  EXPECT_NE(refused(zero_warp).find(zero_warp + ": error: not a device profile: device_limits: 'warp_size' = 0 lies "
                                                "outside 1 to 2^48"),
            std::string::npos);
  bad["device_limits"]["warp_size"] = 32;
  bad["device"]["slug"] = "../tuned";
  const std::string bad_slug = write("bad-slug.json", bad.dump());
  EXPECT_NE(refused(bad_slug).find(bad_slug + ": error: not a device profile: 'device': 'slug' must be lower-case "
                                              "letters, digits and dashes, as `mdh devices` names folders"),
            std::string::npos);
  bad["device"].erase("slug");
  const std::string no_slug = write("no-slug.json", bad.dump());
  EXPECT_NE(refused(no_slug).find(no_slug + ": error: not a device profile: 'device' has no 'slug'"),
            std::string::npos);
  // The profile file is an input: -o does not overwrite it.
  const std::string kept = write("kept.json", read_file(MDH_SOURCE_DIR "/device_profiles/nvidia-h200.json"));
  const auto overwrite =
      mdh_cli(std::string("generate ") + kDot + " --config default --device-profile " + kept + " -o " + kept);
  EXPECT_EQ(overwrite.status, 2) << overwrite.output;
  EXPECT_NE(overwrite.output.find("-o '" + kept + "' is the device profile '" + kept + "'"), std::string::npos)
      << overwrite.output;
  EXPECT_EQ(read_file(kept), read_file(MDH_SOURCE_DIR "/device_profiles/nvidia-h200.json"));
  EXPECT_NE(refused("nvidia-h200", " --device cpu")
                .find("error: --device and --device-profile exclude each other: both name the device to generate for"),
            std::string::npos);
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
