// Status names (as journals and workers spell them) and the in-process evaluator.
#include "tuner/evaluate/evaluation.h"

#include <array>
#include <cmath>

#include "support/error.h"

namespace mdh::tuner {
namespace {

constexpr std::array<std::pair<EvaluationStatus, const char*>, 7> kStatusNames = {{
    {EvaluationStatus::ok, "ok"},
    {EvaluationStatus::constraint, "constraint"},
    {EvaluationStatus::build_error, "build_error"},
    {EvaluationStatus::launch_error, "launch_error"},
    {EvaluationStatus::wrong_result, "wrong_result"},
    {EvaluationStatus::timeout, "timeout"},
    {EvaluationStatus::error, "error"},
}};

}  // namespace

void add_stage_seconds(StageSeconds& stages, const std::string& name, double seconds) {
  for (auto& [stage, total] : stages)
    if (stage == name) {
      total += seconds;
      return;
    }
  stages.emplace_back(name, seconds);
}

void StageClock::end(const std::string& name) {
  const auto now = std::chrono::steady_clock::now();
  double seconds = std::chrono::duration<double>(now - begin_).count();
  if (ticks_per_second_ > 0) seconds = std::round(seconds * ticks_per_second_) / ticks_per_second_;
  add_stage_seconds(stages_, name, seconds);
  begin_ = now;
}

std::string to_string(EvaluationStatus status) {
  for (const auto& [s, name] : kStatusNames)
    if (s == status) return name;
  MDH_INTERNAL_ASSERT(false, "unknown evaluation status");
}

EvaluationStatus evaluation_status_from_string(const std::string& name) {
  for (const auto& [s, n] : kStatusNames)
    if (name == n) return s;
  throw UserError("unknown evaluation status '" + name + "'");
}

void InProcessEvaluator::submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) {
  MDH_INTERNAL_ASSERT(!has_pending_, "in-process evaluator runs one evaluation at a time");
  ticket_ = ticket;
  configuration_ = configuration;
  context_ = context;
  has_pending_ = true;
}

std::pair<uint64_t, EvaluationResult> InProcessEvaluator::wait() {
  MDH_INTERNAL_ASSERT(has_pending_, "nothing submitted");
  has_pending_ = false;
  try {
    return {ticket_, cost_function_.evaluate_in_context(configuration_, context_)};
  } catch (const std::exception& e) {
    return {ticket_, EvaluationResult::failed(EvaluationStatus::error, e.what())};
  }
}

}  // namespace mdh::tuner
