// The store of tuned configurations (pipeline/tuned_store.h) in a temporary folder, on the default device (PoCL
// here): the exact sizes, the nearest ones, a changed spec, a configuration invalid for the sizes asked for, no store;
// every note pinned; and `mdh run` and `mdh export` taking a stored configuration when no --config is given.
#include "pipeline/tuned_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "mdh/parser.h"
#include "mdh/signature.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/kernel.h"
#include "pipeline/tune.h"
#include "pipeline/tuning_result.h"
#include "runtime/device.h"
#include "tests/integration/command_runner.h"
#include "tests/integration/scratch_directory.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGemmSpec = MDH_SOURCE_DIR "/apps/gemm.mdh";
constexpr const char* kAsked = "I=37,J=29,K=13";

BoundMdh gemm(const std::string& sizes) {
  return bind(parse_spec_file(kGemmSpec), parse_size_binding(sizes));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class TunedStoreTest : public testing::ScratchDirectoryTest {
 protected:
  TunedStoreTest() : ScratchDirectoryTest("mdh_dir_test") {}
  void SetUp() override {
    ScratchDirectoryTest::SetUp();
    folder_ = dir_ / device_slug(device_);
    fs::create_directories(folder_);
    // Two configurations valid for the sizes asked for, told apart by where A is cached.
    plain_ = default_config(asked_, limits_);
    check_config(asked_, plain_, limits_);
    cached_ = plain_;
    cached_.input_memory[static_cast<int>(Layer::Local)][0] = Memory::Local;
    check_config(asked_, cached_, limits_);
  }
  /// A result as `mdh tune --out` writes it, recorded on this device for `sizes`.
  TuningResultFile result(const std::string& sizes, const KernelConfig& config) const {
    const BoundMdh bound = gemm(sizes);
    TuningResultFile r;
    r.spec = "apps/gemm.mdh";
    r.spec_hash = spec_hash(kGemmSpec);
    r.md_hom = "gemm";
    r.md_hom_signature = md_hom_signature(*bound.mdh);
    r.sizes = bound.sizes;
    r.device = {{"name", device_.name}, {"slug", device_slug(device_)}};
    r.kernel_time_ns = 1000;
    r.config = config_to_json(bound, config);
    r.final_timing = won_timing();
    return r;
  }
  /// A final timing in which the chosen configuration beat the default in every round.
  static nlohmann::json won_timing() {
    return {{"rounds", 3},
            {"finalists",
             {{{"role", "search"}, {"final_ns", 1000}, {"round_ns", {990, 1000, 1010}}},
              {{"role", "default"}, {"final_ns", 1500}, {"round_ns", {1490, 1500, 1510}}}}},
            {"chosen", 0}};
  }
  std::string write(const std::string& name, const TuningResultFile& r) const {
    const fs::path path = folder_ / name;
    std::ofstream(path) << r.to_json().dump(2) << '\n';
    return path.string();
  }

  /// find_tuned_configuration for the sizes asked for, with the notes it made.
  std::optional<StoredConfiguration> find(std::vector<std::string>& notes, const std::string& store = "") const {
    return find_tuned_configuration(store.empty() ? dir_.string() : store, asked_, device_, limits_,
                                    [&](const std::string& text) { notes.push_back(text); });
  }

  DeviceInfo device_ = select_device("");
  DeviceLimits limits_ = device_limits(device_);
  BoundMdh asked_ = gemm(kAsked);
  KernelConfig plain_, cached_;
  fs::path folder_;
};

TEST(TunedSizesDistance, LogarithmsOfTheSizes) {
  EXPECT_EQ(tuned_sizes_distance({{"I", 1024}}, {{"I", 2048}}), 1.0);
  EXPECT_EQ(tuned_sizes_distance({{"I", 16}}, {{"I", 8}}), 1.0);
  EXPECT_EQ(tuned_sizes_distance({{"I", 7}, {"J", 9}}, {{"I", 7}, {"J", 9}}), 0.0);
  EXPECT_DOUBLE_EQ(tuned_sizes_distance({{"I", 4}, {"J", 4}}, {{"I", 8}, {"J", 8}}), std::sqrt(2.0));
}

TEST_F(TunedStoreTest, TheSizesAskedForAreTakenFirst) {
  const std::string exact = write("gemm-exact.json", result(kAsked, cached_));
  write("gemm-near.json", result("I=64,J=32,K=16", plain_));
  std::vector<std::string> notes;
  const std::optional<StoredConfiguration> found = find(notes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, exact);
  EXPECT_EQ(found->config, cached_);
  EXPECT_EQ(found->distance, 0.0);
  EXPECT_EQ(notes, std::vector<std::string>{"using tuned configuration " + exact +
                                            " (sizes I=37,J=29,K=13, the sizes asked for)"});
}

TEST_F(TunedStoreTest, OtherwiseTheNearestInLogarithmicDistance) {
  write("gemm-double.json", result("I=74,J=29,K=26", cached_));                       // sqrt(2) = 1.41 away
  const std::string near = write("gemm-k26.json", result("I=37,J=29,K=26", plain_));  // 1 away
  std::vector<std::string> notes;
  const std::optional<StoredConfiguration> found = find(notes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, near);
  EXPECT_EQ(found->config, plain_);
  EXPECT_EQ(notes,
            std::vector<std::string>{"using tuned configuration " + near +
                                     " (sizes I=37,J=29,K=26, nearest to I=37,J=29,K=13 of 2 stored for gemm on " +
                                     device_slug(device_) + ", log2 distance 1.00)"});
}

// A stored configuration far from the sizes asked for, or whose tiles leave edges here that they did not leave at
// its own sizes (or the reverse), can run many times slower than the default: passed over, with the reason.
TEST_F(TunedStoreTest, AConfigurationTooFarOrOfAnotherShapeIsPassedOver) {
  // The default's tiles at 37x29x13 (checked, so that the test cannot pass vacuously): i 8, j 14, k 13.
  const nlohmann::json tiles = config_to_json(asked_, plain_);
  ASSERT_EQ(tiles.at("LT_SIZE_i"), 8);
  ASSERT_EQ(tiles.at("LT_SIZE_k"), 13);
  const std::string far = write("gemm-far.json", result("I=74,J=29,K=26", plain_));
  const std::string other_shape = write("gemm-40.json", result("I=40,J=29,K=13", plain_));  // 8 divides 40, not 37
  std::vector<std::string> notes;
  EXPECT_FALSE(find(notes));
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "not using " + other_shape +
                           " (sizes I=40,J=29,K=13): its tiles do not fit I=37,J=29,K=13 as they fit its own sizes "
                           "(LT_SIZE_i 8 divided i's extent 40 and does not divide 37)",
                       "not using " + far +
                           " (sizes I=74,J=29,K=26): tuned for sizes too far from I=37,J=29,K=13 (log2 distance "
                           "1.41, more than 1)",
                       "none of the 2 tuned configurations of gemm for " + device_slug(device_) +
                           " is valid for I=37,J=29,K=13, near enough, a win where it was tuned and of the same shape; "
                           "using the default "
                           "configuration"}));
  EXPECT_EQ(stored_shape_mismatch(gemm("I=37,J=29,K=26"), asked_, tiles), std::nullopt);
}

// A stored configuration whose tiles divide the extents alike can still run other code here: work-groups that each
// owned whole tiles at its own sizes own an uneven share at these (empty tiles past the end: guarded code the tuning
// never timed). Passed over, with the reason.
TEST_F(TunedStoreTest, AConfigurationWhoseTilesFillOtherwiseIsPassedOver) {
  // Along i: tiles of 1 over 2 work-groups; 74 tiles are 37 per work-group, 37 tiles are not shared evenly.
  KernelConfig halves = plain_;
  halves.local_tile_size[0] = halves.private_tile_size[0] = halves.num_wi[0] = 1;
  halves.num_wg[0] = 2;
  const BoundMdh tuned = gemm("I=74,J=29,K=13");
  ASSERT_NO_THROW(check_config(tuned, halves, limits_));
  ASSERT_NO_THROW(check_config(asked_, halves, limits_));
  ASSERT_EQ(stored_shape_mismatch(tuned, asked_, config_to_json(asked_, halves)), std::nullopt);
  const std::string uneven = write("gemm-uneven.json", result("I=74,J=29,K=13", halves));
  std::vector<std::string> notes;
  EXPECT_FALSE(find(notes));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "not using " + uneven +
                " (sizes I=74,J=29,K=13): its kernel runs other paths at I=37,J=29,K=13 than at its own sizes "
                "(local tiles along i were always full at extent 74 and are sometimes full at 37 (74 and 37 "
                "local tiles over NUM_WG 2))");
  // A result not valid for the sizes it records (a tile longer than its own extent) is not trusted here either.
  KernelConfig long_tile = halves;
  long_tile.local_tile_size[0] = 37;
  long_tile.num_wg[0] = 1;
  ASSERT_NO_THROW(check_config(asked_, long_tile, limits_));
  fs::remove(uneven);
  const std::string invalid = write("gemm-invalid.json", result("I=20,J=29,K=13", long_tile));
  notes.clear();
  EXPECT_FALSE(find(notes));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].rfind("not using " + invalid + " (sizes I=20,J=29,K=13): not valid for its own sizes: ", 0), 0u)
      << notes[0];
  EXPECT_NE(notes[0].find("LT_SIZE_i"), std::string::npos) << notes[0];
  // Twice the tiles over the same work-groups: every one still owns whole tiles.
  EXPECT_EQ(stored_paths_mismatch(gemm("I=148,J=29,K=13"), tuned, halves), std::nullopt);
  EXPECT_EQ(stored_paths_mismatch(asked_, asked_, halves), std::nullopt);
}

// At other sizes than its own, a result is taken only where its final timing shows it beat the default there in every
// round; at its own sizes it is taken whatever its timing says.
TEST_F(TunedStoreTest, AtOtherSizesOnlyAResultThatBeatTheDefaultIsTaken) {
  TuningResultFile tie = result("I=37,J=29,K=26", plain_);
  tie.final_timing["finalists"][1]["round_ns"] = {1005, 1500, 1510};  // the default's fastest round beat its slowest
  TuningResultFile chose_default = result("I=74,J=29,K=13", plain_);
  chose_default.final_timing["chosen"] = 1;
  TuningResultFile untimed = result("I=37,J=58,K=13", plain_);
  untimed.final_timing = nullptr;
  const std::string tie_path = write("gemm-tie.json", tie), default_path = write("gemm-default.json", chose_default),
                    untimed_path = write("gemm-untimed.json", untimed);
  EXPECT_EQ(stored_win_missing(result(kAsked, plain_)), std::nullopt);
  std::vector<std::string> notes;
  EXPECT_FALSE(find(notes));
  ASSERT_EQ(notes.size(), 4u);
  const std::string other = "): tuned for other sizes than I=37,J=29,K=13, and ";
  EXPECT_EQ(notes[0], "not using " + default_path + " (sizes I=74,J=29,K=13" + other +
                          "its final timing chose the default configuration");
  EXPECT_EQ(notes[1], "not using " + tie_path + " (sizes I=37,J=29,K=26" + other +
                          "its final timing did not time it faster than the default in every round (slowest round "
                          "0.00101 ms, the default's fastest 0.001005 ms)");
  EXPECT_EQ(notes[2], "not using " + untimed_path + " (sizes I=37,J=58,K=13" + other +
                          "it records no final timing against the default configuration");
  // The same timings at the sizes asked for: the tuner's choice there is taken.
  TuningResultFile exact = result(kAsked, cached_);
  exact.final_timing = nullptr;
  const std::string exact_path = write("gemm-exact.json", exact);
  notes.clear();
  const std::optional<StoredConfiguration> found = find(notes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, exact_path);
}

// Equally near results of other sizes do other amounts of work: the smaller one's kernel is faster however it is
// configured, so the tie goes to the higher recorded rate, and only results without one compare kernel times.
TEST_F(TunedStoreTest, EquallyNearResultsAreOrderedByTheirRecordedRate) {
  TuningResultFile smaller_work = result("I=37,J=29,K=26", plain_);  // K doubled: log2 distance 1
  TuningResultFile larger_work = result("I=74,J=29,K=13", cached_);  // I doubled: 1 as well
  smaller_work.kernel_time_ns = 1000;
  smaller_work.gflops = 10;
  larger_work.kernel_time_ns = 1500;
  larger_work.gflops = 20;
  write("gemm-a.json", smaller_work);
  const std::string faster_rate = write("gemm-b.json", larger_work);
  std::vector<std::string> notes;
  std::optional<StoredConfiguration> found = find(notes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, faster_rate);
  EXPECT_EQ(found->config, cached_);
  // Without rates on both, the faster recorded kernel.
  smaller_work.gflops.reset();
  const std::string faster_kernel = write("gemm-a.json", smaller_work);
  found = find(notes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, faster_kernel);
  EXPECT_EQ(found->config, plain_);
}

TEST_F(TunedStoreTest, AResultOfAnotherVersionOfTheSpecIsNotUsed) {
  TuningResultFile changed = result(kAsked, cached_);
  changed.md_hom_signature = "0123456789abcdef";
  const std::string path = write("gemm-changed.json", changed);
  std::vector<std::string> notes;
  EXPECT_FALSE(find(notes));
  const std::string store = dir_.string(), slug = device_slug(device_);
  EXPECT_EQ(notes,
            (std::vector<std::string>{
                "not using " + path + ": tuned for another version of gemm (md_hom signature " + "0123456789abcdef; " +
                    kGemmSpec + " has " + md_hom_signature(*asked_.mdh) + ")",
                "no tuned configuration of gemm for " + slug + " in " + store + "; using the default configuration"}));
}

TEST_F(TunedStoreTest, ResultsWithoutASignatureAreMatchedByTheSpecsBytes) {
  TuningResultFile legacy = result(kAsked, cached_);
  legacy.md_hom_signature.clear();
  const std::string same = write("gemm-legacy.json", legacy);
  legacy.spec_hash = "e8cd61c633375114";  // the hash of apps/gemm.mdh before it declared flops and bytes
  const std::string older = write("gemm-older.json", legacy);
  std::vector<std::string> notes;
  const std::optional<StoredConfiguration> found = find(notes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, same);
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "not using " + older + ": tuned for another version of " + kGemmSpec +
                           " (spec hash e8cd61c633375114, the file now hashes " + spec_hash(kGemmSpec) +
                           "; the result records no md_hom signature)",
                       "using tuned configuration " + same + " (sizes I=37,J=29,K=13, the sizes asked for)"}));
}

TEST_F(TunedStoreTest, AConfigurationInvalidForTheSizesIsPassedOverForTheNextNearest) {
  // Tuned for 1024^3, its tiles do not fit 37x29x13: checked here, so that the test cannot pass vacuously.
  const BoundMdh large = gemm("I=1024,J=1024,K=1024");
  const KernelConfig large_config = default_config(large, limits_);
  ASSERT_THROW(check_config(asked_, large_config, limits_), UserError);
  TuningResultFile invalid = result(kAsked, plain_);  // recorded for the sizes asked for, so it is the nearest
  invalid.config = config_to_json(large, large_config);
  const std::string skipped = write("gemm-invalid.json", invalid);
  const std::string taken = write("gemm-k26.json", result("I=37,J=29,K=26", cached_));
  std::vector<std::string> notes;
  const std::optional<StoredConfiguration> found = find(notes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, taken);
  ASSERT_EQ(notes.size(), 2u);
  const std::string prefix = "not using " + skipped + " (sizes I=37,J=29,K=13): not valid for I=37,J=29,K=13: ";
  EXPECT_EQ(notes[0].substr(0, prefix.size()), prefix) << notes[0];
  EXPECT_EQ(notes[0].find("error:"), std::string::npos) << "the reason without its severity: " << notes[0];
  EXPECT_EQ(notes[1].rfind("using tuned configuration " + taken + " (sizes I=37,J=29,K=26, nearest to ", 0), 0u)
      << notes[1];

  fs::remove(taken);
  notes.clear();
  EXPECT_FALSE(find(notes));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1], "none of the 1 tuned configurations of gemm for " + device_slug(device_) +
                          " is valid for I=37,J=29,K=13, near enough, a win where it was tuned and of the same shape; "
                          "using the default "
                          "configuration");
}

// The default space of a device with warps leaves out work-groups of part warps, but such configurations are valid
// (the H200's store holds tuned ones of 8 and 24 work-items): the store still takes them, and `mdh run --config`
// runs them with a note (pipeline/kernel.h).
TEST_F(TunedStoreTest, APartWarpConfigurationIsTakenOnAWarpDevice) {
  KernelConfig part_warp = plain_;
  part_warp.num_wi = {2, 3, 1};
  part_warp.local_tile_size = {2, 3, 13};
  part_warp.private_tile_size = {1, 1, 1};
  part_warp.num_wg = {19, 10, 1};
  DeviceLimits warp = limits_;
  warp.warp_size = 32;
  const std::string where = write("gemm-part-warp.json", result(kAsked, part_warp));
  std::vector<std::string> notes;
  const std::optional<StoredConfiguration> found =
      find_tuned_configuration(dir_.string(), asked_, device_, warp, [&](const std::string& t) { notes.push_back(t); });
  ASSERT_TRUE(found);
  EXPECT_EQ(found->config, part_warp);
  EXPECT_EQ(notes, std::vector<std::string>{"using tuned configuration " + where +
                                            " (sizes I=37,J=29,K=13, the sizes asked for)"});
  EXPECT_EQ(outside_default_space_note(asked_, part_warp, warp, "part.json"),
            "part.json: outside the default tuning space: violates NUM_WI_i * NUM_WI_j * NUM_WI_k is a multiple of 32 "
            "(warp size) (NUM_WI_i = 2, NUM_WI_j = 3, NUM_WI_k = 1); it runs, but `mdh tune` tries such configurations "
            "only with --full-ranges");
  EXPECT_EQ(outside_default_space_note(asked_, part_warp, limits_, "part.json"), std::nullopt);  // PoCL: no warp
}

TEST_F(TunedStoreTest, NoStoreMeansTheDefaultConfiguration) {
  std::vector<std::string> notes;
  const std::string missing = (dir_ / "missing").string();
  EXPECT_FALSE(find(notes, missing));
  EXPECT_EQ(notes, std::vector<std::string>{"no tuned configurations for " + device_slug(device_) + " in " + missing +
                                            "; using the default configuration"});
  notes.clear();
  EXPECT_FALSE(find(notes, kNoTunedStore));
  EXPECT_TRUE(notes.empty()) << "'none' is asked for, so nothing is said";

  // KernelChoice::stored resolves to the default configuration then, and to a typed config described by its file.
  const KernelChoice none =
      resolve_kernel_choice(KernelChoice::stored(missing), asked_, device_, limits_, [](const std::string&) {});
  EXPECT_EQ(none.kind, KernelChoice::Kind::default_config);
  const std::string exact = write("gemm-exact.json", result(kAsked, cached_));
  std::optional<StoredConfiguration> taken;
  const KernelChoice stored = resolve_kernel_choice(
      KernelChoice::stored(dir_.string()), asked_, device_, limits_, [](const std::string&) {}, &taken);
  ASSERT_TRUE(taken);
  EXPECT_EQ(stored.kind, KernelChoice::Kind::config);
  EXPECT_EQ(prepare_kernel(asked_, limits_, stored).description, "tunable kernel, tuned config " + exact);
}

TEST_F(TunedStoreTest, OtherMdHomsTablesAndDevicesAreNotTaken) {
  TuningResultFile gemv = result(kAsked, cached_);
  gemv.md_hom = "gemv";
  write("gemv.json", gemv);                                        // another md_hom: not a candidate, not noted
  std::ofstream(folder_ / "benchmark.json") << R"({"rows": []})";  // not a result
  std::ofstream(folder_ / "broken.json") << "{";                   // not JSON
  TuningResultFile elsewhere = result(kAsked, cached_);
  elsewhere.device["slug"] = "nvidia-h200";
  const std::string moved = write("gemm-h200.json", elsewhere);
  fs::create_directories(dir_ / "nvidia-h200");
  write("../nvidia-h200/gemm.json", result(kAsked, cached_));  // another device's folder: never read
  std::vector<std::string> notes;
  EXPECT_FALSE(find(notes));
  EXPECT_EQ(notes, (std::vector<std::string>{"not using " + moved + ": tuned on another device (\"nvidia-h200\")",
                                             "no tuned configuration of gemm for " + device_slug(device_) + " in " +
                                                 dir_.string() + "; using the default configuration"}));
}

// ------------------------------------------------------------------------------------------------ the command line

using Result = testing::CommandResult;

Result mdh_cli(const std::string& args) {
  return testing::run_command("'" MDH_BINARY "' " + args);
}

TEST_F(TunedStoreTest, RunTakesTheStoredConfigurationAndChecksItOnce) {
  const std::string exact = write("gemm-exact.json", result(kAsked, cached_));
  Result r =
      mdh_cli(std::string("run apps/gemm.mdh --size ") + kAsked + " --repeat 1 --tuned-results " + dir_.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(
      r.output.find("note: using tuned configuration " + exact + " (sizes I=37,J=29,K=13, the sizes asked for)\n"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("], tunable kernel, tuned config " + exact + "\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tuned configuration checked, verify (reference in double): PASS"), std::string::npos)
      << r.output;

  // --config default: the default configuration, the store not read.
  r = mdh_cli(std::string("run apps/gemm.mdh --size ") + kAsked + " --repeat 1 --config default --tuned-results " +
              dir_.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("note:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("], tunable kernel, default config\n"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("verify"), std::string::npos) << "only a stored configuration is checked unasked";
}

TEST_F(TunedStoreTest, ExportAndGenerateTakeItFromTheEnvironmentsStore) {
  const std::string exact = write("gemm-exact.json", result(kAsked, cached_));
  const fs::path out = dir_ / "export";
  Result r = testing::run_command("MDH_TUNED_RESULTS=" + dir_.string() +
                                  " '" MDH_BINARY "' export apps/gemm.mdh --size " + kAsked + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("note: using tuned configuration " + exact), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("note: it is valid for these sizes on this device; export does not run it"),
            std::string::npos)
      << r.output;
  const fs::path cl = dir_ / "generated.cl";
  r = mdh_cli(std::string("generate apps/gemm.mdh --size ") + kAsked + " --config " + exact + " -o " + cl.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(out / "gemm.cl"), read_file(cl));
  const fs::path from_store = dir_ / "from-store.cl";
  r = testing::run_command("MDH_TUNED_RESULTS=" + dir_.string() + " '" MDH_BINARY "' generate apps/gemm.mdh --size " +
                           kAsked + " -o " + from_store.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(from_store), read_file(cl));
}

}  // namespace
}  // namespace mdh
