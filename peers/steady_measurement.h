// The steady instrument every program of a benchmark row is measured with: the time per call of N calls enqueued
// back to back between ONE pair of device timestamps, so that the launch and host work of one call overlap the
// device work of the one before, as in an application that calls the routine in a loop. N is chosen so that the pair
// spans at least kSteadySpanNs or kSteadyMaxCalls calls; samples are repeated with runtime/measurement.h's machinery
// until the median's 95% confidence interval lies within the case's --ci.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/measurement.h"
#include "runtime/steady_timing.h"

namespace mdh::peers {

/// The callback a program provides (PeerSetup::steady_calls): enqueue `n` whole calls back to back, with nothing
/// between them, between one pair of device timestamps, wait until they have finished, and return the device time
/// between the two timestamps in ns (the total, not per call). CUDA: one cudaEvent pair on the calls' stream. OpenCL:
/// the first command's CL_PROFILING_COMMAND_START to the last command's END. CPU libraries: the host steady clock
/// around the n calls. mdh's own kernels: runtime/steady_timing's enqueue of n calls fits this shape directly.
using SteadyCalls = std::function<double(int n)>;

// A pair of timestamps spans at least this much device time or this many calls (runtime/steady_timing.h, which
// mdh's own kernels use too: one rule for every program of a row).
constexpr double kSteadySpanNs = SteadyOptions{}.min_span_ns;
constexpr int kSteadyMaxCalls = SteadyOptions{}.min_calls;

/// The calls per sample, chosen by runtime/steady_timing.h's choose_calls_per_pair from the peer's totals (a few
/// calibration samples, which also warm up).
int choose_steady_calls(const SteadyCalls& steady_calls);

struct SteadyMeasurement {
  int calls_per_sample = 0;
  Measurement per_call;  // per_call.device: the per-call time of each sample (call holds the same values)
};

/// Chooses the calls per sample, then measures samples (total / n each) with `options` until the median's CI is met
/// or options.max_runs. Throws UserError for a non-positive or non-finite total.
SteadyMeasurement measure_steady(const SteadyCalls& steady_calls, const MeasurementOptions& options);

/// {median, min, max, stddev, ci_low, ci_high} of one measured quantity, in nanoseconds, as every record writes it.
nlohmann::json time_stats_json(const TimeStats& stats);

/// The record's fields of the instrument: "steady_time_ns" (the per-call statistics, as device_time_ns) and
/// "steady" {calls_per_sample, samples, ci_met, includes}.
nlohmann::json steady_record_fields(const SteadyMeasurement& steady, const std::string& includes);

}  // namespace mdh::peers
