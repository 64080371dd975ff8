// `mdh tune` end to end on the default device: named values in journals and results, the tuning request that the
// worker processes read, and the rule for resuming a journal (same spec, sizes, device, driver and generator; an
// older journal that wrote enum ordinals and permutation ranks still resumes).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>

#include "codegen/config_json.h"
#include "codegen/parameter_families.h"
#include "codegen/permutation.h"
#include "codegen/tunable_kernel.h"
#include "tests/integration/command_runner.h"
#include "tests/integration/scratch_directory.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kGemm = "apps/gemm.mdh --size I=8,J=8,K=8";

testing::CommandResult mdh_cli(const std::string& args) {
  return testing::run_command("'" MDH_BINARY "' " + args);
}

class TuneTest : public testing::ScratchDirectoryTest {
 protected:
  TuneTest() : ScratchDirectoryTest("mdh_tune_test") {}
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::vector<json> journal_lines(const std::string& name) const {
    std::vector<json> lines;
    std::ifstream in(path(name));
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
    return lines;
  }
  void write_journal(const std::string& name, const std::vector<json>& lines) const {
    std::ofstream out(path(name));
    for (const json& line : lines) out << line.dump() << '\n';
  }
  // Tunes GEMM 8x8x8 for `evals` evaluations into best.json and its journal.
  testing::CommandResult tune(int evals, const std::string& extra = "") const {
    return mdh_cli(std::string("tune ") + kGemm + " --evals " + std::to_string(evals) + " --compile-threads 1 --out " +
                   path("best.json") + extra);
  }
};

TEST_F(TuneTest, ProgressNamesTheLimitAndHelpNamesTheDefaultLimit) {
  // Piped (not a terminal): whole lines, the first evaluation an improvement, counted against the --evals limit.
  const auto r = tune(2);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("evaluations 1 of 2 (1 valid), best "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\r'), std::string::npos) << r.output;
  const auto help = mdh_cli("tune --help");
  EXPECT_NE(help.output.find("mdh tune options (without --evals, --budget or --abort: stop after 200 evaluations)"),
            std::string::npos)
      << help.output;
}

TEST_F(TuneTest, JournalsAndResultsNameTheirValuesAndTheResultVerifies) {
  const auto r = tune(3);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<json> lines = journal_lines("best.json.journal");
  ASSERT_EQ(lines.size(), 4u) << "a header and three evaluations";
  EXPECT_EQ(lines[0]["metadata"]["generator"], kTunableKernelGeneration);
  EXPECT_EQ(lines[0]["metadata"]["config_format"], 2);
  // Where an evaluation's time went: the cost function's stages, per record and summed in the last lines.
  EXPECT_TRUE(std::regex_search(r.output, std::regex("per evaluation: [0-9.]+ ms kernel source, [0-9.]+ ms program, "
                                                     "[0-9.]+ ms warm-up, [0-9.]+ ms device, [0-9.]+ ms verification, "
                                                     "[0-9.]+ ms elsewhere \\(worker messages and restarts\\)\n")))
      << r.output;
  // And what a worker's start-up costs (paid again by every restart after a timeout or crash), by stage.
  EXPECT_TRUE(std::regex_search(r.output, std::regex("evaluating worker start-ups: 1, [0-9.]+ s each until ready "
                                                     "\\([0-9.]+ s spec, device and space, [0-9.]+ s context, "
                                                     "[0-9.]+ s inputs, [0-9.]+ s reference\\)\n")))
      << r.output;
  for (size_t k = 1; k < lines.size(); ++k) {
    ASSERT_TRUE(lines[k]["stages"].is_array()) << lines[k].dump();
    EXPECT_EQ(lines[k]["stages"][0][0], "kernel source") << lines[k].dump();
    const json& config = lines[k]["config"];
    EXPECT_TRUE(config["MEM_RES_P"].is_string()) << config.dump();
    EXPECT_TRUE(config["CMB_RES"].is_string()) << config.dump();
    EXPECT_TRUE(config["LOOP_ORDER_G"].is_array() && config["LOOP_ORDER_G"][0].is_string()) << config.dump();
  }
  json result;
  std::ifstream(path("best.json")) >> result;
  EXPECT_EQ(result["config"]["mdh_config"], 2);
  // The device's limits, from which the configuration is generated on machines without it (PoCL's here).
  ASSERT_TRUE(result["device_limits"].is_object()) << result.dump();
  EXPECT_EQ(result["device_limits"]["nvidia_driver"], false);
  EXPECT_EQ(result["device_limits"]["subgroup_width"], 4);
  EXPECT_TRUE(result["device_limits"]["max_work_group_size"].is_number_unsigned());
  const auto run = mdh_cli(std::string("run ") + kGemm + " --config " + path("best.json") + " --verify --repeat 1");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("PASS"), std::string::npos) << run.output;
}

// After the search its fastest configurations and the default are timed again side by side, as the benchmark times
// them, and the fastest of those is the result; the journal holds the search alone. --finalists 0 writes the
// search's best.
TEST_F(TuneTest, TheResultIsTheFastestOfTheFinalistsTimedAgainBesideTheDefault) {
  const auto r = tune(6);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("note: final timing \\(3 rounds of [0-9]+ runs, timed as the benchmark times\\): "
                           "(search #1 [0-9.e-]+ ms \\(searched [0-9.e-]+\\)( <- chosen)?; )?[^\\n]*default [0-9.e-]+ "
                           "ms \\(searched [0-9.e-]+\\)[^\\n]*\\n")))
      << r.output;
  EXPECT_EQ(std::regex_search(r.output, std::regex("note: final timing [^\\n]* <- chosen[;\\n]")), true) << r.output;
  // The last line says which figure it reports: the final timing's, not the search's.
  EXPECT_NE(r.output.find("\nbest (final timing): "), std::string::npos) << r.output;
  EXPECT_EQ(journal_lines("best.json.journal").size(), 7u) << "a header and the six evaluations of the search";
  json result;
  std::ifstream(path("best.json")) >> result;
  const json& timing = result["final_timing"];
  ASSERT_TRUE(timing.is_object()) << result.dump();
  EXPECT_EQ(timing["rounds"], 3);
  const json& finalists = timing["finalists"];
  // At most the search's 3 fastest and the default; fewer where the search cut the others (a loaded machine).
  ASSERT_TRUE(finalists.is_array() && finalists.size() >= 1 && finalists.size() <= 4) << timing.dump();
  EXPECT_EQ(std::count_if(finalists.begin(), finalists.end(), [](const json& f) { return f["role"] == "default"; }), 1)
      << timing.dump();
  double fastest = 1e300;
  for (const json& f : finalists) {
    ASSERT_TRUE(f.contains("final_ns")) << f.dump();
    EXPECT_EQ(f["round_ns"].size(), 3u) << f.dump();
    EXPECT_TRUE(f.contains("search_ns")) << "the default start was timed in full by the search too: " << f.dump();
    fastest = std::min(fastest, f["final_ns"].get<double>());
  }
  const json& chosen = finalists.at(timing["chosen"].get<size_t>());
  EXPECT_EQ(result["kernel_time_ns"].get<double>(), fastest);
  EXPECT_EQ(chosen["final_ns"].get<double>(), fastest);
  EXPECT_EQ(result["config"], chosen["config"]);

  const auto search_only_run = tune(6, " --force --finalists 0");
  ASSERT_EQ(search_only_run.status, 0);
  EXPECT_NE(search_only_run.output.find("\nbest (the search's; no final timing): "), std::string::npos)
      << search_only_run.output;
  json search_only;
  std::ifstream(path("best.json")) >> search_only;
  EXPECT_FALSE(search_only.contains("final_timing"));
  double best_verified = 1e300;
  for (const json& line : journal_lines("best.json.journal"))
    if (line.value("status", "") == "ok" && line.value("verified", true))
      best_verified = std::min(best_verified, line["cost"].get<double>());
  EXPECT_DOUBLE_EQ(search_only["kernel_time_ns"].get<double>(), best_verified * 1e9);
  const auto refused = mdh_cli(std::string("tune ") + kGemm + " --finalists -1 --out " + path("x.json"));
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.output, "error: --finalists must be 0 or more\n");
}

// A run without a valid configuration said "see the journal for the reasons" of a journal that held none, and the
// summary counted "1 compile workers".
TEST_F(TuneTest, TheSummarySaysWhyNothingIsValidAndCountsInTheSingular) {
  const auto none = tune(0);
  EXPECT_EQ(none.status, 1) << none.output;
  EXPECT_NE(none.output.find("no configuration was evaluated: the run stopped before its first evaluation finished "
                             "(abort condition evaluations(0) met)\n"),
            std::string::npos)
      << none.output;
  EXPECT_EQ(none.output.find("for the reasons"), std::string::npos) << none.output;
  const auto one = tune(1, " --force");
  ASSERT_EQ(one.status, 0) << one.output;
  EXPECT_NE(one.output.find("; 1 evaluation (1 valid, "), std::string::npos) << one.output;
  EXPECT_TRUE(std::regex_search(one.output, std::regex("; [0-9]+ compiles? ahead took [0-9]+ ms each on average, on "
                                                       "1 compile worker\n")))
      << one.output;
  // A param that does not read fails before the run, not in each of its evaluations.
  const auto param = mdh_cli(std::string("tune ") + kGemm + " --param alpha=1 --out " + path("p.json"));
  EXPECT_EQ(param.status, 2) << param.output;
  EXPECT_EQ(param.output, "error: the spec declares no param 'alpha'\n");
}

// A journal that differs only in how it wrote values (before they were named: enum ordinals, permutation ranks)
// resumes: its records are replayed, none is evaluated again.
TEST_F(TuneTest, AJournalWithEnumOrdinalsAndPermutationRanksResumes) {
  ASSERT_EQ(tune(3).status, 0);
  std::vector<json> lines = journal_lines("best.json.journal");
  lines[0]["metadata"].erase("config_format");
  const auto& families = parameter_families();
  for (size_t k = 1; k < lines.size(); ++k)
    for (auto& [name, value] : lines[k]["config"].items()) {
      for (const ParameterFamily& f : families) {
        if (name.rfind(f.name, 0) != 0) continue;
        if (f.kind == FamilyValueKind::enumeration) {
          const auto at = std::find(f.labels.begin(), f.labels.end(), value.get<std::string>()) - f.labels.begin();
          value = f.legacy_codes.at(at);
        } else if (f.kind == FamilyValueKind::permutation) {
          std::vector<int> order;
          for (const json& element : value)
            order.push_back(element.is_number() ? element.get<int>()
                                                : std::string("ijk").find(element.get<std::string>()[0]));
          value = permutation_rank(order);
        }
        break;
      }
    }
  ASSERT_TRUE(lines[1]["config"]["MEM_RES_P"].is_number());
  write_journal("best.json.journal", lines);
  const auto r = tune(5, " --resume");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("5 evaluations (5 valid, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" cut, 3 replayed)"), std::string::npos) << r.output;
}

// Spills are recognised from NVIDIA's build log only: on PoCL no build asks for ptxas's report (the binary cache's
// keys hold the build options), the journal records nothing about spills, and --allow-spills changes nothing, so a
// journal resumes with or without it.
TEST_F(TuneTest, OnPoclSpillsAreNeitherAskedForNorRecorded) {
  const auto r = tune(2, " --binary-cache " + path("kernels"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(journal_lines("best.json.journal")[0]["metadata"].contains("spilling_candidates"));
  size_t binaries = 0;
  for (const auto& file : fs::directory_iterator(path("kernels"))) {
    std::ifstream in(file.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes.find("-cl-nv-verbose"), std::string::npos) << file.path();
    ++binaries;
  }
  EXPECT_GE(binaries, 1u);
  const auto resumed = tune(3, " --resume --allow-spills");
  EXPECT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_EQ(journal_lines("best.json.journal").size(), 4u);
}

// A run that names no technique searches with the default (`local`); resumed, it takes the journal's technique, so a
// journal recorded with another one (`auc_bandit`, the default before) continues without naming it. Naming another
// technique than the journal's is refused.
TEST_F(TuneTest, AResumedRunTakesTheJournalsTechniqueUnlessOneIsNamed) {
  ASSERT_EQ(tune(2).status, 0);
  EXPECT_EQ(journal_lines("best.json.journal")[0]["technique"], "local+seeded");
  json result;
  std::ifstream(path("best.json")) >> result;
  EXPECT_EQ(result["technique"], "local");

  ASSERT_EQ(tune(2, " --force --technique auc_bandit").status, 0);
  const auto resumed = tune(4, " --resume");
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(" 2 replayed)"), std::string::npos) << resumed.output;
  const std::vector<json> lines = journal_lines("best.json.journal");
  EXPECT_EQ(lines[0]["technique"], "auc_bandit+seeded");
  EXPECT_EQ(lines.size(), 5u) << "the header, two replayed evaluations and two new ones";
  std::ifstream(path("best.json")) >> result;
  EXPECT_EQ(result["technique"], "auc_bandit");

  const auto other = tune(5, " --resume --technique local");
  EXPECT_EQ(other.status, 2) << other.output;
  EXPECT_NE(other.output.find("': it was recorded with technique auc_bandit+seeded, this run uses local+seeded"),
            std::string::npos)
      << other.output;
}

// A journal of generation 1 (written before the generation was recorded) holds timings of kernels that are no
// longer generated: it is not resumed.
TEST_F(TuneTest, AJournalWithoutAGenerationIsOfGenerationOne) {
  ASSERT_EQ(tune(2).status, 0);
  std::vector<json> lines = journal_lines("best.json.journal");
  lines[0]["metadata"].erase("generator");
  write_journal("best.json.journal", lines);
  const auto r = tune(4, " --resume");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("it was recorded with generator 1, this run has " + std::to_string(kTunableKernelGeneration) +
                          " (its timings are of kernels mdh no longer generates)"),
            std::string::npos)
      << r.output;
}

TEST_F(TuneTest, AJournalOfAnotherSpecSizesOrGeneratorIsNotResumed) {
  ASSERT_EQ(tune(2).status, 0);
  const std::vector<json> original = journal_lines("best.json.journal");
  const std::vector<std::pair<std::string, json>> changes = {{"spec_hash", "0123456789abcdef"},
                                                             {"sizes", "I=8,J=8,K=9"},
                                                             {"generator", kTunableKernelGeneration - 1},
                                                             {"device", "another device"},
                                                             {"driver", "0.0"}};
  for (const auto& [key, value] : changes) {
    std::vector<json> lines = original;
    const json was = lines[0]["metadata"][key];
    lines[0]["metadata"][key] = value;
    write_journal("best.json.journal", lines);
    const auto r = tune(4, " --resume");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("error: cannot resume journal '" + path("best.json.journal") + "': it was recorded with " +
                            key + " " + value.dump() + ", this run has " + was.dump()),
              std::string::npos)
        << r.output;
    EXPECT_EQ(journal_lines("best.json.journal").size(), lines.size()) << "the refused journal is left as it was";
  }
}

// --start: a configuration of another run (here the best of GEMM 8x8x8 with strided ownership, written as a config
// file) is evaluated right after the default, recorded in the journal's header, and a journal resumes only with the
// same starts. A start the space does not hold is refused before anything is evaluated.
TEST_F(TuneTest, StartConfigurationsAreEvaluatedNextAndBindTheJournal) {
  const json start = {{"mdh_config", 2},         {"NUM_WG_i", 1},      {"NUM_WG_j", 1},      {"NUM_WG_k", 1},
                      {"NUM_WI_i", 2},           {"NUM_WI_j", 4},      {"NUM_WI_k", 1},      {"LT_SIZE_i", 8},
                      {"LT_SIZE_j", 8},          {"LT_SIZE_k", 8},     {"PT_SIZE_i", 4},     {"PT_SIZE_j", 2},
                      {"PT_SIZE_k", 2},          {"ORDER_OCL_G_i", 1}, {"ORDER_OCL_G_j", 0}, {"ORDER_OCL_G_k", 2},
                      {"ORDER_OCL_L_i", 1},      {"ORDER_OCL_L_j", 0}, {"ORDER_OCL_L_k", 2}, {"OWNERSHIP_i", "strided"},
                      {"OWNERSHIP_j", "strided"}};
  std::ofstream(path("start.json")) << start.dump();
  const auto r = tune(3, " --start " + path("start.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<json> lines = journal_lines("best.json.journal");
  ASSERT_GE(lines.size(), 3u);
  ASSERT_EQ(lines[0]["metadata"]["starts"].size(), 1u);
  EXPECT_EQ(lines[0]["metadata"]["starts"][0]["OWNERSHIP_i"], "strided");
  json recorded_start = lines[0]["metadata"]["starts"][0];
  EXPECT_EQ(recorded_start["mdh_config"], kConfigFormatVersion);
  recorded_start.erase("mdh_config");  // journal records name the parameters only
  EXPECT_EQ(lines[2]["config"], recorded_start) << "the start is the second evaluation";

  const auto other = tune(4, " --resume");
  EXPECT_EQ(other.status, 2) << other.output;
  EXPECT_NE(other.output.find("': it was recorded with starts ["), std::string::npos) << other.output;
  EXPECT_EQ(tune(4, " --resume --start " + path("start.json")).status, 0);

  json outside_config = start;
  outside_config["LT_SIZE_k"] = 7;  // not among the searched sizes of an extent of 8 (powers of two, divisors)
  outside_config["PT_SIZE_k"] = 7;
  std::ofstream(path("outside.json")) << outside_config.dump();
  const auto outside = mdh_cli(std::string("tune ") + kGemm + " --evals 2 --out " + path("other.json") + " --start " +
                               path("outside.json"));
  EXPECT_EQ(outside.status, 2) << outside.output;
  EXPECT_NE(
      outside.output.find("error: --start " + path("outside.json") + ": the configuration is not in the search space"),
      std::string::npos)
      << outside.output;
  EXPECT_FALSE(fs::exists(path("other.json.journal"))) << "nothing evaluated";
}

// Transfer: a run starts from the stored results of the same md_hom in the store of tuned results (every device's
// folder; $MDH_TUNED_RESULTS or --transfer-from), re-checked: one that fits as stored first, one tuned for 16^3
// adapted (its work-group counts halved), one that cannot be used passed over with its reason, other md_homs
// ignored. The notes say which were taken; the journal records them, and a resumed run takes the journal's even when
// the store changed. --no-transfer starts without them.
TEST_F(TuneTest, StartsFromStoredResultsOfTheSameMdHom) {
  // A real result of this spec (with its md_hom signature), as the template of the stored ones.
  ASSERT_EQ(tune(1, " --no-transfer").status, 0);
  json stored;
  std::ifstream(path("best.json")) >> stored;
  const json fits = {{"mdh_config", 2},         {"NUM_WG_i", 1},      {"NUM_WG_j", 1},      {"NUM_WG_k", 1},
                     {"NUM_WI_i", 2},           {"NUM_WI_j", 4},      {"NUM_WI_k", 1},      {"LT_SIZE_i", 8},
                     {"LT_SIZE_j", 8},          {"LT_SIZE_k", 8},     {"PT_SIZE_i", 4},     {"PT_SIZE_j", 2},
                     {"PT_SIZE_k", 2},          {"ORDER_OCL_G_i", 1}, {"ORDER_OCL_G_j", 0}, {"ORDER_OCL_G_k", 2},
                     {"ORDER_OCL_L_i", 1},      {"ORDER_OCL_L_j", 0}, {"ORDER_OCL_L_k", 2}, {"OWNERSHIP_i", "strided"},
                     {"OWNERSHIP_j", "strided"}};
  json larger = fits;
  larger["NUM_WG_i"] = 2;
  larger["NUM_WG_j"] = 2;
  larger["PT_SIZE_i"] = 2;  // differs from `fits` after the adaptation too
  const fs::path store = dir_ / "store";
  fs::create_directories(store / "another-gpu");
  auto write = [&](const std::string& name, const json& config, const json& sizes, const std::string& md_hom) {
    json result = stored;
    result["config"] = config;
    result["sizes"] = sizes;
    result["md_hom"] = md_hom;
    result["device"] = {{"name", "Another GPU"}, {"slug", "another-gpu"}};
    std::ofstream(store / "another-gpu" / name) << result.dump();
  };
  const json size8 = {{"I", 8}, {"J", 8}, {"K", 8}}, size16 = {{"I", 16}, {"J", 16}, {"K", 16}};
  write("gemm-8.json", fits, size8, "gemm");
  write("gemm-16.json", larger, size16, "gemm");
  write("gemm-broken.json", {{"LT_SIZE_i", "x"}}, size8, "gemm");
  write("dot.json", fits, {{"N", 8}}, "dot");
  const std::string folder = store.string();
  auto run = [&](int evals, const std::string& extra) {
    return mdh_cli(std::string("tune ") + kGemm + " --evals " + std::to_string(evals) + " --compile-threads 1 --out " +
                   path("best.json") + extra);
  };

  const auto r = testing::run_command("MDH_TUNED_RESULTS='" + folder + "' '" MDH_BINARY "' tune " + kGemm +
                                      " --evals 4 --compile-threads 1 --force --out " + path("best.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("note: transfer: 1 stored results of gemm in " + folder +
                          " cannot be used: not using another-gpu/gemm-broken.json: config: LT_SIZE_i: expected an "
                          "integer, got \"x\"; and it cannot be adapted (its configuration does not fit this "
                          "md_hom)\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("note: transfer: starting from 2 stored results of gemm in " + folder +
                          " (re-checked; adapted: tuned for other sizes or limits, moved to the nearest valid "
                          "configuration of this run; --no-transfer: without them): another-gpu/gemm-8.json; "
                          "another-gpu/gemm-16.json (adapted)\n"),
            std::string::npos)
      << r.output;
  const std::vector<json> lines = journal_lines("best.json.journal");
  ASSERT_EQ(lines.size(), 5u);
  const json& transferred = lines[0]["metadata"]["transferred"];
  ASSERT_EQ(transferred.size(), 2u);
  EXPECT_EQ(transferred[0]["path"], folder + "/another-gpu/gemm-8.json");
  EXPECT_FALSE(transferred[0].contains("adapted"));
  EXPECT_EQ(transferred[1]["adapted"],
            "config: violates NUM_WG_i <= ceil(8 / LT_SIZE_i) (NUM_WG_i = 2, LT_SIZE_i = 8)");
  json expected = fits;
  expected.erase("mdh_config");
  json adapted = expected;
  adapted["PT_SIZE_i"] = 2;
  for (const auto& [key, value] : expected.items()) {
    EXPECT_EQ(lines[2]["config"][key], value) << "the stored result that fits is the second evaluation: " << key;
    EXPECT_EQ(lines[3]["config"][key], adapted[key]) << "the adapted one (work-groups halved) is the third: " << key;
  }

  // The resumed run takes the journal's starts, though the store no longer holds them.
  fs::remove_all(store);
  const auto resumed = run(6, " --resume --transfer-from " + dir_.string());
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_EQ(resumed.output.find("transfer:"), std::string::npos) << resumed.output;
  EXPECT_EQ(journal_lines("best.json.journal").size(), 7u);

  const auto without = run(2, " --force --no-transfer");
  ASSERT_EQ(without.status, 0) << without.output;
  EXPECT_FALSE(journal_lines("best.json.journal")[0]["metadata"].contains("transferred"));
  const auto both = run(2, " --force --no-transfer --transfer-from " + folder);
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.output.find("--transfer-from and --no-transfer exclude each other"), std::string::npos) << both.output;
  const auto missing = run(2, " --force --transfer-from " + folder);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.output.find("--transfer-from '" + folder + "': not a folder"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace mdh
