// `mdh bench`: configurations of one md_hom at one size binding on one device, each checked against the reference,
// then timed interleaved in rounds (round r times configuration 1, 2, ..., each with the steady instrument,
// runtime/steady_timing.h), so that a drift of the device's clocks or temperature falls on all of them alike.
// The reproducible form of an A/B decision: "configuration A against B, interleaved rounds, device time".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mdh/bind.h"
#include "pipeline/kernel.h"
#include "pipeline/run_inputs.h"
#include "pipeline/tuned_store.h"
#include "runtime/device.h"
#include "runtime/measurement.h"
#include "runtime/steady_timing.h"
#include "runtime/verify_result.h"

namespace mdh {

struct BenchConfiguration {
  std::string label;    // as the user named it: a file, "default", "reference", "stored"
  KernelChoice choice;  // KernelChoice::stored: what `mdh run` without --config would take on this device
};

/// What a KernelChoice::stored configuration found in the store (pipeline/tuned_store.h, find_tuned_configuration).
struct BenchStoreLookup {
  std::string store;                         // the store's folder
  std::optional<StoredConfiguration> taken;  // none: the default configuration ran
  std::vector<std::string> notes;            // the lookup's notes, in order: why each result was passed over
};

struct BenchRequest {
  std::string spec_path, sizes;
  ComputePrecision precision = ComputePrecision::fp32;  // `--precision`, as RunRequest's
  std::string device;                                   // selector, as RunRequest::device
  DataOptions data;
  std::vector<BenchConfiguration> configurations;  // at least one
  /// Rounds until every timed configuration's steady median has a CI within measurement.ci_relative, at least
  /// measurement.min_runs and at most measurement.max_runs rounds (`--rounds`).
  MeasurementOptions measurement;
  SteadyOptions steady;
};

/// One configuration's outcome. Times in ns; the stats are empty (runs == 0) for a configuration not timed.
struct BenchEntry {
  std::string label;
  std::string description;                // "tunable kernel, default config", as mdh run says it
  std::optional<nlohmann::json> config;   // the tunable kernel's configuration values
  std::optional<BenchStoreLookup> store;  // for KernelChoice::stored
  size_t kernels_per_call = 0;
  VerifyReport verification;                 // of a call before the timed ones, from a poisoned output
  std::optional<VerifyReport> after_timing;  // of one more such call after the rounds (timed entries)
  bool timed = false;                        // verification passed
  int calls_per_pair = 0;                    // the steady instrument's N
  int runs = 0;                              // rounds this entry was timed in
  TimeStats steady;                          // per-call time of N calls between one pair of time stamps
  TimeStats call;                            // host wall time of one call without events, first enqueue to finish
  TimeStats event_sum;                       // sum of one call's kernel events: a diagnostic only
  std::vector<double> steady_samples, call_samples, event_sum_samples;  // one per round, in round order
};

/// How an entry's steady time compares with the first timed entry's.
struct BenchComparison {
  double ratio = 1;  // this median / the first's median
  bool tie = true;   // the two 95% CIs of the medians overlap
};
BenchComparison compare_steady(const BenchEntry& first, const BenchEntry& other);

struct BenchOutcome {
  BoundMdh bound;
  DeviceInfo device;
  std::vector<BenchEntry> entries;  // in the order of the request
  int rounds = 0;
  bool ci_met = false;  // every timed entry's steady CI met the target (false where none was timed)
  bool reference_in_double = false;
};

/// The whole measurement. A configuration that cannot be read or generated is a UserError before any device time;
/// a failed verification is recorded in its entry, which is then not timed. `progress` (optional) hears a line per
/// stage.
BenchOutcome bench_md_hom(const BenchRequest& request,
                          const std::function<void(const std::string&)>& progress = nullptr);

}  // namespace mdh
