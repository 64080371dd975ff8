#include "runtime/execute.h"

#include <algorithm>
#include <chrono>

#include "runtime/prepared_plan.h"
#include "support/error.h"

namespace mdh {

uint64_t median_ns(std::vector<uint64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return values[n / 2 - 1] / 2 + values[n / 2] / 2 + (values[n / 2 - 1] % 2 + values[n / 2] % 2) / 2;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

uint64_t PlanTiming::median_kernel_ns() const {
  return median_ns(kernel_ns);
}
uint64_t PlanTiming::median_wall_ns() const {
  return median_ns(wall_ns);
}

PlanTiming execute_plan(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
                        const std::map<std::string, std::vector<unsigned char>>& param_bytes, int warmups,
                        int repetitions, KernelEvents kernel_events) {
  MDH_INTERNAL_ASSERT(warmups >= 0 && repetitions >= 0, "negative warm-up or repetition count");
  PreparedPlan prepared(context, plan, buffers, param_bytes);
  const bool profiled = kernel_events == KernelEvents::profiled;

  PlanTiming timing;
  timing.each_kernel_ns.resize(prepared.kernel_count());
  for (int run = 0; run < warmups + repetitions; ++run) {
    auto wall_start = std::chrono::steady_clock::now();
    std::vector<ClEvent> events(profiled ? prepared.kernel_count() : 0);
    std::vector<std::pair<size_t, const ClEvent*>> waited;
    waited.reserve(events.size());
    for (size_t k = 0; k < prepared.kernel_count(); ++k) {
      ClEvent event = prepared.enqueue(k, profiled);
      if (!profiled) continue;
      events[k] = std::move(event);
      waited.emplace_back(k, &events[k]);
    }
    prepared.wait(waited);
    auto wall_end = std::chrono::steady_clock::now();
    if (run < warmups) continue;
    timing.wall_ns.push_back(
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall_end - wall_start).count()));
    if (!profiled) continue;
    uint64_t kernel_sum = 0;
    for (size_t k = 0; k < events.size(); ++k) {
      const uint64_t ns = prepared.event_ns(events[k], k);
      timing.each_kernel_ns[k].push_back(ns);
      kernel_sum += ns;
    }
    timing.kernel_ns.push_back(kernel_sum);
  }
  return timing;
}

}  // namespace mdh
