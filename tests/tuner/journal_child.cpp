// Runs a journaled tuning loop over the bowl space, slowly, so that a test can kill -9 it mid-run.
//   tuner_journal_child JOURNAL EVALUATIONS SEED
#include <chrono>
#include <string>
#include <thread>

#include "tests/tuner/synthetic.h"
#include "tuner/search/technique_registry.h"
#include "tuner/tuner.h"

namespace {

class SlowBowl : public mdh::tuner::CostFunction {
 public:
  mdh::tuner::EvaluationResult evaluate(const mdh::tuner::Configuration& c) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return mdh::tuner::EvaluationResult::ok(mdh::tuner::testing::bowl_cost(c));
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  mdh::tuner::SearchSpace space(mdh::tuner::testing::bowl_parameters());
  auto technique = mdh::tuner::make_technique("auc_bandit");
  mdh::tuner::TunerOptions options;
  options.journal_path = argv[1];
  options.seed = std::stoull(argv[3]);
  options.resume = true;
  SlowBowl cost;
  mdh::tuner::tune(space, *technique, mdh::tuner::evaluations(std::stoull(argv[2])), cost, options);
  return 0;
}
