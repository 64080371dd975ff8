// Simulated annealing over one-parameter neighbourhoods. Costs are compared relatively (a 10% worse configuration
// is accepted with the same probability whether the kernel takes microseconds or seconds).
#include <cmath>
#include <deque>

#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

class SimulatedAnnealing final : public SearchTechnique {
 public:
  std::string name() const override { return "annealing"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    space_ = &space;
    rng_.emplace(seed);
    current_.reset();
    current_cost_ = 0;
    temperature_ = kInitialTemperature;
    rejections_ = 0;
    pending_.clear();
  }
  Point next() override {
    Point proposal;
    if (!current_) {
      proposal = space_->sample(*rng_);
    } else {
      std::vector<Point> around = space_->neighbours(*current_);
      proposal = around.empty() ? space_->sample(*rng_) : around[rng_->below(around.size())];
    }
    pending_.push_back(proposal);
    return proposal;
  }
  void report(Cost cost) override {
    Point proposal = std::move(pending_.front());
    pending_.pop_front();
    temperature_ = std::max(kMinimumTemperature, temperature_ * kCooling);
    if (!cost) {
      if (++rejections_ >= kRestartAfterRejections) restart();
      return;
    }
    bool accept = !current_ || *cost <= current_cost_;
    if (!accept) {
      double relative_worsening = (*cost - current_cost_) / std::max(current_cost_, 1e-300);
      accept = rng_->chance(std::exp(-relative_worsening / temperature_));
    }
    if (accept) {
      current_ = std::move(proposal);
      current_cost_ = *cost;
      rejections_ = 0;
    } else if (++rejections_ >= kRestartAfterRejections) {
      restart();
    }
  }

 private:
  // A stuck walk (every neighbour worse, or failing) starts over at a random configuration, hot again.
  void restart() {
    current_.reset();
    temperature_ = kInitialTemperature;
    rejections_ = 0;
  }

  static constexpr double kInitialTemperature = 0.2;
  static constexpr double kMinimumTemperature = 1e-3;
  static constexpr double kCooling = 0.97;
  static constexpr int kRestartAfterRejections = 40;
  const SearchSpace* space_ = nullptr;
  std::optional<Rng> rng_;
  std::optional<Point> current_;
  double current_cost_ = 0;
  double temperature_ = kInitialTemperature;
  int rejections_ = 0;
  std::deque<Point> pending_;
};

}  // namespace

std::unique_ptr<SearchTechnique> make_simulated_annealing() {
  return std::make_unique<SimulatedAnnealing>();
}

}  // namespace mdh::tuner
