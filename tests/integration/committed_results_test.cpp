// Every configuration committed under tuned/, results/ and examples/configs/ still loads and generates at its own
// size, whichever version of the config form it was written in, and every committed journal's records still parse.
// (Verifying the large ones on their devices belongs to the GPU machine: scripts/ there; here the kernels are
// generated, not run.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/config_json.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "pipeline/pipeline.h"
#include "pipeline/tuning_result.h"
#include "support/error.h"
#include "tests/stored_device_limits.h"
#include "tuner/journal/journal.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Results name the spec by the absolute path of the checkout they were made in; the spec is the one under apps/.
std::string spec_in_this_checkout(const std::string& recorded) {
  const auto at = recorded.rfind("apps/");
  return std::string(MDH_SOURCE_DIR) + "/" + (at == std::string::npos ? recorded : recorded.substr(at));
}

std::string size_text(const json& sizes) {
  if (sizes.is_string()) return sizes.get<std::string>();
  std::string text;
  for (const auto& [name, value] : sizes.items()) text += (text.empty() ? "" : ",") + name + "=" + value.dump();
  return text;
}

// Committed files whose names end in `suffix`: the store of tuned configurations, the tables' measurement records
// and the example configurations.
std::vector<fs::path> committed(const std::string& suffix) {
  std::vector<fs::path> files;
  for (const char* folder : {"tuned", "results", "examples/configs"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(MDH_SOURCE_DIR) / folder)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file() && name.size() > suffix.size() && name.ends_with(suffix))
        files.push_back(entry.path());
    }
  std::sort(files.begin(), files.end());
  return files;
}

// A compressed journal of the store, uncompressed into `folder` for tuner::read_journal.
fs::path uncompressed(const fs::path& journal, const fs::path& folder) {
  const fs::path plain = folder / journal.stem();
  const std::string command = "gzip -dc '" + journal.string() + "' > '" + plain.string() + "'";
  if (std::system(command.c_str()) != 0) ADD_FAILURE() << "cannot uncompress " << journal.string();
  return plain;
}

TEST(CommittedResults, EveryConfigLoadsAndGeneratesAtItsSize) {
  int configs = 0;
  for (const fs::path& file : committed(".json")) {
    json j;
    std::ifstream(file) >> j;
    // Tuning results and hand-made configurations carry "config"; benchmark records of mdh carry the config they
    // ran in notes.config_values; other JSON files (peer records, tables) hold none.
    json config;
    if (j.is_object() && TuningResultFile::is_result(j))
      config = j["config"];
    else if (j.is_object() && j.contains("notes") && j["notes"].contains("config_values"))
      config = j["notes"]["config_values"];
    else if (j.is_object() && (j.contains("NUM_WG") || j.contains("mdh_config")))
      ADD_FAILURE() << file.string() << ": a bare configuration; commit it with the spec and sizes it is for";
    else
      continue;
    SCOPED_TRACE(file.string());
    ASSERT_TRUE(j.contains("spec") && j.contains("sizes")) << "a committed configuration must say what it is for";
    BoundMdh bound = load_and_bind(spec_in_this_checkout(j["spec"].get<std::string>()), size_text(j["sizes"]));
    // Results and records name the precision they ran in (fp32 where they do not).
    if (j.contains("precision") && j["precision"].is_string())
      bound.precision = parse_precision(j["precision"].get<std::string>());
    try {
      const KernelConfig c = config_from_json(bound, config);
      const LaunchPlan plan = generate_tunable_kernel(bound, c, testing::stored_device_limits(file.string()));
      EXPECT_FALSE(plan.source.empty());
      // Written again in today's form, it reads back as the same configuration.
      EXPECT_EQ(config_from_json(bound, config_to_json(bound, c)), c);
    } catch (const UserError& e) {
      ADD_FAILURE() << e.what();
    }
    ++configs;
  }
  EXPECT_GT(configs, 150);
}

// Found by tests/fuzz/config_fuzz: a count written as a float beyond 2^64 was converted with undefined behaviour, and
// a rate that is not a number escaped as a JSON library exception.
TEST(TuningResultFile, CountsAndRatesMustBeNumbersOfTheirKind) {
  auto error_of = [](const char* text) {
    try {
      TuningResultFile::from_json(nlohmann::json::parse(text));
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"({"config": {}, "evaluations": 185e20})"), "tuning result: 'evaluations' must be a count");
  EXPECT_EQ(error_of(R"({"config": {}, "seed": -1})"), "tuning result: 'seed' must be a count");
  EXPECT_EQ(error_of(R"({"config": {}, "gflops": "fast"})"), "tuning result: 'gflops' must be a number");
  EXPECT_EQ(error_of(R"({"config": {}, "evaluations": 3, "gflops": 2.5})"), "no error");
}

TEST(CommittedResults, EveryJournalRecordParses) {
  int journals = 0, records = 0;
  const fs::path scratch = fs::temp_directory_path() / ("mdh-committed-journals-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  std::vector<fs::path> files = committed(".journal");
  for (const fs::path& packed : committed(".journal.gz")) files.push_back(packed);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const fs::path readable = file.extension() == ".gz" ? uncompressed(file, scratch) : file;
    const tuner::JournalContents contents = tuner::read_journal(readable.string());
    const json& metadata = contents.header.metadata;
    ASSERT_TRUE(metadata.contains("spec") && metadata.contains("sizes"));
    const BoundMdh bound =
        load_and_bind(spec_in_this_checkout(metadata["spec"].get<std::string>()), size_text(metadata["sizes"]));
    TuningSpace space = make_tuning_space(bound, testing::stored_device_limits(file.string()));
    space.full_ranges = true;  // validity: the lattice-only warp constraint came later than many of these runs
    for (const tuner::EvaluationRecord& record : contents.records) {
      try {
        const KernelConfig c = config_from_json(bound, record.configuration);
        // A configuration that ran successfully was valid for its device and still is.
        if (record.result.status == tuner::EvaluationStatus::ok) {
          EXPECT_EQ(first_violation(space, assignment_from_config(space, c)), std::nullopt)
              << record.configuration.dump();
        }
      } catch (const UserError& e) {
        ADD_FAILURE() << "evaluation " << record.evaluation << ": " << e.what();
      }
      ++records;
    }
    ++journals;
  }
  fs::remove_all(scratch);
  EXPECT_GT(journals, 50);
  EXPECT_GT(records, 1000);
}

}  // namespace
}  // namespace mdh
