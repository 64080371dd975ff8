// `mdh bench` end to end on the default device (PoCL here): two configurations of DOT verified and timed in
// interleaved rounds, the printed structure and the --json record, a bad --config file, --json never replaced
// without --force, and --config stored (what `mdh run` takes from a store) with what the store took.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "mdh/signature.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/pipeline.h"
#include "pipeline/tune.h"
#include "pipeline/tuning_result.h"
#include "runtime/device.h"
#include "scratch_directory.h"
#include "tests/integration/command_runner.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;
using testing::run_command;

constexpr const char* kSpec = "apps/dot.mdh";
constexpr const char* kSize = "K=4096";
// Small enough for a test on a shared CPU: pairs of at most 5 calls or 200 us, at most 6 rounds.
constexpr const char* kQuick = " --min-calls 5 --min-span-us 200 --rounds 6";

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The device's default configuration for DOT, and the same with UNROLL_STEPS the other way (another configuration
// that computes the same), as files.
struct TwoConfigs {
  fs::path a, b;
};
TwoConfigs write_two_configs(const fs::path& dir) {
  const BoundMdh bound = load_and_bind(std::string(MDH_SOURCE_DIR) + "/" + kSpec, kSize);
  const DeviceLimits limits = device_limits(select_device(""));
  const nlohmann::json a = config_to_json(bound, default_config(bound, limits));
  nlohmann::json b = a;
  b["UNROLL_STEPS"] = a["UNROLL_STEPS"] == "on" ? "off" : "on";
  TwoConfigs files{dir / "a.json", dir / "b.json"};
  write_file(files.a, a.dump(2));
  write_file(files.b, b.dump(2));
  return files;
}

class Bench : public testing::ScratchDirectoryTest {
 protected:
  Bench() : ScratchDirectoryTest("mdh_bench_test") {}
};

double number_after(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + prefix.size()));
}

TEST_F(Bench, TwoConfigurationsAreVerifiedTimedInterleavedAndCompared) {
  const TwoConfigs configs = write_two_configs(dir_);
  const fs::path json = dir_ / "bench.json";
  const auto r =
      run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize + " --config " + configs.a.string() +
                  " --config " + configs.b.string() + kQuick + " --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  // Both configurations verified and timed, in the order given.
  const size_t first = r.output.find("#1 " + configs.a.string());
  const size_t second = r.output.find("#2 " + configs.b.string());
  ASSERT_NE(first, std::string::npos) << r.output;
  ASSERT_NE(second, std::string::npos) << r.output;
  ASSERT_LT(first, second);
  for (const std::string& part : {r.output.substr(first, second - first), r.output.substr(second)}) {
    EXPECT_NE(part.find("verify: PASS"), std::string::npos) << part;
    const double median = number_after(part, "steady time: median ");
    const double low = number_after(part, "95% CI [");
    const double high = number_after(part, "us, ");
    EXPECT_GT(median, 0) << part;
    EXPECT_LE(low, median) << part;
    EXPECT_LE(median, high) << part;
    EXPECT_GT(number_after(part, "call time: median "), 0) << part;
    EXPECT_GT(number_after(part, "event sum (diagnostic): median "), 0) << part;
  }
  EXPECT_TRUE(std::regex_search(r.output.substr(second),
                                std::regex("against " + configs.a.string() +
                                           ": (tie \\(the CIs overlap\\)|faster|slower), [0-9.]+x its steady time")))
      << r.output;

  // The record says the same, with what the harness knows of where it ran.
  const nlohmann::json record = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(record["tool"], "mdh bench");
  EXPECT_NE(record["command_line"].get<std::string>().find("--config " + configs.b.string()), std::string::npos);
  EXPECT_FALSE(record["device"]["name"].get<std::string>().empty());
  EXPECT_FALSE(record["device"]["driver_version"].get<std::string>().empty());
  EXPECT_TRUE(std::regex_match(record["date"].get<std::string>(), std::regex("\\d{4}-\\d\\d-\\d\\dT.*Z")));
  EXPECT_GE(record["rounds"].get<int>(), 1);
  EXPECT_LE(record["rounds"].get<int>(), 6);
  ASSERT_EQ(record["configurations"].size(), 2u);
  for (const nlohmann::json& c : record["configurations"]) {
    EXPECT_TRUE(c["verification"]["passed"].get<bool>());
    EXPECT_TRUE(c["verification_after_timing"]["passed"].get<bool>());
    EXPECT_TRUE(c["timed"].get<bool>());
    EXPECT_GT(c["steady_time_median_ns"].get<double>(), 0);
    EXPECT_GT(c["call_time_median_ns"].get<double>(), 0);
    EXPECT_LE(c["steady_time_ns"]["ci_low"].get<double>(), c["steady_time_median_ns"].get<double>());
    EXPECT_GE(c["steady_time_ns"]["ci_high"].get<double>(), c["steady_time_median_ns"].get<double>());
    EXPECT_GE(c["calls_per_pair"].get<int>(), 1);
    EXPECT_LE(c["calls_per_pair"].get<int>(), 5);
    EXPECT_EQ(c["samples"]["steady_ns"].size(), record["rounds"].get<size_t>());
  }
  EXPECT_TRUE(record["configurations"][1]["against_first"].contains("tie"));
  EXPECT_GT(record["configurations"][1]["against_first"]["steady_ratio"].get<double>(), 0);

  // An existing record is never replaced by accident; --force replaces it.
  const std::string before = read_file(json);
  const auto again = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize + kQuick +
                                 " --json " + json.string());
  EXPECT_EQ(again.status, 2) << again.output;
  EXPECT_NE(again.output.find("--json '" + json.string() + "' exists"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("--force"), std::string::npos) << again.output;
  EXPECT_EQ(read_file(json), before);
  const auto forced = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize + kQuick +
                                  " --json " + json.string() + " --force");
  ASSERT_EQ(forced.status, 0) << forced.output;
  const nlohmann::json replaced = nlohmann::json::parse(read_file(json));
  ASSERT_EQ(replaced["configurations"].size(), 1u);  // no --config: the default configuration alone
  EXPECT_EQ(replaced["configurations"][0]["label"], "default");
}

TEST_F(Bench, ABadConfigurationFileIsAUserErrorBeforeAnyTiming) {
  const TwoConfigs configs = write_two_configs(dir_);
  const fs::path bad = dir_ / "bad.json";
  write_file(bad, R"({"mdh_config": 2, "NUM_WG_q": 4})");
  const auto r = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize + " --config " +
                             configs.a.string() + " --config " + bad.string() + kQuick);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(bad.string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("steady time"), std::string::npos) << r.output;

  const auto missing = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize + " --config " +
                                   (dir_ / "none.json").string());
  EXPECT_EQ(missing.status, 2) << missing.output;
  EXPECT_NE(missing.output.find("none.json': no such file"), std::string::npos) << missing.output;

  const auto rounds = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize + " --rounds 0");
  EXPECT_EQ(rounds.status, 2) << rounds.output;
  EXPECT_NE(rounds.output.find("--rounds must be at least 1"), std::string::npos) << rounds.output;
}

// The reference kernel is a configuration like any other: verified against itself, timed, compared.
TEST_F(Bench, TheReferenceKernelIsAConfiguration) {
  const auto r = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize +
                             " --config default --config reference" + kQuick);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("#1 default: tunable kernel"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#2 reference: reference kernel"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("against default: "), std::string::npos) << r.output;
}

// --config stored resolves as `mdh run` without --config does: a store holding a result for these sizes on this device
// gives that result's configuration, and the record says which file it took; with no store, the default runs and the
// record says none was taken, with the lookup's note.
TEST_F(Bench, StoredIsWhatTheStoreTakesAndTheRecordSaysWhich) {
  const TwoConfigs configs = write_two_configs(dir_);
  const DeviceInfo device = select_device("");
  const BoundMdh bound = load_and_bind(std::string(MDH_SOURCE_DIR) + "/" + kSpec, kSize);
  TuningResultFile result;
  result.spec = kSpec;
  result.spec_hash = spec_hash(std::string(MDH_SOURCE_DIR) + "/" + kSpec);
  result.md_hom = bound.mdh->name;
  result.md_hom_signature = md_hom_signature(*bound.mdh);
  result.sizes = bound.sizes;
  result.device = {{"name", device.name}, {"slug", device_slug(device)}};
  result.kernel_time_ns = 1000;
  result.config = nlohmann::json::parse(read_file(configs.b));
  const fs::path store = dir_ / "store";
  fs::create_directories(store / device_slug(device));
  const fs::path stored_path = store / device_slug(device) / "dot-test.json";
  write_file(stored_path, result.to_json().dump(2));

  const fs::path json = dir_ / "stored.json";
  const auto r = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize +
                             " --config stored --config default --tuned-results " + store.string() + kQuick +
                             " --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("note: using tuned configuration " + stored_path.string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#1 stored: tunable kernel, tuned config " + stored_path.string()), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  from the store: " + stored_path.string()), std::string::npos) << r.output;
  const nlohmann::json record = nlohmann::json::parse(read_file(json));
  const nlohmann::json& stored = record["configurations"][0];
  EXPECT_EQ(stored["label"], "stored");
  EXPECT_EQ(stored["store"]["store"], store.string());
  EXPECT_EQ(stored["store"]["taken"], stored_path.string());
  EXPECT_EQ(stored["store"]["tuned_sizes"], nlohmann::json({{"K", 4096}}));
  EXPECT_EQ(stored["store"]["log2_distance"], 0.0);
  EXPECT_EQ(stored["config"]["UNROLL_STEPS"], result.config["UNROLL_STEPS"]);
  EXPECT_NE(stored["config"]["UNROLL_STEPS"], record["configurations"][1]["config"]["UNROLL_STEPS"]);
  EXPECT_FALSE(record["configurations"][1].contains("store"));

  const auto none = run_command(std::string(MDH_BINARY) + " bench " + kSpec + " --size " + kSize +
                                " --config stored --tuned-results " + (dir_ / "empty").string() + kQuick + " --json " +
                                (dir_ / "none.json").string());
  ASSERT_EQ(none.status, 0) << none.output;
  EXPECT_NE(none.output.find("#1 stored: tunable kernel, default config"), std::string::npos) << none.output;
  EXPECT_NE(none.output.find("  from the store: none taken, the default configuration"), std::string::npos)
      << none.output;
  const nlohmann::json none_record = nlohmann::json::parse(read_file(dir_ / "none.json"));
  EXPECT_TRUE(none_record["configurations"][0]["store"]["taken"].is_null());
  EXPECT_EQ(none_record["configurations"][0]["store"]["notes"],
            nlohmann::json::array({"no tuned configurations for " + device_slug(device) + " in " +
                                   (dir_ / "empty").string() + "; using the default configuration"}));
}

}  // namespace
}  // namespace mdh
