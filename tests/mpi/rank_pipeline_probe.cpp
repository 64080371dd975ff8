// A tuning run whose compiles and device are sleeps, for rank_pipeline_test: the evaluations per second and the
// compiles each rank kept in flight, one process against MPI ranks, with the pipeline depths mdh tune uses
// (tuner/evaluate/compile_pipeline.h). A compile sleeps kCompileSeconds, one in kSlowEvery (by a hash of the
// configuration) kSlowCompileSeconds: mdh tune's compiles are as skewed (H200, GEMM 1024^3: median 0.7 s, 90%
// within 3.5 s), and a slow one at the front of the window is what a shallow pipeline stalls on. The random search
// draws the same configurations in the same order however many evaluate at once, so runs of E evaluations compile the
// same ones.
//
//   rank_pipeline_probe --one-process --compile-threads T --evaluations E
//   mpirun -np N rank_pipeline_probe --compile-threads T --evaluations E    (every rank evaluates, rank 0 searches)
//
// Prints one JSON line: {"evaluations_per_second": r, "window": w, "compiles_in_flight": {"rank": mean, ...}},
// between the E/5-th evaluation's report and the last's (the first compiles fill the pipeline).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/error.h"
#include "tests/mpi/probe_space.h"
#include "tuner/evaluate/compile_pipeline.h"
#include "tuner/evaluate/mpi_evaluators.h"
#include "tuner/search/technique_registry.h"
#include "tuner/tuner.h"

namespace {

using namespace mdh;

constexpr double kCompileSeconds = 0.04, kSlowCompileSeconds = 0.4, kDeviceSeconds = 0.002;
constexpr uint64_t kSlowEvery = 8;

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// SplitMix64's mix of each value: every bit of the result depends on every value, so one in kSlowEvery is slow in
// any stretch of the stream, not only on average.
uint64_t hash_of(const tuner::Configuration& configuration) {
  uint64_t h = 0;
  for (int64_t v : configuration.values()) {
    h += static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
  }
  return h;
}

// One device: an evaluation at a time, kDeviceSeconds each.
class SleepingDevice final : public tuner::Evaluator {
 public:
  size_t capacity() const override { return 1; }
  void submit(uint64_t ticket, const tuner::Configuration& configuration, const tuner::EvaluationContext&) override {
    MDH_INTERNAL_ASSERT(!busy_, "the device evaluates one configuration at a time");
    busy_ = true;
    ticket_ = ticket;
    due_ = monotonic_seconds() + kDeviceSeconds;
    cost_ = 1e-3 * (1 + static_cast<double>(hash_of(configuration) % 1000003) / 1000003.0);
  }
  std::pair<uint64_t, tuner::EvaluationResult> wait() override {
    for (;;)
      if (auto result = wait_for(3600)) return *result;
  }
  std::optional<std::pair<uint64_t, tuner::EvaluationResult>> wait_for(double seconds) override {
    MDH_INTERNAL_ASSERT(busy_, "wait with nothing submitted");
    const double left = due_ - monotonic_seconds();
    if (left > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(seconds, left)));
      if (due_ > monotonic_seconds()) return std::nullopt;
    }
    busy_ = false;
    return std::make_pair(ticket_, tuner::EvaluationResult::ok(cost_));
  }
  void abandon() override { busy_ = false; }

 private:
  bool busy_ = false;
  uint64_t ticket_ = 0;
  double due_ = 0, cost_ = 0;
};

std::optional<tuner::EvaluationResult> sleeping_compile(const tuner::Configuration& configuration,
                                                        const std::atomic<bool>& stop) {
  const double seconds = hash_of(configuration) % kSlowEvery == 0 ? kSlowCompileSeconds : kCompileSeconds;
  const double until = monotonic_seconds() + seconds;
  // In slices, so that the end of the run does not wait for a slow compile.
  for (double left; !stop && (left = until - monotonic_seconds()) > 0;)
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.01)));
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned compile_threads = 4;
  uint64_t evaluations = 200;
  bool one_process = false;
  for (int k = 1; k < argc; ++k) {
    const std::string option = argv[k];
    auto value = [&] { return k + 1 < argc ? std::string(argv[++k]) : std::string(); };
    if (option == "--compile-threads")
      compile_threads = static_cast<unsigned>(std::stoul(value()));
    else if (option == "--evaluations")
      evaluations = std::stoull(value());
    else if (option == "--one-process")
      one_process = true;
    else {
      std::fprintf(stderr, "unknown option %s\n", option.c_str());
      return 2;
    }
  }
  try {
    const tuner::SearchSpace space = testing::probe_space();
    auto technique = tuner::make_technique("random");
    tuner::TunerOptions options;
    options.seed = 1;
    // From the report of evaluation `first` on: the time and each rank's compile seconds.
    const uint64_t first = evaluations / 5;
    double first_seconds = 0, last_seconds = 0;
    std::map<int, double> compile_seconds;
    options.on_evaluation = [&](const tuner::TuningStatus&, const tuner::EvaluationRecord& record, bool) {
      if (record.evaluation == first) first_seconds = record.elapsed_seconds;
      last_seconds = record.elapsed_seconds;
      if (record.evaluation <= first) return;
      const int rank = record.result.measured_on.is_object() ? record.result.measured_on["rank"].get<int>() : 0;
      compile_seconds[rank] += record.compile_seconds.value_or(0);
    };
    const tuner::Abort abort = tuner::evaluations(evaluations);
    SleepingDevice device;
    tuner::TuningResult result;
    size_t window = 0;
    if (one_process) {
      // As mdh tune without mpirun: the loop compiles what it asks ahead.
      options.lookahead = tuner::compile_lookahead(compile_threads);
      options.prepare = sleeping_compile;
      options.prepare_threads = compile_threads;
      window = device.capacity() + options.lookahead;
      result = tuner::tune(space, *technique, abort, device, options);
    } else {
      tuner::MpiSession session;
      tuner::RankPipeline pipeline(device, sleeping_compile, compile_threads);
      // Every rank runs this program: nothing to check for compatibility.
      const tuner::EvaluatorDescription description{
          {{"host", session.host()}}, nlohmann::json::object(), pipeline.lookahead()};
      if (session.rank() != 0) {
        tuner::serve_mpi_evaluations(session, pipeline.evaluator(), description, [&](const nlohmann::json& config) {
          return space.configuration_from_json(config);
        });
        return 0;
      }
      tuner::MpiEvaluators evaluators(session, &pipeline.evaluator(), description);
      options.lookahead = evaluators.lookahead();
      window = evaluators.capacity() + options.lookahead;
      result = tuner::tune(space, *technique, abort, evaluators, options);
    }
    MDH_INTERNAL_ASSERT(result.status.evaluations == evaluations && first > 0, "the run ended early");
    const double span = last_seconds - first_seconds;
    nlohmann::json in_flight = nlohmann::json::object();
    for (const auto& [rank, total] : compile_seconds) in_flight[std::to_string(rank)] = total / span;
    std::printf("%s\n", nlohmann::json{{"evaluations_per_second", static_cast<double>(evaluations - first) / span},
                                       {"window", window},
                                       {"compiles_in_flight", in_flight}}
                            .dump()
                            .c_str());
    return 0;
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
