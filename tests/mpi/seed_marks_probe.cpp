// A tuning run over two ranks whose compiles only look up whether a configuration is a seed of the run, for
// seed_marks_test: rank 0 searches from three seeds (as mdh tune does from its default, given and transferred
// starts) and evaluates nothing itself; rank 1 compiles and evaluates everything, learning the seeds only from
// rank 0's requests (MpiEvaluators::mark_seeds, serve_mpi_evaluations' on_seed). Rank 1 prints one JSON line:
// {"compiled": n (the evaluations and those asked ahead of them), "compiled_as_seed": [configurations its compiles
// found to be seeds], "seeds": [rank 0's seeds]}.
//
//   mpirun -np 2 seed_marks_probe --evaluations E
#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/error.h"
#include "tests/mpi/probe_space.h"
#include "tuner/evaluate/compile_deadline.h"
#include "tuner/evaluate/compile_pipeline.h"
#include "tuner/evaluate/mpi_evaluators.h"
#include "tuner/search/seeded_technique.h"
#include "tuner/search/technique_registry.h"
#include "tuner/space/random.h"
#include "tuner/tuner.h"

namespace {

using namespace mdh;

// One device that answers at once.
class InstantDevice final : public tuner::Evaluator {
 public:
  size_t capacity() const override { return 1; }
  void submit(uint64_t ticket, const tuner::Configuration&, const tuner::EvaluationContext&) override {
    ticket_ = ticket;
  }
  std::pair<uint64_t, tuner::EvaluationResult> wait() override { return {ticket_, tuner::EvaluationResult::ok(1e-3)}; }
  void abandon() override {}

 private:
  uint64_t ticket_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  uint64_t evaluations = 20;
  for (int k = 1; k < argc; ++k) {
    const std::string option = argv[k];
    if (option == "--evaluations" && k + 1 < argc) {
      evaluations = std::stoull(argv[++k]);
    } else {
      std::fprintf(stderr, "unknown option %s\n", option.c_str());
      return 2;
    }
  }
  try {
    const tuner::SearchSpace space = testing::probe_space();
    std::vector<tuner::Point> seeds;
    tuner::Rng rng(7);
    for (int k = 0; k < 3; ++k) seeds.push_back(space.sample(rng));
    nlohmann::json seeds_json = nlohmann::json::array();
    for (const tuner::Point& point : seeds) seeds_json.push_back(space.configuration(point).to_json());

    tuner::MpiSession session;
    MDH_INTERNAL_ASSERT(session.size() == 2, "run with mpirun -np 2");
    const tuner::EvaluatorDescription description{{{"host", session.host()}}, nlohmann::json::object(), 0};
    if (session.rank() == 0) {
      tuner::SeedConfigurations known;
      for (const tuner::Point& point : seeds) known.add(space.configuration(point));
      tuner::MpiEvaluators evaluators(session, nullptr, description);
      evaluators.mark_seeds([&](const tuner::Configuration& c) { return known.contains(c); });
      tuner::SeededTechnique technique(tuner::make_technique("random"), seeds);
      tuner::TunerOptions options;
      options.seed = 1;
      const tuner::TuningResult result =
          tuner::tune(space, technique, tuner::evaluations(evaluations), evaluators, options);
      MDH_INTERNAL_ASSERT(result.status.evaluations == evaluations, "the run ended early");
      return 0;
    }
    // Rank 1: the seeds it knows are those rank 0's requests marked; its compile threads look them up.
    tuner::SeedConfigurations learned;
    std::mutex mutex;
    uint64_t compiled = 0;
    nlohmann::json compiled_as_seed = nlohmann::json::array();
    InstantDevice device;
    tuner::RankPipeline pipeline(
        device,
        [&](const tuner::Configuration& configuration, const std::atomic<bool>&) {
          const bool seed = learned.contains(configuration);
          std::lock_guard<std::mutex> lock(mutex);
          ++compiled;
          if (seed) compiled_as_seed.push_back(configuration.to_json());
          return std::optional<tuner::EvaluationResult>();
        },
        2);
    tuner::serve_mpi_evaluations(
        session, pipeline.evaluator(), description,
        [&](const nlohmann::json& config) { return space.configuration_from_json(config); },
        [&](const tuner::Configuration& seed) { learned.add(seed); });
    std::printf("%s\n",
                nlohmann::json{{"compiled", compiled}, {"compiled_as_seed", compiled_as_seed}, {"seeds", seeds_json}}
                    .dump()
                    .c_str());
    return 0;
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
