// The median of all compiles so far: robust to the slow ones it exists to stop, and to the instant builds that the
// binary cache answers.
#include "tuner/compile_deadline.h"

#include <algorithm>

namespace mdh::tuner {

std::optional<double> CompileDeadline::seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (durations_.size() < settle_ || durations_.empty()) return std::nullopt;
  std::vector<double> sorted = durations_;
  auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  return std::max(floor_seconds_, factor_ * *middle);
}

bool CompileDeadline::passed(double elapsed_seconds) const {
  const std::optional<double> limit = seconds();
  return limit && elapsed_seconds > *limit;
}

void CompileDeadline::add(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  durations_.push_back(seconds);
}

void SeedConfigurations::add(const Configuration& configuration) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::find(seeds_.begin(), seeds_.end(), configuration) == seeds_.end()) seeds_.push_back(configuration);
}

bool SeedConfigurations::contains(const Configuration& configuration) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::find(seeds_.begin(), seeds_.end(), configuration) != seeds_.end();
}

}  // namespace mdh::tuner
