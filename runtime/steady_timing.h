// The steady-state instrument: the time per call of N calls of a plan enqueued back to back between one pair of
// device time stamps (the first kernel's START in the first call, the last kernel's END in the last call), so that
// every kernel of a call counts (a second `_combine_wg` kernel included) and the per-event overhead of a profiling
// queue does not. N is chosen so that the pair spans at least a millisecond or enough calls. Knows nothing of MDH
// specs: it takes a LaunchPlan and the buffers its kernels take.
#pragma once

#include <CL/cl.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "codegen/launch_plan.h"
#include "runtime/context.h"
#include "runtime/measurement.h"

namespace mdh {

struct SteadyOptions {
  double min_span_ns = 1e6;  // a pair of time stamps spans at least this much device time ...
  int min_calls = 100;       // ... or at least this many calls, whichever N reaches first
  int warmup_calls = 2;      // plain calls before N is chosen (PoCL compiles a kernel at its first launch)
};

/// UserError for options that cannot choose an N (min_calls < 1, min_span_ns not positive, negative warm-ups).
void check_steady_options(const SteadyOptions& options);

/// The calls per pair of time stamps: the first N with span_ns(N) >= options.min_span_ns or N >= options.min_calls.
/// `span_ns(n)` runs n calls back to back and returns the device time they span. Starts at one call and grows by the
/// per-call time the last span shows (at least one call more each step), so a steady device needs two or three
/// spans. Pure apart from `span_ns`: the tests give it a fake clock.
int choose_calls_per_pair(const std::function<double(int calls)>& span_ns, const SteadyOptions& options);

/// One plan on one Context, calibrated: each sample() is one pair of time stamps around calls_per_pair() calls.
/// The plan and the buffers must outlive it (it keeps copies of the maps). Other plans may run on the Context between
/// samples: each sample prepares the plan again (cached program and kernels; scratch buffers zeroed where another
/// program used them last).
class SteadyTimer {
 public:
  /// Runs the warm-up calls and chooses N (choose_calls_per_pair). Build and launch failures are UserErrors.
  SteadyTimer(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
              const std::map<std::string, std::vector<unsigned char>>& param_bytes, const SteadyOptions& options = {});

  int calls_per_pair() const { return calls_per_pair_; }
  /// N calls between one pair of time stamps: the device time per call, in ns.
  double sample();
  /// The device time that `calls` calls back to back span, in ns (what sample() divides by N).
  double span_ns(int calls);

 private:
  Context& context_;
  const LaunchPlan& plan_;
  std::map<std::string, cl_mem> buffers_;
  std::map<std::string, std::vector<unsigned char>> param_bytes_;
  int calls_per_pair_ = 1;
};

/// Samples of `timer` until their median's CI meets `measurement` (its confidence, ci_relative, min_runs and
/// max_runs; the warm-ups were the timer's). UserError for inconsistent sample counts.
struct SteadyTiming {
  int calls_per_pair = 0;
  std::vector<double> per_call_ns;  // one per sample
  TimeStats stats;
  bool ci_met = false;
};
SteadyTiming steady_time(SteadyTimer& timer, const MeasurementOptions& measurement);

}  // namespace mdh
