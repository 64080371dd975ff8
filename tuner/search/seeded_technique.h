// A search that starts from known configurations: the seeds are evaluated first, then another technique takes over.
// mdh tune seeds with the kernel's default configuration, which is often good on its own (a short search of a large
// space can otherwise end worse than the configuration a user gets without tuning).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "tuner/search/technique.h"

namespace mdh::tuner {

class SeededTechnique final : public SearchTechnique {
 public:
  /// `seeds` must be valid points of the space the technique is initialised with.
  SeededTechnique(std::unique_ptr<SearchTechnique> inner, std::vector<Point> seeds);
  static constexpr const char* kSeededSuffix = "+seeded";
  /// "<inner>+seeded": the seeds are part of the sequence a journal replays, so a journal recorded without them
  /// must not be resumed with them (the tuner refuses a different technique name).
  std::string name() const override { return inner_->name() + kSeededSuffix; }
  void initialize(const SearchSpace& space, uint64_t seed) override;
  Point next() override;
  /// A seed's cost reaches the inner technique only through observe(): most techniques ignore it, so their own
  /// search is the one they would make without seeds; a learning one (model) starts from what the seeds measured.
  void report(Cost cost) override;
  void finalize() override { inner_->finalize(); }

 private:
  std::unique_ptr<SearchTechnique> inner_;
  std::vector<Point> seeds_;
  size_t next_seed_ = 0;
  std::deque<std::optional<size_t>> asked_seed_;  // per unreported ask: the seed's index, or nullopt
};

}  // namespace mdh::tuner
