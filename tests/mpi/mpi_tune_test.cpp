// `mpirun … mdh tune` on the CPU (PoCL), several ranks on one host: one journal holding every evaluation once with
// where it was measured, a best configuration that verifies, a killed worker of one rank recorded as a failure while
// the run completes, and a killed rank that ends the job with a journal that resumes with another number of ranks,
// re-evaluating nothing.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "tests/integration/command_runner.h"
#include "tuner/journal/journal.h"

extern char** environ;

namespace mdh {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGemm = "apps/gemm.mdh --size I=8,J=8,K=8";

// --bind-to none: Open MPI binds a rank to one core when there are at most two ranks, and a rank's worker processes
// and compile threads would then share that core.
std::string mpirun(int ranks) {
  return std::string("'" MDH_MPIRUN "' --oversubscribe --bind-to none -np ") + std::to_string(ranks) + " ";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The processes whose parent is `parent`.
std::vector<pid_t> children(pid_t parent) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  while (dirent* entry = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    char state;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent) found.push_back(pid);
  }
  ::closedir(proc);
  return found;
}

std::string environment_value(pid_t pid, const std::string& name) {
  const std::string environment = read_file("/proc/" + std::to_string(pid) + "/environ");
  std::istringstream entries(environment);
  for (std::string entry; std::getline(entries, entry, '\0');)
    if (entry.rfind(name + "=", 0) == 0) return entry.substr(name.size() + 1);
  return "";
}

// A process's name (its main thread's), without the newline.
std::string process_name(pid_t pid) {
  std::string name = read_file("/proc/" + std::to_string(pid) + "/comm");
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

// Whether the process is stopped by a signal (state T in /proc/PID/stat).
bool is_stopped(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && stat.compare(close, 4, ") T ") == 0;
}

bool command_line_has(pid_t pid, const std::string& word) {
  return read_file("/proc/" + std::to_string(pid) + "/cmdline").find(word) != std::string::npos;
}

class MpiTuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Open MPI refuses to run as root without these (CI runs as root).
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    dir_ = fs::temp_directory_path() / ("mdh_mpi_tune_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (mpirun_pid_ > 0) {
      ::kill(mpirun_pid_, SIGKILL);
      ::waitpid(mpirun_pid_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string tune_arguments(int evals, const std::string& extra = "") const {
    return std::string("'" MDH_BINARY "' tune ") + kGemm + " --evals " + std::to_string(evals) +
           " --compile-threads 1 --out " + path("best.json") + " --journal " + path("journal") + extra;
  }

  // Starts `command` (from the source directory, output to the file `log`) without waiting; the shell execs it, so
  // the pid is the command's.
  void start(const std::string& command) {
    const std::string line = "cd '" MDH_SOURCE_DIR "' && exec " + command + " >'" + path("log") + "' 2>&1";
    const char* argv[] = {"/bin/sh", "-c", line.c_str(), nullptr};
    ASSERT_EQ(::posix_spawn(&mpirun_pid_, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  }
  int finish() {
    int status = 0;
    ::waitpid(mpirun_pid_, &status, 0);
    mpirun_pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  bool running() const { return ::waitpid(mpirun_pid_, nullptr, WNOHANG) == 0; }

  // The journal's complete records so far (none while it does not exist).
  std::vector<tuner::EvaluationRecord> records() const {
    if (!fs::exists(path("journal"))) return {};
    try {
      return tuner::read_journal(path("journal")).records;
    } catch (const std::exception&) {
      return {};  // the header line is being written
    }
  }
  // Waits (at most 5 minutes) until the journal holds `count` records; false if the job ended first.
  bool await_records(size_t count) const {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (records().size() < count) {
      if (!running() || std::chrono::steady_clock::now() > give_up) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }
  // The mdh process of MPI rank `rank` of the running job.
  pid_t rank_process(int rank) const {
    for (pid_t child : children(mpirun_pid_))
      if (environment_value(child, "OMPI_COMM_WORLD_RANK") == std::to_string(rank)) return child;
    return -1;
  }

  // Every record is the next evaluation of a configuration not evaluated before, measured by one of `ranks`.
  void expect_each_evaluation_once(const std::vector<tuner::EvaluationRecord>& records, int ranks) const {
    std::set<std::string> configurations;
    for (size_t k = 0; k < records.size(); ++k) {
      EXPECT_EQ(records[k].evaluation, k + 1);
      EXPECT_TRUE(configurations.insert(records[k].configuration.dump()).second)
          << "evaluation " << k + 1 << " repeats a configuration";
      const nlohmann::json& where = records[k].result.measured_on;
      ASSERT_TRUE(where.is_object()) << "evaluation " << k + 1 << " does not say where it was measured";
      EXPECT_LT(where["rank"].get<int>(), ranks);
      EXPECT_FALSE(where["host"].get<std::string>().empty());
      EXPECT_FALSE(where["device"].get<std::string>().empty());
    }
  }

  fs::path dir_;
  pid_t mpirun_pid_ = -1;
};

TEST_F(MpiTuneTest, ThreeRanksWriteOneJournalWithEveryEvaluationOnceAndTheBestVerifies) {
  const auto r = testing::run_command(mpirun(3) + tune_arguments(9));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("note: MPI: 3 ranks, 3 evaluating, 9 configurations at a time on the ranks, 12 more asked "
                          "ahead"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("stopped: abort condition evaluations(9) met; 9 evaluations"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("note: ranks 0, 1, 2 share device "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": their timings include each other's load (start one rank per device)"), std::string::npos)
      << r.output;
  const tuner::JournalContents journal = tuner::read_journal(path("journal"));
  EXPECT_FALSE(journal.torn_tail);
  // Per rank a one-process run's window with one compile thread, 1 + 6: one worker and two configurations compiling
  // ahead on the rank, four more waiting at rank 0.
  EXPECT_EQ(journal.header.window, 21u);
  ASSERT_EQ(journal.records.size(), 9u);
  expect_each_evaluation_once(journal.records, 3);
  std::set<int> measuring;
  for (const auto& record : journal.records) {
    measuring.insert(record.result.measured_on["rank"].get<int>());
    // Each rank compiles what it evaluates and says how long that took.
    EXPECT_TRUE(record.compile_seconds.has_value()) << "evaluation " << record.evaluation;
  }
  EXPECT_EQ(measuring, (std::set<int>{0, 1, 2})) << "every rank evaluates";
  const auto run = testing::run_command("'" MDH_BINARY "' run " + std::string(kGemm) + " --config " +
                                        path("best.json") + " --verify --repeat 1");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("PASS"), std::string::npos) << run.output;
}

TEST_F(MpiTuneTest, WithoutRank0EvaluatingTheOtherRanksMeasureEverything) {
  const auto r = testing::run_command(mpirun(2) + tune_arguments(3, " --no-rank0-evaluation"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto journal = tuner::read_journal(path("journal"));
  ASSERT_EQ(journal.records.size(), 3u);
  for (const auto& record : journal.records) EXPECT_EQ(record.result.measured_on["rank"], 1);
  // --bind-to none left both ranks on every core: each keeps to its half (pipeline/host_share.h), where the host has
  // a core for each and the test itself runs unbound.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (online >= 2 && CPU_COUNT(&allowed) == online) {
    const long first = (online + 1) / 2;  // the first share takes the core that does not divide
    auto cores = [](long from, long to) {
      return from == to ? std::to_string(from) : std::to_string(from) + "-" + std::to_string(to);
    };
    const std::string first_share = cores(0, first - 1), second_share = cores(first, online - 1);
    EXPECT_NE(r.output.find("note: rank on host 0 of 2 keeps to cores " + first_share), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("note: rank on host 1 of 2 keeps to cores " + second_share), std::string::npos) << r.output;
  }
}

// Open MPI's default binding (a core per rank with at most two ranks) leaves a rank's compile workers and worker
// processes one core: the rank says so, and how to start it instead.
// (One core each is the fair share of two ranks on two cores: CI's host skips this; HostShare tests the rule.)
TEST_F(MpiTuneTest, ARankThatMpirunBoundToOneCoreSaysSo) {
  if (::sysconf(_SC_NPROCESSORS_ONLN) < 3) GTEST_SKIP() << "needs a host with more cores than the two ranks";
  const auto r = testing::run_command("'" MDH_MPIRUN "' --bind-to core -np 2 " + tune_arguments(2));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("note: rank on host 0 of 2 may run on core "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("share that core; start mpirun with --bind-to none"), std::string::npos) << r.output;
}

// Ranks that would measure on another scale do not join: here rank 1 tunes other sizes (mpirun's MPMD form gives
// each rank its own command line; other devices or drivers are refused the same way).
TEST_F(MpiTuneTest, ARankWithOtherSizesIsRefusedAtTheStart) {
  std::string rank1 = tune_arguments(3);
  rank1.replace(rank1.find("I=8,J=8,K=8"), 11, "I=8,J=8,K=4");
  const auto r = testing::run_command(mpirun(1) + tune_arguments(3) + " : -np 1 " + rank1);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(" cannot join this tuning run: sizes \"I=8,J=8,K=4\" where rank 0 has \"I=8,J=8,K=8\" (the "
                          "ranks of one run must evaluate on identical devices, with the same spec, sizes and search "
                          "space, so that their costs are one scale)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(path("journal")));
}

// A rank whose set-up fails tells rank 0, which reports it once and ends the job; the rank itself prints nothing.
TEST_F(MpiTuneTest, ARankThatCannotStartIsReportedByRank0) {
  std::string rank1 = tune_arguments(3);
  rank1.replace(rank1.find("apps/gemm.mdh"), 13, "apps/no_such.mdh");
  const auto r = testing::run_command(mpirun(1) + tune_arguments(3) + " : -np 1 " + rank1);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("error: rank 1: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no_such.mdh"), std::string::npos) << r.output;
}

// A worker process of rank 1 killed while it evaluates: the evaluation is recorded as failed (with the signal), rank
// 1 starts a new worker, and the run goes on until rank 0 is interrupted (SIGINT), which ends it cleanly. The kill
// waits for the event: the worker is stopped (SIGSTOP) and killed only if it is named "mdh-evaluating", which it is
// from reading a request until just before it replies; otherwise it is let go on and looked at again.
TEST_F(MpiTuneTest, AKilledWorkerOfOneRankIsRecordedAndTheRunCompletes) {
  start(mpirun(3) + tune_arguments(1000, " --repeat 300 --cut-factor 0"));
  ASSERT_TRUE(await_records(2)) << read_file(path("log"));
  const pid_t rank0 = rank_process(0), rank1 = rank_process(1);
  ASSERT_GT(rank0, 0);
  ASSERT_GT(rank1, 0);
  auto killed_during_evaluation = [&] {
    for (const auto& record : records())
      if (record.result.measured_on.value("rank", -1) == 1 &&
          record.result.reason.find("killed by signal 9") != std::string::npos)
        return true;
    return false;
  };
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  bool killed = false;
  while (!killed && running() && std::chrono::steady_clock::now() < give_up) {
    for (pid_t child : children(rank1)) {
      // The evaluating worker, not a compile worker (`tune-worker --compile-only`, killed without a record).
      if (!command_line_has(child, "tune-worker") || command_line_has(child, "--compile-only")) continue;
      if (::kill(child, SIGSTOP) != 0) continue;
      // Its name is looked at once it has stopped (SIGSTOP is delivered when the process is next scheduled).
      bool stopped = false;
      for (int look = 0; look < 1000 && !(stopped = is_stopped(child)); ++look)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (stopped && process_name(child) == "mdh-evaluating") {
        killed = ::kill(child, SIGKILL) == 0;
        break;
      }
      ::kill(child, SIGCONT);
    }
    if (!killed) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(killed) << "no evaluation of rank 1 was seen in flight: " << read_file(path("log"));
  // The failure is journaled when the evaluations asked before it are (results are recorded in ask order).
  while (running() && std::chrono::steady_clock::now() < give_up && !killed_during_evaluation())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(running()) << read_file(path("log"));
  ASSERT_EQ(::kill(rank0, SIGINT), 0);
  ASSERT_EQ(finish(), 0) << read_file(path("log"));
  const std::string log = read_file(path("log"));
  EXPECT_NE(log.find("stopped: interrupted"), std::string::npos) << log;
  const auto journal = tuner::read_journal(path("journal"));
  EXPECT_NE(log.find("; " + std::to_string(journal.records.size()) + " evaluations ("), std::string::npos) << log;
  expect_each_evaluation_once(journal.records, 3);
  std::string reasons;
  for (const auto& record : journal.records)
    if (record.result.measured_on.value("rank", -1) == 1)
      reasons += "\n" + to_string(record.result.status) + ": " + record.result.reason;
  EXPECT_TRUE(killed_during_evaluation()) << "no evaluation of rank 1 failed with signal 9:" << reasons;
}

// Rank 2 killed mid-run ends the job (Open MPI 4.1 has no fault tolerance). Rank 0's journal holds every evaluation
// that finished; the run resumes from it with two ranks, replaying all of them and evaluating none again.
TEST_F(MpiTuneTest, AKilledRankEndsTheJobAndTheJournalResumesWithAnotherNumberOfRanks) {
  const int evals = 30;
  start(mpirun(3) + tune_arguments(evals));
  ASSERT_TRUE(await_records(3)) << read_file(path("log"));
  const pid_t rank0 = rank_process(0), rank2 = rank_process(2);
  ASSERT_GT(rank0, 0);
  ASSERT_GT(rank2, 0);
  // Rank 0 writes the journal: stopped, it can record nothing more while rank 2 dies, so the kill lands mid-run
  // however fast the evaluations are; let go on, it meets the end of the job.
  ASSERT_EQ(::kill(rank0, SIGSTOP), 0);
  for (int look = 0; look < 1000 && !is_stopped(rank0); ++look)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_LT(records().size(), static_cast<size_t>(evals)) << "the run ended before rank 0 was stopped";
  ASSERT_EQ(::kill(rank2, SIGKILL), 0);
  ASSERT_EQ(::kill(rank0, SIGCONT), 0);
  EXPECT_NE(finish(), 0) << "the job goes on without rank 2: " << read_file(path("log"));
  const auto before = tuner::read_journal(path("journal"));  // valid: a torn last line at most
  ASSERT_GE(before.records.size(), 3u);
  ASSERT_LT(before.records.size(), static_cast<size_t>(evals)) << "the kill came too late to test anything";

  const auto r = testing::run_command(mpirun(2) + tune_arguments(evals, " --resume"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(std::to_string(before.records.size()) + " replayed"), std::string::npos) << r.output;
  const auto after = tuner::read_journal(path("journal"));
  ASSERT_EQ(after.records.size(), static_cast<size_t>(evals));
  expect_each_evaluation_once(after.records, 3);
  for (size_t k = 0; k < before.records.size(); ++k)
    EXPECT_EQ(after.records[k].configuration, before.records[k].configuration);
  for (size_t k = before.records.size(); k < after.records.size(); ++k) {
    EXPECT_LT(after.records[k].result.measured_on["rank"].get<int>(), 2) << "measured after the resume";
    EXPECT_EQ(after.records[k].window, 14u) << "two ranks ask ahead fourteen, the journal's run twenty-one";
  }
  // And once more without mpirun: the journal's windows replay as recorded.
  const auto again = testing::run_command(tune_arguments(evals + 2, " --resume"));
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find(std::to_string(evals) + " replayed"), std::string::npos) << again.output;
}

}  // namespace
}  // namespace mdh
