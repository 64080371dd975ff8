// First-improvement hill climbing over one-parameter changes, from the best configuration it knows of: the default
// start, a --start or a transferred result as soon as their costs are observed (the other techniques ignore those
// seeds and start from random configurations), else its own first sample. Each configuration that differs from the
// current one in one parameter's value is tried once, in a seeded random order; the first that improves becomes the
// current one and its changes are tried next. The changes are tried a parameter group at a time in turn (one change
// of each group, in a seeded order, then the next of each), not uniformly: a loop-order permutation of 7 dimensions
// has 5,039 changes, a tile size a handful, and uniform changes spend the run among loop orders. Where every change
// of the current one has been tried (a local optimum) it restarts from a kick: a random perturbation of the current
// configuration (iterated local search). A climb from the seeds finds one-parameter improvements of the default
// that the other techniques miss (docs/decisions.md).
//
// The tuner asks a window of configurations ahead before the first seed's cost is known, so the climb starts from
// the first expected seed at once: its changes are asked while it is evaluated, rather than random configurations
// that compile slowly and run far slower than the default. Without seeds it starts from random configurations.
#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

class LocalSearch final : public SearchTechnique {
 public:
  std::string name() const override { return "local"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    space_ = &space;
    rng_.emplace(seed);
    current_.reset();
    current_cost_ = cost_value(std::nullopt);
    untried_.clear();
    tried_.clear();
    pending_.clear();
  }
  void expect(const Point& point) override {
    tried_.insert(point);
    // The first seed's changes, in the order they would be tried once its cost is known; a seed whose cost proves
    // better (or the first's own cost) moves the climb as observe() says.
    if (!current_ && untried_.empty()) order_changes_of(point);
  }
  Point next() override {
    Pending pending;
    if (neighbours_left()) {
      pending.point = std::move(untried_.front());
      untried_.pop_front();
    } else {
      pending.point = current_ ? kick(*current_) : space_->sample(*rng_);
      pending.restart = true;
    }
    tried_.insert(pending.point);
    pending_.push_back(pending);
    return pending.point;
  }
  void report(Cost cost) override {
    Pending pending = std::move(pending_.front());
    pending_.pop_front();
    // A change that improves on the current configuration moves there; so does a kick asked because the current
    // one's changes were all tried (a restart from a local optimum).
    if (cost && (*cost < current_cost_ || (pending.restart && !neighbours_left()))) move_to(pending.point, *cost);
  }
  void observe(const Point& point, Cost cost) override {
    tried_.insert(point);
    if (cost && *cost < current_cost_) move_to(point, *cost);
  }

 private:
  struct Pending {
    Point point;
    bool restart = false;  // a kick, asked where no untried change was left
  };

  bool neighbours_left() {
    while (!untried_.empty() && tried_.count(untried_.front()) != 0) untried_.pop_front();
    return !untried_.empty();
  }
  // Iterated local search's kick: about a third of the parameters moved by up to half their range in the
  // continuous view, then the closest valid configuration. Unlike a uniform restart it stays near the local optimum,
  // and unlike one-parameter changes it crosses constraints that tie several parameters together.
  Point kick(const Point& from) {
    std::vector<double> coordinates = space_->coordinates(from);
    for (double& c : coordinates)
      if (rng_->chance(kKickShare)) c = std::clamp(c + rng_->uniform(-kKickReach, kKickReach), 0.0, 1.0);
    return space_->closest(coordinates);
  }
  void move_to(const Point& point, double cost) {
    current_ = point;
    current_cost_ = cost;
    order_changes_of(point);
  }
  // untried_ = the one-parameter changes of `point`. A neighbour changes one group's value: its changes by group,
  // each group's in a seeded order.
  void order_changes_of(const Point& point) {
    std::map<size_t, std::vector<Point>> by_group;
    for (Point& p : space_->neighbours(point)) {
      size_t g = 0;
      while (g + 1 < p.size() && p[g] == point[g]) ++g;
      by_group[g].push_back(std::move(p));
    }
    std::vector<std::vector<Point>*> groups;
    for (auto& [g, changes] : by_group) {
      shuffle(changes);
      groups.push_back(&changes);
    }
    shuffle(groups);
    untried_.clear();
    for (size_t round = 0; !groups.empty(); ++round) {
      std::erase_if(groups, [&](const std::vector<Point>* changes) { return changes->size() <= round; });
      for (std::vector<Point>* changes : groups) untried_.push_back(std::move((*changes)[round]));
    }
  }
  template <typename T>
  void shuffle(std::vector<T>& items) {
    for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng_->below(i)]);  // Fisher-Yates
  }

  static constexpr double kKickShare = 1.0 / 3, kKickReach = 0.5;
  const SearchSpace* space_ = nullptr;
  std::optional<Rng> rng_;
  std::optional<Point> current_;
  double current_cost_ = 0;
  std::deque<Point> untried_;  // the current configuration's one-parameter changes, in the order they are tried
  std::set<Point> tried_;
  std::deque<Pending> pending_;
};

}  // namespace

std::unique_ptr<SearchTechnique> make_local_search() {
  return std::make_unique<LocalSearch>();
}

}  // namespace mdh::tuner
