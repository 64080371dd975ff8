#include "runtime/steady_timing.h"

#include <algorithm>
#include <cmath>

#include "runtime/prepared_plan.h"
#include "support/error.h"

namespace mdh {

void check_steady_options(const SteadyOptions& options) {
  if (options.min_calls < 1) throw UserError("the steady instrument's minimum number of calls must be at least 1");
  if (!(options.min_span_ns > 0)) throw UserError("the steady instrument's minimum span must be positive");
  if (options.warmup_calls < 0) throw UserError("the steady instrument's warm-up calls must not be negative");
}

int choose_calls_per_pair(const std::function<double(int calls)>& span_ns, const SteadyOptions& options) {
  check_steady_options(options);
  int calls = 1;
  while (true) {
    const double span = span_ns(calls);
    if (span >= options.min_span_ns || calls >= options.min_calls) return calls;
    // The per-call time this span shows predicts the calls that reach the span; a clock too coarse to see one
    // call (span 0) goes straight to the count.
    const double wanted = span > 0 ? std::ceil(options.min_span_ns * calls / span) : options.min_calls;
    const double bounded = std::clamp(wanted, static_cast<double>(calls) + 1, static_cast<double>(options.min_calls));
    calls = static_cast<int>(bounded);
  }
}

SteadyTimer::SteadyTimer(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
                         const std::map<std::string, std::vector<unsigned char>>& param_bytes,
                         const SteadyOptions& options)
    : context_(context), plan_(plan), buffers_(buffers), param_bytes_(param_bytes) {
  check_steady_options(options);
  if (options.warmup_calls > 0) span_ns(options.warmup_calls);
  calls_per_pair_ = choose_calls_per_pair([this](int calls) { return span_ns(calls); }, options);
}

double SteadyTimer::span_ns(int calls) {
  MDH_INTERNAL_ASSERT(calls >= 1, "a span of no calls");
  PreparedPlan prepared(context_, plan_, buffers_, param_bytes_);
  const size_t last_kernel = prepared.kernel_count() - 1;
  ClEvent first, last;
  // Only the two ends carry events: the calls between them are enqueued as an application enqueues them.
  for (int c = 0; c < calls; ++c) {
    for (size_t k = 0; k <= last_kernel; ++k) {
      const bool opens = c == 0 && k == 0;
      const bool closes = c == calls - 1 && k == last_kernel;
      ClEvent event = prepared.enqueue(k, opens || closes);
      if (closes)
        last = std::move(event);
      else if (opens)
        first = std::move(event);
    }
  }
  const ClEvent& opening = first.get() ? first : last;  // one call of one kernel: one event is both ends
  prepared.wait({{0, &opening}, {last_kernel, &last}});
  const uint64_t start = prepared.timestamp(opening, 0, CL_PROFILING_COMMAND_START);
  const uint64_t end = prepared.timestamp(last, last_kernel, CL_PROFILING_COMMAND_END);
  return end >= start ? static_cast<double>(end - start) : 0.0;
}

double SteadyTimer::sample() {
  return span_ns(calls_per_pair_) / calls_per_pair_;
}

SteadyTiming steady_time(SteadyTimer& timer, const MeasurementOptions& measurement) {
  if (measurement.min_runs < 1 || measurement.max_runs < measurement.min_runs)
    throw UserError("the steady instrument needs 1 <= minimum samples <= maximum samples");
  SteadyTiming timing;
  timing.calls_per_pair = timer.calls_per_pair();
  while (static_cast<int>(timing.per_call_ns.size()) < measurement.max_runs) {
    timing.per_call_ns.push_back(timer.sample());
    if (static_cast<int>(timing.per_call_ns.size()) < measurement.min_runs) continue;
    timing.stats = time_stats(timing.per_call_ns, measurement);
    if (timing.stats.ci_met) break;
  }
  timing.ci_met = timing.stats.ci_met;
  return timing;
}

}  // namespace mdh
