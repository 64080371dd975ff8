// The median of the latest compiles: robust to the slow ones it exists to stop, and to the instant builds that the
// binary cache answers; recent, so that it follows the search into regions of larger kernels.
#include "tuner/evaluate/compile_deadline.h"

#include <algorithm>

namespace mdh::tuner {

std::optional<double> CompileDeadline::seconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_ < settle_ || durations_.empty()) return std::nullopt;
  std::vector<double> latest(durations_.begin(), durations_.end());
  auto middle = latest.begin() + static_cast<std::ptrdiff_t>(latest.size() / 2);
  std::nth_element(latest.begin(), middle, latest.end());
  return std::min(most_seconds_, std::max(floor_seconds_, factor_ * *middle));
}

bool CompileDeadline::passed(double elapsed_seconds) const {
  const std::optional<double> limit = seconds();
  return limit && elapsed_seconds > *limit;
}

void CompileDeadline::add(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++finished_;
  durations_.push_back(seconds);
  if (durations_.size() > recent_) durations_.pop_front();
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
