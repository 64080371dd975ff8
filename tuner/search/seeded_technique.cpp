#include "tuner/search/seeded_technique.h"

#include "support/error.h"

namespace mdh::tuner {

SeededTechnique::SeededTechnique(std::unique_ptr<SearchTechnique> inner, std::vector<Point> seeds)
    : inner_(std::move(inner)), seeds_(std::move(seeds)) {
  MDH_INTERNAL_ASSERT(inner_ != nullptr, "a seeded technique needs a technique to hand over to");
}

void SeededTechnique::initialize(const SearchSpace& space, uint64_t seed) {
  for (const Point& point : seeds_) MDH_INTERNAL_ASSERT(space.is_valid(point), "a seed that is not a valid point");
  next_seed_ = 0;
  asked_seed_.clear();
  inner_->initialize(space, seed);
  for (const Point& point : seeds_) inner_->expect(point);
}

Point SeededTechnique::next() {
  if (next_seed_ < seeds_.size()) {
    asked_seed_.push_back(next_seed_);
    return seeds_[next_seed_++];
  }
  asked_seed_.push_back(std::nullopt);
  return inner_->next();
}

void SeededTechnique::report(Cost cost) {
  MDH_INTERNAL_ASSERT(!asked_seed_.empty(), "a report without an ask");
  const std::optional<size_t> seed = asked_seed_.front();
  asked_seed_.pop_front();
  if (seed)
    inner_->observe(seeds_[*seed], cost);
  else
    inner_->report(cost);
}

}  // namespace mdh::tuner
