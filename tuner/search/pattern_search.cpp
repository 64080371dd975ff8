// Torczon's multi-directional search (SIAM J. Optim. 1991) in the parameters' [0, 1] coordinates. Each iteration
// evaluates a whole batch (the reflected, expanded or contracted simplex), which suits parallel evaluation; vertices
// are evaluated at their closest valid configurations. A collapsed simplex restarts at a random configuration.
#include <algorithm>
#include <deque>

#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

class PatternSearch final : public SearchTechnique {
 public:
  std::string name() const override { return "pattern_search"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    space_ = &space;
    rng_.emplace(seed);
    pending_.clear();
    generation_ = 0;
    restart();
  }
  Point next() override {
    Pending pending;
    if (asked_ < batch_.size()) {
      pending.generation = generation_;
      pending.index = asked_++;
      pending_.push_back(pending);
      return space_->closest(batch_[pending.index]);
    }
    // The batch is out for evaluation; keep a parallel evaluator busy with a sample.
    pending.filler = true;
    pending_.push_back(pending);
    return space_->sample(*rng_);
  }
  void report(Cost cost) override {
    Pending pending = pending_.front();
    pending_.pop_front();
    if (pending.filler || pending.generation != generation_) return;
    batch_costs_[pending.index] = cost_value(cost);
    if (++reported_ == batch_.size()) advance();
  }

 private:
  enum class Phase { initial, reflect, expand, contract };
  struct Pending {
    uint64_t generation = 0;
    size_t index = 0;
    bool filler = false;
  };

  void start(Phase phase, std::vector<std::vector<double>> batch) {
    phase_ = phase;
    batch_ = std::move(batch);
    batch_costs_.assign(batch_.size(), 0);
    asked_ = 0;
    reported_ = 0;
    ++generation_;
  }

  void restart() {
    std::vector<double> origin = space_->coordinates(space_->sample(*rng_));
    std::vector<std::vector<double>> simplex{origin};
    for (size_t d = 0; d < origin.size(); ++d) {
      std::vector<double> vertex = origin;
      vertex[d] += vertex[d] + kInitialStep <= 1.0 ? kInitialStep : -kInitialStep;
      simplex.push_back(std::move(vertex));
    }
    start(Phase::initial, std::move(simplex));
  }

  // Moves every vertex but the best one: v_i' = v_0 + factor * (v_i - v_0), clamped to the unit cube.
  std::vector<std::vector<double>> transformed(double factor) const {
    std::vector<std::vector<double>> result;
    for (size_t i = 1; i < vertices_.size(); ++i) {
      std::vector<double> v(vertices_[i].size());
      for (size_t d = 0; d < v.size(); ++d)
        v[d] = std::clamp(vertices_[0][d] + factor * (vertices_[i][d] - vertices_[0][d]), 0.0, 1.0);
      result.push_back(std::move(v));
    }
    return result;
  }

  void replace_others(const std::vector<std::vector<double>>& vectors, const std::vector<double>& costs) {
    for (size_t i = 0; i < vectors.size(); ++i) {
      vertices_[i + 1] = vectors[i];
      costs_[i + 1] = costs[i];
    }
    size_t best = static_cast<size_t>(std::min_element(costs_.begin(), costs_.end()) - costs_.begin());
    std::swap(vertices_[0], vertices_[best]);
    std::swap(costs_[0], costs_[best]);
  }

  double simplex_size() const {
    double size = 0;
    for (size_t i = 1; i < vertices_.size(); ++i)
      for (size_t d = 0; d < vertices_[i].size(); ++d)
        size = std::max(size, std::abs(vertices_[i][d] - vertices_[0][d]));
    return size;
  }

  void advance() {
    switch (phase_) {
      case Phase::initial:
        vertices_ = batch_;
        costs_ = batch_costs_;
        replace_others({}, {});
        start(Phase::reflect, transformed(-1.0));
        return;
      case Phase::reflect:
        reflection_ = batch_;
        reflection_costs_ = batch_costs_;
        if (*std::min_element(batch_costs_.begin(), batch_costs_.end()) < costs_[0])
          start(Phase::expand, transformed(-2.0));
        else
          start(Phase::contract, transformed(0.5));
        return;
      case Phase::expand:
        if (*std::min_element(batch_costs_.begin(), batch_costs_.end()) <
            *std::min_element(reflection_costs_.begin(), reflection_costs_.end()))
          replace_others(batch_, batch_costs_);
        else
          replace_others(reflection_, reflection_costs_);
        start(Phase::reflect, transformed(-1.0));
        return;
      case Phase::contract:
        replace_others(batch_, batch_costs_);
        if (simplex_size() < kMinimumSize)
          restart();
        else
          start(Phase::reflect, transformed(-1.0));
        return;
    }
  }

  static constexpr double kInitialStep = 0.3;
  static constexpr double kMinimumSize = 1e-2;
  const SearchSpace* space_ = nullptr;
  std::optional<Rng> rng_;
  Phase phase_ = Phase::initial;
  std::vector<std::vector<double>> vertices_;  // best first
  std::vector<double> costs_;
  std::vector<std::vector<double>> batch_;
  std::vector<double> batch_costs_;
  std::vector<std::vector<double>> reflection_;
  std::vector<double> reflection_costs_;
  size_t asked_ = 0;
  size_t reported_ = 0;
  uint64_t generation_ = 0;
  std::deque<Pending> pending_;
};

}  // namespace

std::unique_ptr<SearchTechnique> make_pattern_search() {
  return std::make_unique<PatternSearch>();
}

}  // namespace mdh::tuner
