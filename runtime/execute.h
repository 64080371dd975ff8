// Running a LaunchPlan on a Context: build (cached), bind arguments, enqueue every kernel in order, time them.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/launch_plan.h"
#include "runtime/context.h"

namespace mdh {

/// Times of the timed repetitions of one execute_plan call, in nanoseconds.
struct PlanTiming {
  /// Per repetition: the sum over the plan's kernels of CL_PROFILING_COMMAND_END - CL_PROFILING_COMMAND_START.
  std::vector<uint64_t> kernel_ns;
  /// Per repetition: host wall time from the first enqueue to the end of the wait for the last kernel.
  std::vector<uint64_t> wall_ns;
  /// Per kernel of the plan (in launch order), per repetition: that kernel's profiled time; kernel_ns sums them.
  /// With several kernels (a second kernel combining work-groups' partial results) it shows each one's share.
  std::vector<std::vector<uint64_t>> each_kernel_ns;

  uint64_t median_kernel_ns() const;
  uint64_t median_wall_ns() const;
};

/// The median (for an even count, the mean of the two middle values, rounded down); 0 for an empty list.
uint64_t median_ns(std::vector<uint64_t> values);
double median(std::vector<double> values);

/// Whether execute_plan asks for an event per kernel. `profiled`: kernel_ns and each_kernel_ns hold the kernels'
/// times. `plain`: the kernels are enqueued as an application enqueues them, without events, and only wall_ns is
/// filled: a whole-call time without the instrument, whose events cost a launch several microseconds on some
/// drivers (docs/decisions.md).
enum class KernelEvents { profiled, plain };

/// Runs `plan` warmups + repetitions times and times the last `repetitions` runs.
///   buffers:     every spec buffer a KernelArg::Buffer names -> its device buffer;
///   param_bytes: every spec param a KernelArg::Param names -> its value's bytes (see param_bytes()).
/// Builds the program through the Context's cache and takes scratch buffers from the Context's scratch pool.
/// A build or launch failure is a UserError (naming the kernel and its sizes); a missing buffer or param name
/// is an InternalError, since codegen produced the plan from the same spec.
PlanTiming execute_plan(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
                        const std::map<std::string, std::vector<unsigned char>>& param_bytes, int warmups,
                        int repetitions, KernelEvents events = KernelEvents::profiled);

}  // namespace mdh
