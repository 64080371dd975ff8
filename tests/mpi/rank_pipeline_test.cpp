// Each MPI rank compiles as many configurations at once as a one-process run with the same compile threads, so two
// ranks make about twice the evaluations per second of one process. Compiles and the device are sleeps
// (rank_pipeline_probe.cpp), so the numbers depend on timers, not on the cores of the machine running the test.
// Before the ranks got a one-process run's pipeline depth (tuner/evaluate/compile_pipeline.h), a slow compile at the
// front of the window stalled the MPI run: on the 2xH200 host each rank kept about 6 of its 16 compile workers busy,
// and two GPUs made 0.6-0.7x the evaluations per second of one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

constexpr unsigned kCompileThreads = 4;
constexpr int kEvaluations = 200;

// A probe's JSON line (empty JSON when it failed).
nlohmann::json run_probe(const std::string& launcher, const std::string& program, const std::string& arguments) {
  const std::string command = launcher + "'" + program + "' " + arguments + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  std::string output;
  std::array<char, 4096> buffer;
  while (pipe && std::fgets(buffer.data(), buffer.size(), pipe.get())) output += buffer.data();
  // The probe's line; Open MPI may print warnings around it.
  std::istringstream lines(output);
  nlohmann::json result;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind('{', 0) == 0) result = nlohmann::json::parse(line, nullptr, false);
  EXPECT_TRUE(result.is_object()) << command << "\n" << output;
  return result.is_object() ? result : nlohmann::json::object();
}

nlohmann::json probe(const std::string& launcher, const std::string& mode) {
  return run_probe(launcher, MDH_RANK_PIPELINE_PROBE,
                   mode + " --compile-threads " + std::to_string(kCompileThreads) + " --evaluations " +
                       std::to_string(kEvaluations));
}

std::string mpirun(int ranks) {
  return std::string("'" MDH_MPIRUN "' --oversubscribe --bind-to none -np ") + std::to_string(ranks) + " ";
}

class MpiRankPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    // Open MPI refuses to run as root without these (CI runs as root).
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
};

TEST_F(MpiRankPipeline, TwoRanksKeepTheirCompileThreadsBusyAndMakeTwiceTheEvaluationsPerSecondOfOneProcess) {
  const nlohmann::json alone = probe("", "--one-process");
  const nlohmann::json ranks = probe(mpirun(2), "");
  const double one = alone.value("evaluations_per_second", 0.0), two = ranks.value("evaluations_per_second", 0.0);
  ASSERT_GT(one, 0) << alone.dump();
  // The window of a one-process run per rank.
  EXPECT_EQ(ranks.value("window", 0u), 2 * alone.value("window", 0u));
  // Ideal 2; the margin is for timer noise on a loaded machine. The shallow pipeline (each rank its compile threads'
  // worth, nothing asked ahead: a window of 10 here) made 0.96.
  EXPECT_GE(two / one, 1.6) << "one process " << alone.dump() << "\ntwo ranks " << ranks.dump();
  // Each rank compiles about as many at once as the one process (the ideal is kCompileThreads; the shallow pipeline
  // kept 1.7-2.1 of 4 busy).
  const double alone_compiling = alone["compiles_in_flight"].value("0", 0.0);
  EXPECT_GE(alone_compiling, 0.7 * kCompileThreads) << alone.dump();
  for (const char* rank : {"0", "1"})
    EXPECT_GE(ranks["compiles_in_flight"].value(rank, 0.0), 0.8 * alone_compiling)
        << "rank " << rank << ": " << ranks.dump();
}

// A seed of the run (the default start, given and transferred starts) keeps the first build's compile deadline
// (tuner/evaluate/compile_deadline.h). Under mpirun only rank 0 reads the given and transferred starts; before its
// requests marked them, another rank compiled them with the deadline of the run's median compile. Here
// rank 0 searches from three seeds and rank 1 compiles everything: its compiles must find exactly those three to be
// seeds.
TEST_F(MpiRankPipeline, AnotherRankCompilesRank0sSeedsAsSeeds) {
  const nlohmann::json r = run_probe(mpirun(2), MDH_SEED_MARKS_PROBE, "--evaluations 20");
  ASSERT_TRUE(r.contains("seeds")) << r.dump();
  EXPECT_GE(r["compiled"].get<int>(), 20) << r.dump();  // the 20 evaluations and what was asked ahead of them
  ASSERT_EQ(r["seeds"].size(), 3u) << r.dump();
  // As sets: the rank's compile threads finish in any order (a loaded CI machine once listed them 2, 3, 1).
  auto sorted = [](nlohmann::json list) {
    std::sort(list.begin(), list.end());
    return list;
  };
  EXPECT_EQ(sorted(r["compiled_as_seed"]), sorted(r["seeds"])) << r.dump();
}

}  // namespace
