// Model-guided search (as TVM's Ansor and Kernel Tuner's Bayesian optimisation): a cost model fitted to every
// measurement so far proposes the candidates with the largest expected improvement over the best, drawn from a pool
// of random configurations (exploration) and of the neighbourhoods of the best ones (local search).
//
// 1. Until kInitialMeasurements measurements exist (seeds observed count), uniform random configurations.
// 2. Then, whenever the proposals run out: fit the ensemble (cost_model.h) to features = the continuous view of
//    each measured configuration, target = log cost (a failed configuration counts as twice the slowest success:
//    a region to leave, without a scale of its own).
// 3. Pool: kRandomCandidates uniform configurations, every valid neighbour of the kLocalCentres best measured
//    configurations (at most kNeighboursPerCentre each) and kWalks short random walks from them; minus every
//    configuration proposed or measured before.
// 4. Expected improvement of log cost under the ensemble's mean and spread (a normal approximation); the batch is
//    the best neighbour of the best configuration, then the candidates of largest expected improvement; each place
//    goes to a uniform configuration instead with probability kExploration.
// Randomness comes from the seed only and XGBoost runs single-threaded with a fixed seed, so the proposals are a
// function of (seed, reported costs): a replayed journal rebuilds the same state.
#include <algorithm>
#include <cmath>
#include <deque>
#include <set>

#include "support/error.h"
#include "tuner/search/cost_model.h"
#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

constexpr size_t kInitialMeasurements = 10;
constexpr size_t kModelMembers = 5;
constexpr int kBoostingRounds = 30;
constexpr size_t kRandomCandidates = 300;
constexpr size_t kLocalCentres = 4;
constexpr size_t kNeighboursPerCentre = 120;
constexpr size_t kWalks = 60;
constexpr size_t kWalkSteps = 3;
constexpr double kExploration = 0.05;
constexpr int kRedraws = 64;

double normal_density(double z) {
  return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
}
double normal_distribution(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

/// Expected improvement of a minimisation below `best` when the value is normal(mean, spread).
double expected_improvement(double best, const CostPrediction& p) {
  const double gain = best - p.mean;
  if (p.spread <= 1e-12) return std::max(0.0, gain);
  const double z = gain / p.spread;
  return gain * normal_distribution(z) + p.spread * normal_density(z);
}

class ModelGuided final : public SearchTechnique {
 public:
  explicit ModelGuided(size_t batch) : batch_(batch) { MDH_INTERNAL_ASSERT(batch_ >= 1, "an empty batch"); }
  std::string name() const override { return "model"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    space_ = &space;
    rng_.emplace(seed);
    model_rng_.emplace(derive_seed(seed, 1));
    model_.emplace(kModelMembers, kBoostingRounds);
    measured_.clear();
    proposed_.clear();
    asked_.clear();
    batch_queue_.clear();
  }
  Point next() override {
    if (batch_queue_.empty()) propose();
    Point point = batch_queue_.front();
    batch_queue_.pop_front();
    asked_.push_back(point);
    return point;
  }
  void report(Cost cost) override {
    MDH_INTERNAL_ASSERT(!asked_.empty(), "a report without an ask");
    measured_.push_back({std::move(asked_.front()), cost});
    asked_.pop_front();
  }
  void observe(const Point& point, Cost cost) override {
    proposed_.insert(point);
    measured_.push_back({point, cost});
  }

 private:
  struct Measurement {
    Point point;
    Cost cost;
  };

  // A uniform configuration not proposed before, if a few draws find one (a repeat is answered from the tuner's
  // cache, so in a nearly exhausted space it is fine).
  Point fresh_sample() {
    Point point = space_->sample(*rng_);
    for (int attempt = 0; attempt < kRedraws && proposed_.count(point) != 0; ++attempt) point = space_->sample(*rng_);
    return point;
  }

  void enqueue(Point point) {
    proposed_.insert(point);
    batch_queue_.push_back(std::move(point));
  }

  void propose() {
    size_t successes = 0;
    for (const Measurement& m : measured_) successes += m.cost.has_value();
    if (measured_.size() < kInitialMeasurements || successes < 2) {
      enqueue(fresh_sample());
      return;
    }
    fit();
    std::vector<Point> pool = candidate_pool();
    std::vector<float> rows;
    rows.reserve(pool.size() * space_->parameter_count());
    for (const Point& point : pool) append_features(point, rows);
    const std::vector<CostPrediction> predictions = model_->predict(rows);
    std::vector<double> gain(pool.size());
    for (size_t k = 0; k < pool.size(); ++k) gain[k] = expected_improvement(best_target_, predictions[k]);
    std::vector<size_t> order(pool.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    // Ties (e.g. no expected gain anywhere) keep pool order: deterministic.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gain[a] > gain[b]; });
    // The first place: the best neighbour of the best configuration by the model (a local step that does not wait
    // for the model to trust the region), unless a random configuration takes it.
    std::vector<bool> used(pool.size(), false);
    size_t best_local = pool.size();
    for (size_t k = local_begin_; k < local_end_; ++k)
      if (best_local == pool.size() || gain[k] > gain[best_local]) best_local = k;
    size_t taken = 0;
    for (size_t k = 0; k < batch_; ++k) {
      if (rng_->chance(kExploration)) {
        enqueue(fresh_sample());
        continue;
      }
      size_t pick = pool.size();
      if (k == 0 && best_local < pool.size()) {
        pick = best_local;
      } else {
        while (taken < order.size() && used[order[taken]]) ++taken;
        if (taken < order.size()) pick = order[taken++];
      }
      if (pick == pool.size()) {
        enqueue(fresh_sample());
      } else {
        used[pick] = true;
        enqueue(pool[pick]);
      }
    }
  }

  void append_features(const Point& point, std::vector<float>& rows) const {
    for (double c : space_->coordinates(point)) rows.push_back(static_cast<float>(c));
  }

  void fit() {
    double slowest = -INFINITY;
    best_target_ = INFINITY;
    for (const Measurement& m : measured_)
      if (m.cost) {
        const double target = std::log(std::max(*m.cost, 1e-300));
        slowest = std::max(slowest, target);
        best_target_ = std::min(best_target_, target);
      }
    const double failed = slowest + std::log(2.0);
    std::vector<float> rows, targets;
    rows.reserve(measured_.size() * space_->parameter_count());
    for (const Measurement& m : measured_) {
      append_features(m.point, rows);
      targets.push_back(static_cast<float>(m.cost ? std::log(std::max(*m.cost, 1e-300)) : failed));
    }
    model_->fit(rows, space_->parameter_count(), targets, *model_rng_);
  }

  // Uniform candidates, then the neighbourhoods of the best measured configurations; each candidate once, none
  // proposed before.
  std::vector<Point> candidate_pool() {
    std::set<Point> seen;
    std::vector<Point> pool;
    auto add = [&](Point point) {
      if (proposed_.count(point) == 0 && seen.insert(point).second) pool.push_back(std::move(point));
    };
    for (size_t k = 0; k < kRandomCandidates; ++k) add(space_->sample(*rng_));
    std::vector<const Measurement*> best;
    for (const Measurement& m : measured_)
      if (m.cost) best.push_back(&m);
    // Stable: equal costs keep measurement order.
    std::stable_sort(best.begin(), best.end(),
                     [](const Measurement* a, const Measurement* b) { return *a->cost < *b->cost; });
    std::vector<Point> centres;
    for (const Measurement* m : best) {
      if (centres.size() == kLocalCentres) break;
      if (std::find(centres.begin(), centres.end(), m->point) == centres.end()) centres.push_back(m->point);
    }
    local_begin_ = local_end_ = pool.size();
    for (const Point& centre : centres) {
      std::vector<Point> neighbours = space_->neighbours(centre);
      // A uniform subset of a large neighbourhood (partial Fisher-Yates).
      const size_t keep = std::min(neighbours.size(), kNeighboursPerCentre);
      for (size_t k = 0; k < keep; ++k) std::swap(neighbours[k], neighbours[k + rng_->below(neighbours.size() - k)]);
      for (size_t k = 0; k < keep; ++k) add(std::move(neighbours[k]));
      if (&centre == &centres.front()) local_end_ = pool.size();
    }
    for (size_t walk = 0; walk < kWalks && !centres.empty(); ++walk) {
      Point point = centres[walk % centres.size()];
      // One neighbour a step, not the whole neighbourhood: checking every neighbour of every step against the
      // space's constraints cost more than the rest of a proposal (docs/decisions.md).
      for (size_t step = 0; step < kWalkSteps; ++step) {
        std::optional<Point> next = space_->random_neighbour(point, *rng_);
        if (!next) break;
        point = std::move(*next);
      }
      add(std::move(point));
    }
    return pool;
  }

  const size_t batch_;
  const SearchSpace* space_ = nullptr;
  std::optional<Rng> rng_, model_rng_;
  std::optional<CostModel> model_;
  std::vector<Measurement> measured_;
  std::set<Point> proposed_;       // asked or observed: never proposed again while others remain
  std::deque<Point> asked_;        // asked, not yet reported, in ask order
  std::deque<Point> batch_queue_;  // proposed, not yet asked
  double best_target_ = 0;
  size_t local_begin_ = 0, local_end_ = 0;  // the pool's neighbours of the best configuration
};

}  // namespace

std::unique_ptr<SearchTechnique> make_model_guided(size_t batch) {
  return std::make_unique<ModelGuided>(batch);
}

}  // namespace mdh::tuner
