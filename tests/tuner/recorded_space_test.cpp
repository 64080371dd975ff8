// Recorded spaces: the journal of an exhaustive `mdh tune` run loads as one (header skipped, lists and names as
// enumerations, failures as failed), and the replay answers exactly the recorded costs.
#include "tuner/space/recorded_space.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "support/error.h"
#include "tuner/space/search_space.h"

namespace mdh::tuner {
namespace {

TEST(RecordedSpace, AJournalOfAnExhaustiveRunIsARecording) {
  const std::string path = ::testing::TempDir() + "/recorded_journal.jsonl";
  {
    std::ofstream out(path);
    out << R"({"mdh_tuner_journal":1,"metadata":{},"seed":1,"space_size":"3","technique":"exhaustive","window":1})"
        << "\n"
        << R"({"config":{"T":8,"ORDER":[0,1],"MEM":"local"},"cost":0.5,"evaluation":1,"status":"ok"})"
        << "\n"
        << R"({"config":{"T":8,"ORDER":[1,0],"MEM":"none"},"cost":0.25,"evaluation":2,"status":"ok","cut":true})"
        << "\n"
        << R"({"config":{"T":16,"ORDER":[0,1],"MEM":"none"},"evaluation":3,"reason":"x","status":"build_error"})"
        << "\n";
  }
  const RecordedSpace recorded = load_recorded_space(path);
  ASSERT_EQ(recorded.parameters.size(), 3u);
  EXPECT_EQ(recorded.best, 0.25);
  SearchSpace space(recorded.parameters);
  EXPECT_EQ(space.size().str(), "3");
  RecordedCostFunction cost(recorded);
  const EvaluationResult fast =
      cost.evaluate(space.configuration_from_json({{"T", 8}, {"ORDER", "[1,0]"}, {"MEM", "none"}}));
  EXPECT_EQ(fast.status, EvaluationStatus::ok);
  EXPECT_EQ(fast.cost, 0.25);
  const EvaluationResult failed =
      cost.evaluate(space.configuration_from_json({{"T", 16}, {"ORDER", "[0,1]"}, {"MEM", "none"}}));
  EXPECT_NE(failed.status, EvaluationStatus::ok);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mdh::tuner
