#include "runtime/measurement.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "support/error.h"

namespace mdh {

std::pair<size_t, size_t> median_ci_ranks(size_t n, double confidence) {
  const double tail = (1.0 - confidence) / 2.0;
  // cdf = P(B <= r - 1) = P(B < r), accumulated from the binomial probabilities; 0.5^n stays a normal double
  // up to n = 1000, far beyond any run limit.
  double pmf = std::pow(0.5, static_cast<double>(n));  // P(B = 0)
  double below = 0.0;                                  // P(B < r) for the current r
  size_t lower = 0;
  for (size_t r = 1; r <= (n + 1) / 2; ++r) {
    below += pmf;  // now P(B < r) = P(B <= r - 1)
    if (below > tail) break;
    lower = r;
    pmf *= static_cast<double>(n - (r - 1)) / static_cast<double>(r);  // P(B = r) from P(B = r - 1)
  }
  if (lower == 0) return {0, 0};
  return {lower, n + 1 - lower};
}

TimeStats time_stats(std::vector<double> values, const MeasurementOptions& options) {
  MDH_INTERNAL_ASSERT(!values.empty(), "time_stats of no values");
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  TimeStats s;
  s.min_ns = values.front();
  s.max_ns = values.back();
  s.median_ns = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(n);
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  s.stddev_ns = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;
  auto [lower, upper] = median_ci_ranks(n, options.confidence);
  if (lower == 0) {
    s.ci_low_ns = s.min_ns;
    s.ci_high_ns = s.max_ns;
    s.ci_met = false;  // too few runs for a finite interval: not met, however tight the values look
    return s;
  }
  s.ci_low_ns = values[lower - 1];
  s.ci_high_ns = values[upper - 1];
  const double allowed = options.ci_relative * s.median_ns;
  s.ci_met = s.median_ns - s.ci_low_ns <= allowed && s.ci_high_ns - s.median_ns <= allowed;
  return s;
}

Measurement measure(const std::function<RunTimes()>& run_once, const MeasurementOptions& options) {
  if (options.warmups < 0) throw UserError("measurement: warm-ups must not be negative");
  if (options.min_runs < 1) throw UserError("measurement: the minimum number of runs must be at least 1");
  if (options.max_runs < options.min_runs)
    throw UserError("measurement: the maximum number of runs (" + std::to_string(options.max_runs) +
                    ") is below the minimum (" + std::to_string(options.min_runs) + ")");
  if (!(options.confidence > 0 && options.confidence < 1))
    throw UserError("measurement: the confidence must lie strictly between 0 and 1");
  if (!(options.ci_relative > 0)) throw UserError("measurement: the CI target must be positive");

  Measurement m;
  m.warmups = options.warmups;
  for (int w = 0; w < options.warmups; ++w) run_once();
  std::vector<double> device, call;
  while (static_cast<int>(m.samples.size()) < options.max_runs) {
    RunTimes t = run_once();
    m.samples.push_back(t);
    device.push_back(t.device_ns);
    call.push_back(t.call_ns);
    if (static_cast<int>(m.samples.size()) < options.min_runs) continue;
    m.device = time_stats(device, options);
    m.call = time_stats(call, options);
    if (m.device.ci_met && m.call.ci_met) break;
  }
  m.runs = static_cast<int>(m.samples.size());
  m.ci_met = m.device.ci_met && m.call.ci_met;
  return m;
}

}  // namespace mdh
