#include "peers/steady_measurement.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "support/error.h"

namespace mdh::peers {
namespace {

double checked_total(const SteadyCalls& steady_calls, int n) {
  const double total = steady_calls(n);
  if (!(total > 0) || !std::isfinite(total))
    throw UserError("the steady instrument measured " + std::to_string(total) + " ns for " + std::to_string(n) +
                    " calls: the device timestamps are unusable");
  return total;
}

}  // namespace

nlohmann::json time_stats_json(const TimeStats& s) {
  return {{"median", s.median_ns}, {"min", s.min_ns},       {"max", s.max_ns},
          {"stddev", s.stddev_ns}, {"ci_low", s.ci_low_ns}, {"ci_high", s.ci_high_ns}};
}

int choose_steady_calls(const SteadyCalls& steady_calls) {
  return choose_calls_per_pair([&steady_calls](int n) { return checked_total(steady_calls, n); }, SteadyOptions{});
}

SteadyMeasurement measure_steady(const SteadyCalls& steady_calls, const MeasurementOptions& options) {
  SteadyMeasurement steady;
  steady.calls_per_sample = choose_steady_calls(steady_calls);
  const int n = steady.calls_per_sample;
  steady.per_call = measure(
      [&steady_calls, n] {
        const double per_call = checked_total(steady_calls, n) / n;
        return RunTimes{per_call, per_call};
      },
      options);
  return steady;
}

nlohmann::json steady_record_fields(const SteadyMeasurement& steady, const std::string& includes) {
  const TimeStats& s = steady.per_call.device;
  return {{"steady_time_ns", time_stats_json(s)},
          {"steady",
           {{"calls_per_sample", steady.calls_per_sample},
            {"samples", steady.per_call.runs},
            {"warmups", steady.per_call.warmups},
            {"ci_met", s.ci_met},
            {"includes", includes}}}};
}

}  // namespace mdh::peers
