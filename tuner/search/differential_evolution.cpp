// DE/rand/1/bin (Storn & Price) in the parameters' [0, 1] coordinates; a trial vector is evaluated at the closest
// valid configuration, and replaces its target when it is at least as good. A population that stops improving
// (converged onto configurations evaluated already) is reseeded around its best member.
#include <algorithm>
#include <deque>

#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

class DifferentialEvolution final : public SearchTechnique {
 public:
  std::string name() const override { return "differential_evolution"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    space_ = &space;
    rng_.emplace(seed);
    population_.clear();
    costs_.clear();
    pending_.clear();
    next_target_ = 0;
    initial_pending_ = 0;
    generation_ = 0;
    reports_without_improvement_ = 0;
  }
  Point next() override {
    Pending pending;
    if (population_.size() + initial_pending_ < kPopulation) {
      // 1. Seed the population with uniform samples.
      Point point = space_->sample(*rng_);
      pending.initial = true;
      pending.vector = space_->coordinates(point);
      pending.point = point;
      ++initial_pending_;
    } else if (population_.size() < 4) {
      // Too few members to mutate yet (reports outstanding): explore.
      pending.point = space_->sample(*rng_);
      pending.filler = true;
    } else {
      // 2. Mutate and cross over for the next target, round robin.
      size_t target = next_target_;
      next_target_ = (next_target_ + 1) % population_.size();
      size_t a, b, c;
      do a = rng_->below(population_.size());
      while (a == target);
      do b = rng_->below(population_.size());
      while (b == target || b == a);
      do c = rng_->below(population_.size());
      while (c == target || c == a || c == b);
      const size_t dims = population_[target].size();
      size_t forced = rng_->below(dims);
      pending.vector = population_[target];
      for (size_t d = 0; d < dims; ++d)
        if (d == forced || rng_->chance(kCrossover))
          pending.vector[d] =
              std::clamp(population_[a][d] + kWeight * (population_[b][d] - population_[c][d]), 0.0, 1.0);
      pending.target = target;
      pending.point = space_->closest(pending.vector);
    }
    pending.generation = generation_;
    pending_.push_back(pending);
    return pending.point;
  }
  void report(Cost cost) override {
    Pending pending = std::move(pending_.front());
    pending_.pop_front();
    if (pending.filler || pending.generation != generation_) return;
    if (pending.initial) {
      --initial_pending_;
      population_.push_back(std::move(pending.vector));
      costs_.push_back(cost_value(cost));
      return;
    }
    const double best = *std::min_element(costs_.begin(), costs_.end());
    if (cost_value(cost) <= costs_[pending.target] && cost) {
      population_[pending.target] = std::move(pending.vector);
      costs_[pending.target] = *cost;
    }
    if (cost_value(cost) < best) {
      reports_without_improvement_ = 0;
    } else if (++reports_without_improvement_ >= kStagnation) {
      size_t keep = static_cast<size_t>(std::min_element(costs_.begin(), costs_.end()) - costs_.begin());
      population_ = {population_[keep]};
      costs_ = {costs_[keep]};
      next_target_ = 0;
      initial_pending_ = 0;
      reports_without_improvement_ = 0;
      ++generation_;
    }
  }

 private:
  struct Pending {
    Point point;
    std::vector<double> vector;
    size_t target = 0;
    uint64_t generation = 0;
    bool initial = false;
    bool filler = false;
  };
  static constexpr size_t kPopulation = 12;
  static constexpr int kStagnation = 80;
  static constexpr double kWeight = 0.7;
  static constexpr double kCrossover = 0.5;
  const SearchSpace* space_ = nullptr;
  std::optional<Rng> rng_;
  std::vector<std::vector<double>> population_;
  std::vector<double> costs_;
  std::deque<Pending> pending_;
  size_t initial_pending_ = 0;
  size_t next_target_ = 0;
  uint64_t generation_ = 0;
  int reports_without_improvement_ = 0;
};

}  // namespace

std::unique_ptr<SearchTechnique> make_differential_evolution() {
  return std::make_unique<DifferentialEvolution>();
}

}  // namespace mdh::tuner
