// The one measurement method for mdh and every peer (GEMMbench discipline): warm-ups, then repetitions until the
// 95% confidence interval of the median is within 2% of the median (for both quantities), or a run limit.
// Knows nothing about OpenCL or MDH: it takes a callable that performs one run and reports its times.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace mdh {

/// The two times of one run, in nanoseconds.
struct RunTimes {
  double device_ns = 0;  // on the device (sum of kernel events, or the wall time for CPU libraries)
  double call_ns = 0;    // the whole call as the application sees it, until the result is ready
};

struct MeasurementOptions {
  int warmups = 2;            // untimed runs first (kernel builds, caches, thread pools)
  int min_runs = 5;           // never stop before this many timed runs
  int max_runs = 200;         // stop here even if the CI target is missed
  double confidence = 0.95;   // of the median's confidence interval
  double ci_relative = 0.02;  // target: both CI ends within this share of the median
};

/// Order statistics of one quantity over the timed runs.
struct TimeStats {
  double median_ns = 0;  // mean of the two middle values for an even count
  double min_ns = 0;
  double max_ns = 0;
  double stddev_ns = 0;  // sample standard deviation (n - 1); 0 for one run
  double ci_low_ns = 0;  // the distribution-free CI of the median; equal to min/max when too few runs
  double ci_high_ns = 0;
  bool ci_met = false;  // both CI ends within ci_relative of the median
};

struct Measurement {
  TimeStats device, call;
  int runs = 0;  // timed runs
  int warmups = 0;
  bool ci_met = false;  // device.ci_met && call.ci_met
  std::vector<RunTimes> samples;
};

/// The 1-based ranks (l, u) of the order statistics that bound a `confidence` CI of the median of n samples:
/// l is the largest rank with P(B < l) <= (1 - confidence) / 2 for B ~ Binomial(n, 1/2), and u = n + 1 - l
/// (coverage P(l <= B < u) >= confidence, no assumption on the distribution). l = 0 means no finite interval
/// exists at this n (e.g. n <= 5 at 95%).
std::pair<size_t, size_t> median_ci_ranks(size_t n, double confidence);

/// Median, min, max, stddev and the median's CI of `values` (non-empty) against `options`.
TimeStats time_stats(std::vector<double> values, const MeasurementOptions& options);

/// Calls `run_once` options.warmups times untimed, then at least min_runs times, stopping after the first run at
/// which both quantities meet the CI target or at max_runs. Throws UserError for inconsistent options.
Measurement measure(const std::function<RunTimes()>& run_once, const MeasurementOptions& options = {});

}  // namespace mdh
