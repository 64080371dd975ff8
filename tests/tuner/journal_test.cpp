// Journal round trip, torn and corrupt lines, resume in-process and after kill -9 of a real tuning process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/error.h"
#include "tests/tuner/synthetic.h"
#include "tuner/search/technique_registry.h"
#include "tuner/tuner.h"

namespace mdh::tuner {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mdh_tuner_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::vector<nlohmann::json> configurations_of(const JournalContents& contents) {
  std::vector<nlohmann::json> result;
  for (const EvaluationRecord& r : contents.records) result.push_back(r.configuration);
  return result;
}

TEST(Journal, RoundTripsRecordsAndIgnoresATornLastLine) {
  const std::string path = temp_path("roundtrip.jsonl");
  {
    JournalWriter writer(path, JournalHeader{"random", 7, 2, "1364", {{"spec", "gemm"}}}, false);
    writer.append({1, {{"X", 1}}, EvaluationResult::ok(2.5), 100.0, 101.0, 1.0});
    writer.append(
        {2, {{"X", 2}}, EvaluationResult::failed(EvaluationStatus::timeout, "no answer"), 101.0, 111.0, 11.0});
  }
  {
    std::ofstream torn(path, std::ios::app);
    torn << R"({"evaluation":3,"config":{"X":)";
  }
  JournalContents contents = read_journal(path);
  EXPECT_EQ(contents.header.technique, "random");
  EXPECT_EQ(contents.header.seed, 7u);
  EXPECT_EQ(contents.header.window, 2u);
  EXPECT_EQ(contents.header.metadata["spec"], "gemm");
  ASSERT_EQ(contents.records.size(), 2u);
  EXPECT_TRUE(contents.torn_tail);
  EXPECT_EQ(contents.records[0].result.cost, 2.5);
  EXPECT_EQ(contents.records[1].result.status, EvaluationStatus::timeout);
  EXPECT_EQ(contents.records[1].result.reason, "no answer");
  EXPECT_EQ(contents.records[1].elapsed_seconds, 11.0);
  // Appending after the valid prefix drops the torn tail.
  {
    JournalWriter writer(path, false);
    EXPECT_EQ(writer.resume().valid_bytes, contents.valid_bytes);
    writer.append({3, {{"X", 3}}, EvaluationResult::ok(1.0), 111.0, 112.0, 12.0});
  }
  JournalContents again = read_journal(path);
  EXPECT_FALSE(again.torn_tail);
  ASSERT_EQ(again.records.size(), 3u);
  EXPECT_EQ(again.records[2].configuration["X"], 3);
  std::remove(path.c_str());
}

// Each evaluation's stages (where its time went) are journaled in order; a record without them reads as none.
TEST(Journal, RecordsTheStagesOfAnEvaluationInOrder) {
  const std::string path = temp_path("stages.jsonl");
  EvaluationResult staged = EvaluationResult::ok(2.5);
  staged.stage_seconds = {{"program", 0.04}, {"device", 0.0015}, {"kernel source", 0.001}};
  {
    JournalWriter writer(path, JournalHeader{"random", 7, 2, "1364", {}}, false);
    writer.append({1, {{"X", 1}}, staged, 100.0, 101.0, 1.0});
    writer.append({2, {{"X", 2}}, EvaluationResult::ok(3.0), 101.0, 102.0, 2.0});
  }
  const JournalContents contents = read_journal(path);
  ASSERT_EQ(contents.records.size(), 2u);
  EXPECT_EQ(contents.records[0].result.stage_seconds, staged.stage_seconds);
  EXPECT_TRUE(contents.records[1].result.stage_seconds.empty());
  std::ifstream in(path);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_NE(first.find(R"("stages":[["program",0.04],["device",0.0015],["kernel source",0.001]])"), std::string::npos)
      << first;
  std::remove(path.c_str());
}

// The compile ahead of an evaluation is journaled in microseconds where the run compiled ahead, and absent where not.
TEST(Journal, RecordsTheCompileAheadOfAnEvaluation) {
  const std::string path = temp_path("compile.jsonl");
  {
    JournalWriter writer(path, JournalHeader{"random", 7, 2, "1364", {}}, false);
    EvaluationRecord compiled{1, {{"X", 1}}, EvaluationResult::ok(2.5), 100.0, 101.0, 1.0};
    compiled.compile_seconds = 0.4123456;
    writer.append(compiled);
    writer.append({2, {{"X", 2}}, EvaluationResult::ok(3.0), 101.0, 102.0, 2.0});
  }
  const JournalContents contents = read_journal(path);
  ASSERT_EQ(contents.records.size(), 2u);
  EXPECT_EQ(contents.records[0].compile_seconds, 0.412346);
  EXPECT_EQ(contents.records[1].compile_seconds, std::nullopt);
  std::remove(path.c_str());
}

TEST(Journal, RejectsACorruptLineInTheMiddle) {
  const std::string path = temp_path("corrupt.jsonl");
  {
    JournalWriter writer(path, JournalHeader{"random", 1, 1, "10", {}}, false);
    writer.append({1, {{"X", 1}}, EvaluationResult::ok(2.5), 0, 0, 0});
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "garbage\n"
        << R"({"x":1})"
        << "\n";
  }
  try {
    read_journal(path);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("journal '" + path + "' line 3 is corrupt: ", 0), 0u) << e.what();
  }
  std::remove(path.c_str());
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Issue 15 item 5: an existing journal was opened with O_TRUNC and cut without a word.
TEST(Journal, AnExistingJournalIsReplacedOnlyWhenAskedTo) {
  const std::string path = temp_path("existing.jsonl");
  {
    JournalWriter writer(path, JournalHeader{"random", 1, 1, "10", {}}, false);
    writer.append({1, {{"X", 1}}, EvaluationResult::ok(2.5), 0, 0, 0});
  }
  const std::string before = file_text(path);
  try {
    JournalWriter writer(path, JournalHeader{"random", 2, 1, "10", {}}, false);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "journal '" + path + "' exists: resume it, or replace it explicitly (mdh tune --resume, --force)");
  }
  EXPECT_EQ(file_text(path), before);
  { JournalWriter writer(path, JournalHeader{"random", 2, 1, "10", {}}, false, /*replace=*/true); }
  EXPECT_EQ(read_journal(path).header.seed, 2u);
  EXPECT_TRUE(read_journal(path).records.empty());
  std::remove(path.c_str());
}

// Issue 15 item 5: two tuners on one journal both wrote it, interleaving their records and losing a header.
TEST(Journal, ASecondWriterOfALockedJournalFailsAndChangesNothing) {
  const std::string path = temp_path("locked.jsonl");
  JournalWriter first(path, JournalHeader{"random", 1, 1, "10", {}}, false);
  first.append({1, {{"X", 1}}, EvaluationResult::ok(2.5), 0, 0, 0});
  const std::string before = file_text(path);
  const std::string in_use = "journal '" + path + "' is in use by another tuning run (it is locked)";
  try {
    JournalWriter second(path, JournalHeader{"random", 2, 1, "10", {}}, false, /*replace=*/true);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), in_use);
  }
  try {
    JournalWriter second(path, false);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), in_use);
  }
  EXPECT_EQ(file_text(path), before);
  std::remove(path.c_str());
}

// Issue 15 item 11: an unknown status was reported without the journal's name or the line.
TEST(Journal, AnUnknownStatusIsReportedWithTheFileAndLine) {
  const std::string text = R"({"mdh_tuner_journal":1,"technique":"random","seed":1,"window":1,"space_size":"10"})"
                           "\n"
                           R"({"evaluation":1,"config":{"X":1},"status":"fine","cost":1,"reason":"","start":0,"end":0,)"
                           R"("elapsed":0})"
                           "\n"
                           R"({"evaluation":2,"config":{"X":2},"status":"ok","cost":1,"reason":"","start":0,"end":0,)"
                           R"("elapsed":0})"
                           "\n";
  try {
    parse_journal(text, "j.jsonl");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "journal 'j.jsonl' line 2 is corrupt: unknown evaluation status 'fine'");
  }
}

// A count beyond 2^64 as a float was converted with undefined behaviour; a negative one wrapped around.
TEST(Journal, CountsMustBeNonNegativeIntegers) {
  for (const char* seed : {"1e300", "-1", "1.5"}) {
    const std::string text = std::string(R"({"mdh_tuner_journal":1,"technique":"random","seed":)") + seed +
                             R"(,"window":1,"space_size":"10"})" + "\n";
    try {
      parse_journal(text, "j.jsonl");
      FAIL() << seed;
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), "journal 'j.jsonl' line 1 is corrupt: 'seed' is not a count") << seed;
    }
  }
}

const char* const kHeaderLine = R"({"mdh_tuner_journal":1,"technique":"random","seed":1,"window":1,"space_size":"10"})"
                                "\n";

std::string record_line(uint64_t evaluation, const std::string& cost, const std::string& extra = "") {
  return R"({"evaluation":)" + std::to_string(evaluation) + R"(,"config":{"X":)" + std::to_string(evaluation) +
         R"(},"status":"ok","cost":)" + cost + R"(,"reason":"","start":0,"end":0,"elapsed":0)" + extra + "}\n";
}

std::string journal_error(const std::string& text) {
  try {
    parse_journal(text, "j.jsonl");
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// A negative or non-finite cost was accepted on --resume and became the best of the run ("best: -1000.0000 ms").
TEST(Journal, ACostMustBeAFiniteTimeNotBelowZero) {
  const std::vector<std::pair<std::string, std::string>> bad_costs = {
      {"-1", "'cost' is negative"},
      {"1e400", "[json.exception.out_of_range.406] number overflow parsing '1e400'"},
      {"-1e400", "[json.exception.out_of_range.406] number overflow parsing '-1e400'"},
      {"null", "'cost' is not a number"},
      {R"("1.0")", "'cost' is not a number"}};
  for (const auto& [cost, problem] : bad_costs) {
    EXPECT_EQ(journal_error(kHeaderLine + record_line(1, cost) + record_line(2, "1")),
              "journal 'j.jsonl' line 2 is corrupt: " + problem)
        << cost;
    // The same record as the last line: an error too, never cut off as if it were torn.
    EXPECT_EQ(journal_error(kHeaderLine + record_line(1, "1") + record_line(2, cost)),
              "journal 'j.jsonl' line 3 is corrupt: " + problem)
        << cost;
  }
  const std::string negative_elapsed =
      R"({"evaluation":1,"config":{"X":1},"status":"ok","cost":1,"reason":"","start":0,"end":0,"elapsed":-5})"
      "\n";
  EXPECT_EQ(journal_error(kHeaderLine + negative_elapsed),
            "journal 'j.jsonl' line 2 is corrupt: 'elapsed' is negative");
  EXPECT_EQ(parse_journal(kHeaderLine + record_line(1, "0"), "j.jsonl").records.at(0).result.cost, 0.0);
}

// A complete last line with a bad field was cut off on --resume while the same line in the middle was an error.
TEST(Journal, OnlyAnUnterminatedLastLineCountsAsTorn) {
  const std::string no_config = R"({"evaluation":2,"status":"ok","cost":1,"reason":"","start":0,"end":0,"elapsed":0})"
                                "\n";
  EXPECT_EQ(
      journal_error(kHeaderLine + record_line(1, "1") + no_config).rfind("journal 'j.jsonl' line 3 is corrupt: ", 0),
      0u);
  EXPECT_EQ(
      journal_error(kHeaderLine + record_line(1, "1") + "garbage\n").rfind("journal 'j.jsonl' line 3 is corrupt: ", 0),
      0u);
  const std::string text = kHeaderLine + record_line(1, "1");
  const JournalContents torn = parse_journal(text + no_config.substr(0, no_config.size() - 1), "j.jsonl");
  EXPECT_TRUE(torn.torn_tail);
  EXPECT_EQ(torn.valid_bytes, text.size());
  EXPECT_EQ(torn.records.size(), 1u);
}

// A header's window of 10^15 made --resume ask ahead without end.
TEST(Journal, AWindowIsBounded) {
  for (const std::string& window :
       std::vector<std::string>{"0", "1000000000000000", std::to_string(kMaxJournalWindow + 1)}) {
    const std::string header =
        R"({"mdh_tuner_journal":1,"technique":"random","seed":1,"window":)" + window + R"(,"space_size":"10"})" + "\n";
    EXPECT_EQ(journal_error(header), "journal 'j.jsonl' line 1 is corrupt: 'window' " + window +
                                         " is not between 1 and " + std::to_string(kMaxJournalWindow));
    EXPECT_EQ(journal_error(kHeaderLine + record_line(1, "1", R"(,"window":)" + window)),
              "journal 'j.jsonl' line 2 is corrupt: 'window' " + window + " is not between 1 and " +
                  std::to_string(kMaxJournalWindow));
  }
  EXPECT_EQ(parse_journal(kHeaderLine + record_line(1, "1", R"(,"window":65536)"), "j.jsonl").records.at(0).window,
            65536u);
}

TuningResult run_bowl(const std::string& journal, uint64_t budget, bool resume, testing::BowlCostFunction& cost,
                      const std::string& technique_name = "auc_bandit") {
  SearchSpace space(testing::bowl_parameters());
  auto technique = make_technique(technique_name);
  TunerOptions options;
  options.seed = 3;
  options.journal_path = journal;
  options.resume = resume;
  options.sync_journal = false;
  return tune(space, *technique, evaluations(budget), cost, options);
}

TEST(Journal, ResumeContinuesTheSameSequenceWithoutReevaluating) {
  const std::string reference_path = temp_path("reference.jsonl");
  const std::string resumed_path = temp_path("resumed.jsonl");
  testing::BowlCostFunction reference_cost;
  TuningResult reference = run_bowl(reference_path, 90, false, reference_cost);
  testing::BowlCostFunction first_cost, second_cost;
  run_bowl(resumed_path, 40, false, first_cost);
  TuningResult resumed = run_bowl(resumed_path, 90, true, second_cost);
  EXPECT_EQ(first_cost.evaluated.size(), 40u);
  EXPECT_EQ(second_cost.evaluated.size(), 50u);
  EXPECT_EQ(resumed.replayed, 40u);
  EXPECT_EQ(resumed.status.evaluations, 90u);
  EXPECT_EQ(resumed.best_cost, reference.best_cost);
  EXPECT_EQ(configurations_of(read_journal(resumed_path)), configurations_of(read_journal(reference_path)));
  // A journal of another technique or seed is refused with the reason.
  testing::BowlCostFunction unused;
  try {
    run_bowl(resumed_path, 100, true, unused, "random");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot resume journal '" + resumed_path +
                                         "': it was recorded with technique auc_bandit, this run uses random");
  }
  // A journal of another space (other lattices, restrictions or ranges) is refused, saying that the space changed.
  std::vector<Parameter> narrower = testing::bowl_parameters();
  narrower[0] = Parameter::integer("X", Range::interval(1, 11));
  SearchSpace other(std::move(narrower));
  auto technique = make_technique("auc_bandit");
  TunerOptions options;
  options.seed = 3;
  options.journal_path = resumed_path;
  options.resume = true;
  options.sync_journal = false;
  try {
    tune(other, *technique, evaluations(100), unused, options);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot resume journal '" + resumed_path +
                                         "': it was recorded in a search space of 2704 candidates, this run's has " +
                                         other.size().str() +
                                         " (the space changed: other restrictions, other value lattices or full "
                                         "ranges, or a newer version of the space); start a new journal");
  }
  std::remove(reference_path.c_str());
  std::remove(resumed_path.c_str());
}

// A journal whose records the technique no longer proposes (recorded by another version of it, or edited) is
// refused at the first record that differs, naming both configurations and what to do.
TEST(Journal, ResumeRefusesARecordTheTechniqueNoLongerProposes) {
  const std::string path = temp_path("changed.jsonl");
  testing::BowlCostFunction cost;
  run_bowl(path, 6, false, cost);
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 7u);  // the header and 6 records
  nlohmann::json record = nlohmann::json::parse(lines[4]);
  const nlohmann::json recorded = record["config"];
  nlohmann::json edited = recorded;
  edited["FLAG"] = !recorded["FLAG"].get<bool>();
  record["config"] = edited;
  lines[4] = record.dump();
  {
    std::ofstream out(path, std::ios::trunc);
    for (const std::string& line : lines) out << line << '\n';
  }
  testing::BowlCostFunction unused;
  try {
    run_bowl(path, 10, true, unused);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot resume journal '" + path + "': evaluation 4 recorded " + edited.dump() +
                  " but the technique now proposes " + recorded.dump() +
                  " (a journal recorded by another version of the technique does not resume); start a new journal");
  }
  std::remove(path.c_str());
}

// More or fewer evaluators on resume (other devices or MPI ranks): the evaluation window changes. The replay asks
// ahead as the journal's run did, the records after it carry their window, and a later resume replays both parts.
TEST(Journal, ResumesWithAnotherWindowAndReplaysEachPartWithItsOwn) {
  auto stage = [](const std::string& path, uint64_t budget, size_t lookahead, bool resume,
                  testing::BowlCostFunction& cost) {
    SearchSpace space(testing::bowl_parameters());
    auto technique = make_technique("auc_bandit");
    TunerOptions options;
    options.seed = 3;
    options.journal_path = path;
    options.resume = resume;
    options.sync_journal = false;
    options.lookahead = lookahead;  // window = 1 + lookahead with a cost function
    return tune(space, *technique, evaluations(budget), cost, options);
  };
  std::vector<std::vector<nlohmann::json>> runs;
  for (const char* name : {"windows_a.jsonl", "windows_b.jsonl"}) {
    const std::string path = temp_path(name);
    testing::BowlCostFunction first, second, third;
    stage(path, 30, 2, false, first);
    const TuningResult middle = stage(path, 60, 0, true, second);
    const TuningResult last = stage(path, 90, 5, true, third);
    EXPECT_EQ(middle.replayed, 30u);
    EXPECT_EQ(last.replayed, 60u);
    EXPECT_EQ(first.evaluated.size() + second.evaluated.size() + third.evaluated.size(), 90u) << "nothing twice";
    const JournalContents journal = read_journal(path);
    EXPECT_EQ(journal.header.window, 3u);
    ASSERT_EQ(journal.records.size(), 90u);
    for (size_t k = 0; k < 90; ++k)
      EXPECT_EQ(journal.records[k].window, k < 30 ? std::nullopt : std::optional<uint64_t>(k < 60 ? 1 : 6)) << k;
    runs.push_back(configurations_of(journal));
    std::remove(path.c_str());
  }
  EXPECT_EQ(runs[0], runs[1]) << "the same stages give the same sequence";
}

size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

TEST(Journal, ResumesAfterKill9OfARealTuningProcess) {
  const std::string killed_path = temp_path("killed.jsonl");
  const std::string reference_path = temp_path("kill_reference.jsonl");
  std::remove(killed_path.c_str());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::execl(MDH_JOURNAL_CHILD, MDH_JOURNAL_CHILD, killed_path.c_str(), "300", "3", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Let it record a few dozen evaluations (5 ms each), then kill it without warning.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (count_lines(killed_path) < 30 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child finished before it was killed";
  const size_t recorded = read_journal(killed_path).records.size();
  ASSERT_GE(recorded, 29u);
  ASSERT_LT(recorded, 300u);

  // Resume in-process with the child's settings (its technique, seed and budget).
  testing::BowlCostFunction resumed_cost;
  SearchSpace space(testing::bowl_parameters());
  auto technique = make_technique("auc_bandit");
  TunerOptions options;
  options.seed = 3;
  options.journal_path = killed_path;
  options.resume = true;
  TuningResult resumed = tune(space, *technique, evaluations(300), resumed_cost, options);
  EXPECT_EQ(resumed.replayed, recorded);
  EXPECT_EQ(resumed_cost.evaluated.size(), 300u - recorded);

  testing::BowlCostFunction reference_cost;
  TuningResult reference = run_bowl(reference_path, 300, false, reference_cost);
  JournalContents killed = read_journal(killed_path);
  EXPECT_FALSE(killed.torn_tail);
  EXPECT_EQ(configurations_of(killed), configurations_of(read_journal(reference_path)));
  EXPECT_EQ(resumed.best_cost, reference.best_cost);
  std::remove(killed_path.c_str());
  std::remove(reference_path.c_str());
}

}  // namespace
}  // namespace mdh::tuner
