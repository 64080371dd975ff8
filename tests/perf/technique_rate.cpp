// Benchmark: how many evaluations per second a search technique can hand out on a real mdh tuning space when the
// evaluations themselves cost nothing, i.e. the technique's own ceiling on a tuning run's rate. The space is SPEC at
// SIZES for an H100/H200's limits, as `mdh tune` searches it there; the cost is a smooth synthetic function of the
// space's coordinates (no device). Prints the rate per block of evaluations, so that a technique whose cost grows with
// the measurements shows it; run under `perf record` to see where its time goes.
// Usage: technique_rate SPEC SIZES [TECHNIQUE (default model)] [EVALUATIONS (default 300)]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "mdh/parser.h"
#include "pipeline/tuning_search_space.h"
#include "tests/hopper_device_limits.h"
#include "tuner/search/technique_registry.h"
#include "tuner/space/random.h"
#include "tuner/space/search_space.h"
#include "tuner/tuner.h"

namespace tuner = mdh::tuner;

namespace {

// The squared distance of a configuration's coordinates from a fixed target point's, plus one: smooth, with one
// optimum, so that a model-guided search fits something and its pool moves.
class SyntheticCost final : public tuner::CostFunction {
 public:
  SyntheticCost(const tuner::SearchSpace& space, std::vector<double> target) : space_(space), target_(target) {}
  tuner::EvaluationResult evaluate(const tuner::Configuration& c) override {
    const std::vector<double> x = space_.coordinates(*space_.point_of(c));
    double sum = 1;
    for (size_t k = 0; k < x.size(); ++k) sum += (x[k] - target_[k]) * (x[k] - target_[k]);
    return tuner::EvaluationResult::ok(sum);
  }

 private:
  const tuner::SearchSpace& space_;
  std::vector<double> target_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: technique_rate SPEC SIZES [TECHNIQUE] [EVALUATIONS]\n");
    return 2;
  }
  const std::string technique_name = argc > 3 ? argv[3] : "model";
  const uint64_t evaluations = argc > 4 ? std::stoull(argv[4]) : 300;
  const mdh::BoundMdh bound = mdh::bind(mdh::parse_spec_file(argv[1]), mdh::parse_size_binding(argv[2]));
  const auto start_space = std::chrono::steady_clock::now();
  const tuner::SearchSpace space =
      mdh::make_search_space(mdh::make_tuning_space(bound, mdh::testing::hopper_device_limits()));
  const double space_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_space).count();
  tuner::Rng draw(7);
  SyntheticCost cost(space, space.coordinates(space.sample(draw)));
  std::unique_ptr<tuner::SearchTechnique> technique = tuner::make_technique(technique_name);
  std::printf("%s at %s: %zu parameters in %zu groups (space built in %.2f s); technique %s\n", argv[1], argv[2],
              space.parameter_count(), space.group_count(), space_seconds, technique_name.c_str());
  constexpr uint64_t kBlock = 50;
  auto block_start = std::chrono::steady_clock::now();
  const auto start = block_start;
  tuner::TunerOptions options;
  options.seed = 1;
  options.on_evaluation = [&](const tuner::TuningStatus& status, const tuner::EvaluationRecord&, bool) {
    if (status.evaluations % kBlock != 0) return;
    const auto now = std::chrono::steady_clock::now();
    std::printf("  evaluations %4llu-%-4llu %8.1f per second\n",
                static_cast<unsigned long long>(status.evaluations - kBlock + 1),
                static_cast<unsigned long long>(status.evaluations),
                kBlock / std::chrono::duration<double>(now - block_start).count());
    std::fflush(stdout);
    block_start = now;
  };
  tuner::tune(space, *technique, tuner::evaluations(evaluations), cost, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("  all %llu: %.1f per second\n", static_cast<unsigned long long>(evaluations), evaluations / seconds);
  return 0;
}
