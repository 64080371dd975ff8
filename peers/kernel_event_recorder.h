// Device time of a library call that enqueues several kernels but returns one event (CLBlast: pad, transpose and
// the main GEMM kernel). The peer program defines clEnqueueNDRangeKernel itself, forwarding to the OpenCL ICD
// loader's; while recording, it keeps an event of every kernel enqueued by anyone in the process, so the sum of
// their profiled durations is the device time of the whole call.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <vector>

namespace mdh::peers {

/// Starts recording (drops anything recorded before).
void start_kernel_recording();

/// Stops recording; returns the events recorded since start_kernel_recording(). Each is retained for the caller.
std::vector<cl_event> stop_kernel_recording();

/// Sum of CL_PROFILING_COMMAND_END - START over `events` (which must have completed, on a profiling queue), then
/// releases them. UserError when a profile cannot be read.
uint64_t sum_kernel_ns_and_release(std::vector<cl_event>& events);

/// The earliest CL_PROFILING_COMMAND_START to the latest END over `events` (completed, on a profiling queue): the
/// device time that a sequence of calls spans, launch gaps included. Releases them; UserError as above.
uint64_t span_ns_and_release(std::vector<cl_event>& events);

}  // namespace mdh::peers
