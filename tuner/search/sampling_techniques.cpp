// The two techniques that ignore costs: exhaustive enumeration and uniform random sampling (both of valid
// configurations only).
#include <cstdint>
#include <set>

#include "support/error.h"
#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

class Exhaustive final : public SearchTechnique {
 public:
  std::string name() const override { return "exhaustive"; }
  void initialize(const SearchSpace& space, uint64_t) override {
    space_ = &space;
    current_.assign(space.group_count(), 0);
    cycle_ = fits_uint64(space.size()) ? static_cast<uint64_t>(space.size()) : UINT64_MAX;
  }
  Point next() override {
    // Candidates in index order, skipping those that violate a global constraint. A whole cycle without a valid
    // one means there is none: sample() then throws the diagnosis.
    for (uint64_t skipped = 0;; ++skipped) {
      if (skipped == cycle_) {
        Rng rng(0);
        space_->sample(rng);
        MDH_INTERNAL_ASSERT(false, "a valid configuration that exhaustive enumeration skipped");
      }
      Point result = current_;
      // Mixed-radix increment, last group fastest (index order).
      for (size_t g = current_.size(); g-- > 0;) {
        if (++current_[g] < space_->group(g).leaf_count()) break;
        current_[g] = 0;
      }
      if (!space_->has_global_constraints() || space_->is_valid(result)) return result;
    }
  }
  void report(Cost) override {}

 private:
  const SearchSpace* space_ = nullptr;
  Point current_;
  uint64_t cycle_ = 0;
};

class RandomSearch final : public SearchTechnique {
 public:
  std::string name() const override { return "random"; }
  void initialize(const SearchSpace& space, uint64_t seed) override {
    space_ = &space;
    rng_.emplace(seed);
    proposed_.clear();
  }
  Point next() override {
    // Redraw a few times to avoid repeats; in a nearly exhausted space a repeat is fine (the tuner answers it
    // from its cache).
    Point point = space_->sample(*rng_);
    for (int attempt = 0; attempt < kRedraws && proposed_.count(point) != 0; ++attempt) point = space_->sample(*rng_);
    if (proposed_.size() < kRememberedProposals) proposed_.insert(point);
    return point;
  }
  void report(Cost) override {}

 private:
  static constexpr int kRedraws = 64;
  static constexpr size_t kRememberedProposals = 1'000'000;
  const SearchSpace* space_ = nullptr;
  std::optional<Rng> rng_;
  std::set<Point> proposed_;
};

}  // namespace

std::unique_ptr<SearchTechnique> make_exhaustive() {
  return std::make_unique<Exhaustive>();
}
std::unique_ptr<SearchTechnique> make_random_search() {
  return std::make_unique<RandomSearch>();
}

}  // namespace mdh::tuner
