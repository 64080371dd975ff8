// How many evaluations per second one searching rank (the coordinator: tuning loop, technique, journal, MPI) can hand
// out and take back, measured with simulated evaluators: an evaluation is a sleep of --evaluation-seconds (its cost a
// hash of the configuration), so a thousand evaluators cost two idle processes, not a thousand busy ranks.
//
//   mpirun -np 1+S mpi_coordinator_bench --evaluators E [--evaluation-seconds D] [--seconds T] [--journal F]
//       rank 0 searches GEMM 1024^3's mdh tuning space (H200-like limits) with auc_bandit for T seconds; ranks 1..S
//       each simulate E/S evaluators behind the real MPI protocol (tuner/evaluate/mpi_evaluators.h).
//   mpi_coordinator_bench --in-process --evaluators E ...
//       the same search with the E simulated evaluators in rank 0's process: the loop's cost without MPI.
// Prints one line: evaluators, seconds per evaluation, evaluations, seconds, evaluations/s, the ideal E/D, and the
// coordinator's CPU time per evaluation (user + system of rank 0).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "mdh/parser.h"
#include "pipeline/tuning_search_space.h"
#include "support/error.h"
#include "tuner/evaluate/mpi_evaluators.h"
#include "tuner/search/technique_registry.h"
#include "tuner/tuner.h"

namespace {

using namespace mdh;

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
}

// `capacity` evaluators that each take `seconds` per evaluation: a timer queue, no threads.
class SimulatedEvaluators final : public tuner::Evaluator {
 public:
  SimulatedEvaluators(size_t capacity, double seconds) : capacity_(capacity), seconds_(seconds) {}
  size_t capacity() const override { return capacity_; }
  void submit(uint64_t ticket, const tuner::Configuration& configuration, const tuner::EvaluationContext&) override {
    // The cost: a hash of the configuration's values, in [1, 2) ms, so the search has something to follow.
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : configuration.values()) h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    due_.push({monotonic_seconds() + seconds_, ticket, 1e-3 * (1 + (h % 1000003) / 1000003.0)});
  }
  std::pair<uint64_t, tuner::EvaluationResult> wait() override {
    for (;;)
      if (auto result = wait_for(3600)) return *result;
  }
  std::optional<std::pair<uint64_t, tuner::EvaluationResult>> wait_for(double seconds) override {
    MDH_INTERNAL_ASSERT(!due_.empty(), "wait with nothing submitted");
    const double now = monotonic_seconds();
    if (due_.top().when > now) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(seconds, due_.top().when - now)));
      if (due_.top().when > monotonic_seconds()) return std::nullopt;
    }
    const Due next = due_.top();
    due_.pop();
    return std::make_pair(next.ticket, tuner::EvaluationResult::ok(next.cost));
  }
  void abandon() override { due_ = {}; }

 private:
  struct Due {
    double when;
    uint64_t ticket;
    double cost;
    bool operator<(const Due& other) const { return when > other.when; }  // earliest on top
  };
  size_t capacity_;
  double seconds_;
  std::priority_queue<Due> due_;
};

// Counts the technique's proposals: those beyond the evaluations are repeats, answered from the tuning loop's cache
// while they hold a place in its window.
class CountingTechnique final : public tuner::SearchTechnique {
 public:
  explicit CountingTechnique(std::unique_ptr<tuner::SearchTechnique> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  void initialize(const tuner::SearchSpace& space, uint64_t seed) override { inner_->initialize(space, seed); }
  tuner::Point next() override {
    ++proposals;
    return inner_->next();
  }
  void report(tuner::Cost cost) override { inner_->report(cost); }
  void finalize() override { inner_->finalize(); }
  uint64_t proposals = 0;

 private:
  std::unique_ptr<tuner::SearchTechnique> inner_;
};

// The search space reads the bound spec and the tuning space while it checks constraints: they live as long as it.
struct GemmSpace {
  BoundMdh bound =
      bind(parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/gemm.mdh"), parse_size_binding("I=1024,J=1024,K=1024"));
  TuningSpace tuning = make_tuning_space(bound, gpu_limits());
  tuner::SearchSpace search = make_search_space(tuning);

  static DeviceLimits gpu_limits() {
    DeviceLimits limits;  // a GPU's work-group and local memory limits, as tests/perf/space_generation.cpp uses
    limits.max_work_group_size = 1024;
    limits.max_work_item_sizes = {1024, 1024, 64};
    limits.local_mem_bytes = 49152;
    return limits;
  }
};

}  // namespace

int main(int argc, char** argv) {
  size_t evaluators = 1;
  double evaluation_seconds = 0.5, run_seconds = 10;
  std::string journal;
  bool in_process = false;
  for (int k = 1; k < argc; ++k) {
    const std::string option = argv[k];
    auto value = [&] { return k + 1 < argc ? std::string(argv[++k]) : std::string(); };
    if (option == "--evaluators")
      evaluators = std::stoul(value());
    else if (option == "--evaluation-seconds")
      evaluation_seconds = std::stod(value());
    else if (option == "--seconds")
      run_seconds = std::stod(value());
    else if (option == "--journal")
      journal = value();
    else if (option == "--in-process")
      in_process = true;
    else {
      std::fprintf(stderr, "unknown option %s\n", option.c_str());
      return 2;
    }
  }
  try {
    const GemmSpace gemm;
    const tuner::SearchSpace& space = gemm.search;
    auto technique = std::make_unique<CountingTechnique>(tuner::make_technique("auc_bandit"));
    tuner::TunerOptions options;
    options.seed = 1;
    options.journal_path = journal;
    const tuner::Abort abort = tuner::duration(run_seconds);
    std::unique_ptr<tuner::MpiSession> session;
    if (!in_process) session = std::make_unique<tuner::MpiSession>();
    const int rank = session ? session->rank() : 0;
    const int simulators = session ? session->size() - 1 : 0;
    if (!in_process && simulators < 1) throw UserError("start it with mpirun -np 2 or more, or use --in-process");
    const tuner::EvaluatorDescription description{{{"host", session ? session->host() : "local"}},
                                                  {{"space_size", space.size().str()}}};
    if (rank != 0) {
      const size_t share = evaluators / simulators + (static_cast<size_t>(rank) <= evaluators % simulators);
      SimulatedEvaluators local(share, evaluation_seconds);
      tuner::serve_mpi_evaluations(*session, local, description,
                                   [&](const nlohmann::json& config) { return space.configuration_from_json(config); });
      return 0;
    }
    SimulatedEvaluators simulated(evaluators, evaluation_seconds);
    std::unique_ptr<tuner::MpiEvaluators> spread;
    if (session) spread = std::make_unique<tuner::MpiEvaluators>(*session, nullptr, description);
    tuner::Evaluator& evaluator = spread ? static_cast<tuner::Evaluator&>(*spread) : simulated;
    // The steady state: the second half of the run (the first evaluations return only after D seconds), its
    // evaluations per second and the coordinator's CPU time (user + system) per evaluation and per second.
    double half_cpu = 0, half_wall = 0;
    uint64_t half_evaluations = 0, half_proposals = 0;
    options.on_evaluation = [&](const tuner::TuningStatus& status, const tuner::EvaluationRecord&, bool) {
      if (half_wall == 0 && status.elapsed_seconds >= run_seconds / 2) {
        half_wall = monotonic_seconds();
        half_cpu = cpu_seconds();
        half_evaluations = status.evaluations;
        half_proposals = technique->proposals;
      }
    };
    const tuner::TuningResult result = tuner::tune(space, *technique, abort, evaluator, options);
    const double wall = monotonic_seconds() - half_wall, cpu = cpu_seconds() - half_cpu;
    const uint64_t evaluated = result.status.evaluations - half_evaluations;
    const double rate = evaluated / wall;
    std::printf(
        "%-10s evaluators %5zu  evaluation %.2f s  evaluations/s %7.1f  ideal %7.1f  efficiency %.2f  "
        "coordinator CPU %.3f ms/evaluation, %3.0f%%  journal %-9s  repeats %4.1f%%  (second half: %llu "
        "evaluations in %.2f s)\n",
        in_process ? "in-process" : "mpi", evaluators, evaluation_seconds, rate, evaluators / evaluation_seconds,
        rate / (evaluators / evaluation_seconds), 1e3 * cpu / std::max<uint64_t>(1, evaluated), 100 * cpu / wall,
        journal.empty() ? "none" : "fdatasync",
        100.0 * (1 - static_cast<double>(evaluated) / std::max<uint64_t>(1, technique->proposals - half_proposals)),
        static_cast<unsigned long long>(evaluated), wall);
    return 0;
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
