// OpenTuner's AUC bandit meta-technique (Ansel et al., PACT 2014): credit is the area under the curve of a
// member's recent improvements (later improvements weigh more), plus an upper-confidence exploration bonus.
#include <cmath>
#include <deque>

#include "support/error.h"
#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

class AucBandit final : public SearchTechnique {
 public:
  explicit AucBandit(std::vector<std::unique_ptr<SearchTechnique>> members) : members_(std::move(members)) {
    MDH_INTERNAL_ASSERT(!members_.empty(), "a bandit needs members");
  }
  std::string name() const override { return "auc_bandit"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    for (size_t m = 0; m < members_.size(); ++m) members_[m]->initialize(space, derive_seed(seed, m));
    history_.clear();
    pending_.clear();
    uses_.assign(members_.size(), 0);
    best_ = cost_value(std::nullopt);
  }
  Point next() override {
    size_t chosen = choose();
    pending_.push_back(chosen);
    return members_[chosen]->next();
  }
  void report(Cost cost) override {
    size_t member = pending_.front();
    pending_.pop_front();
    members_[member]->report(cost);
    bool improved = cost && *cost < best_;
    if (improved) best_ = *cost;
    history_.push_back({member, improved});
    ++uses_[member];
    if (history_.size() > kWindow) {
      --uses_[history_.front().member];
      history_.pop_front();
    }
  }
  /// Members hear of seeds; the bandit's credit does not (it rates the members' own asks).
  void observe(const Point& point, Cost cost) override {
    for (auto& member : members_) member->observe(point, cost);
  }
  void finalize() override {
    for (auto& member : members_) member->finalize();
  }

 private:
  struct Use {
    size_t member;
    bool improved;
  };

  size_t choose() const {
    // Members without a use in the window first, in order (deterministic, no randomness needed).
    for (size_t m = 0; m < members_.size(); ++m)
      if (uses_[m] == 0) return m;
    std::vector<double> weighted(members_.size(), 0);
    std::vector<double> seen(members_.size(), 0);
    for (const Use& use : history_) {
      seen[use.member] += 1;
      if (use.improved) weighted[use.member] += seen[use.member];
    }
    size_t best_member = 0;
    double best_score = -1;
    const double total = static_cast<double>(history_.size());
    for (size_t m = 0; m < members_.size(); ++m) {
      double n = seen[m];
      double auc = weighted[m] / (n * (n + 1) / 2);
      double score = auc + kExploration * std::sqrt(2 * std::log(total) / n);
      if (score > best_score) {
        best_score = score;
        best_member = m;
      }
    }
    return best_member;
  }

  static constexpr size_t kWindow = 500;
  static constexpr double kExploration = 0.05;
  std::vector<std::unique_ptr<SearchTechnique>> members_;
  std::deque<Use> history_;
  std::vector<size_t> uses_;
  std::deque<size_t> pending_;
  double best_ = 0;
};

}  // namespace

std::unique_ptr<SearchTechnique> make_auc_bandit(std::vector<std::unique_ptr<SearchTechnique>> members) {
  return std::make_unique<AucBandit>(std::move(members));
}

}  // namespace mdh::tuner
