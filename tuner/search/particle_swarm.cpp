// Particle swarm optimisation (Kennedy & Eberhart) with inertia, in the parameters' [0, 1] coordinates; a particle's
// position is evaluated at the closest valid configuration. A swarm that stops improving (it has collapsed onto
// configurations evaluated already) starts over at random positions.
#include <algorithm>
#include <deque>

#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

class ParticleSwarm final : public SearchTechnique {
 public:
  std::string name() const override { return "particle_swarm"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    space_ = &space;
    rng_.emplace(seed);
    particles_.clear();
    swarm_best_.clear();
    swarm_best_cost_ = cost_value(std::nullopt);
    pending_.clear();
    next_particle_ = 0;
    generation_ = 0;
    reports_without_improvement_ = 0;
  }
  Point next() override {
    Point point;
    if (particles_.size() < kParticles) {
      point = space_->sample(*rng_);
      Particle particle;
      particle.position = space_->coordinates(point);
      particle.velocity.resize(particle.position.size());
      for (double& v : particle.velocity) v = rng_->uniform(-kInitialSpeed, kInitialSpeed);
      particle.best = particle.position;
      particles_.push_back(std::move(particle));
      pending_.push_back({generation_, particles_.size() - 1});
      return point;
    }
    const size_t i = next_particle_;
    next_particle_ = (next_particle_ + 1) % particles_.size();
    Particle& particle = particles_[i];
    const std::vector<double>& social = swarm_best_.empty() ? particle.best : swarm_best_;
    for (size_t d = 0; d < particle.position.size(); ++d) {
      particle.velocity[d] = kInertia * particle.velocity[d] +
                             kCognitive * rng_->uniform01() * (particle.best[d] - particle.position[d]) +
                             kSocial * rng_->uniform01() * (social[d] - particle.position[d]);
      particle.velocity[d] = std::clamp(particle.velocity[d], -kMaximumSpeed, kMaximumSpeed);
      particle.position[d] = std::clamp(particle.position[d] + particle.velocity[d], 0.0, 1.0);
    }
    pending_.push_back({generation_, i});
    return space_->closest(particle.position);
  }
  void report(Cost cost) override {
    auto [generation, index] = pending_.front();
    pending_.pop_front();
    if (generation != generation_) return;
    Particle& particle = particles_[index];
    const double value = cost_value(cost);
    if (value < particle.best_cost) {
      particle.best_cost = value;
      particle.best = particle.position;
    }
    if (value < swarm_best_cost_) {
      swarm_best_cost_ = value;
      swarm_best_ = particle.position;
      reports_without_improvement_ = 0;
    } else if (++reports_without_improvement_ >= kStagnation) {
      particles_.clear();
      swarm_best_.clear();
      swarm_best_cost_ = cost_value(std::nullopt);
      reports_without_improvement_ = 0;
      next_particle_ = 0;
      ++generation_;
    }
  }

 private:
  struct Particle {
    std::vector<double> position, velocity, best;
    double best_cost = cost_value(std::nullopt);
  };
  static constexpr size_t kParticles = 10;
  static constexpr int kStagnation = 60;
  static constexpr double kInertia = 0.7;
  static constexpr double kCognitive = 1.4;
  static constexpr double kSocial = 1.4;
  static constexpr double kInitialSpeed = 0.1;
  static constexpr double kMaximumSpeed = 0.3;
  const SearchSpace* space_ = nullptr;
  std::optional<Rng> rng_;
  std::vector<Particle> particles_;
  std::vector<double> swarm_best_;
  double swarm_best_cost_ = 0;
  std::deque<std::pair<uint64_t, size_t>> pending_;  // (swarm generation, particle)
  size_t next_particle_ = 0;
  uint64_t generation_ = 0;
  int reports_without_improvement_ = 0;
};

}  // namespace

std::unique_ptr<SearchTechnique> make_particle_swarm() {
  return std::make_unique<ParticleSwarm>();
}

}  // namespace mdh::tuner
