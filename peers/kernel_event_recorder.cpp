#include "peers/kernel_event_recorder.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>

#include "support/error.h"

namespace mdh::peers {
namespace {

using EnqueueNDRangeKernel = cl_int(CL_API_CALL*)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*,
                                                  const size_t*, cl_uint, const cl_event*, cl_event*);

// Process-wide by nature: the interposed entry point has no other place to keep its state.
std::atomic<bool> g_recording{false};
std::mutex g_mutex;
std::vector<cl_event> g_events;

EnqueueNDRangeKernel loader_entry() {
  // RTLD_NEXT: the next definition after this executable's, i.e. the ICD loader's.
  static const auto entry = reinterpret_cast<EnqueueNDRangeKernel>(dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel"));
  MDH_INTERNAL_ASSERT(entry != nullptr, "clEnqueueNDRangeKernel not found behind the recorder");
  return entry;
}

}  // namespace

void start_kernel_recording() {
  std::vector<cl_event> old;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    old.swap(g_events);
  }
  for (cl_event e : old) clReleaseEvent(e);
  g_recording = true;
}

std::vector<cl_event> stop_kernel_recording() {
  g_recording = false;
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<cl_event> events;
  events.swap(g_events);
  return events;
}

uint64_t sum_kernel_ns_and_release(std::vector<cl_event>& events) {
  uint64_t total = 0;
  cl_int failure = CL_SUCCESS;
  for (cl_event e : events) {
    cl_ulong start = 0, end = 0;
    cl_int s1 = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    cl_int s2 = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    if (s1 != CL_SUCCESS || s2 != CL_SUCCESS)
      failure = s1 != CL_SUCCESS ? s1 : s2;
    else if (end > start)
      total += end - start;
    clReleaseEvent(e);
  }
  events.clear();
  if (failure != CL_SUCCESS)
    throw UserError("cannot read a kernel's profiling information (OpenCL error " + std::to_string(failure) +
                    "); the queue needs CL_QUEUE_PROFILING_ENABLE");
  return total;
}

uint64_t span_ns_and_release(std::vector<cl_event>& events) {
  cl_ulong first_start = ~cl_ulong{0}, last_end = 0;
  cl_int failure = CL_SUCCESS;
  for (cl_event e : events) {
    cl_ulong start = 0, end = 0;
    cl_int s1 = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    cl_int s2 = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    if (s1 != CL_SUCCESS || s2 != CL_SUCCESS) failure = s1 != CL_SUCCESS ? s1 : s2;
    first_start = std::min(first_start, start);
    last_end = std::max(last_end, end);
    clReleaseEvent(e);
  }
  const bool empty = events.empty();
  events.clear();
  if (failure != CL_SUCCESS)
    throw UserError("cannot read a kernel's profiling information (OpenCL error " + std::to_string(failure) +
                    "); the queue needs CL_QUEUE_PROFILING_ENABLE");
  if (empty) throw UserError("no kernel was recorded; the clEnqueueNDRangeKernel interposer is not in effect");
  return last_end > first_start ? last_end - first_start : 0;
}

}  // namespace mdh::peers

// The interposed OpenCL entry point. Every kernel launch of the process passes through here.
extern "C" CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel,
                                                                  cl_uint work_dim, const size_t* global_offset,
                                                                  const size_t* global_size, const size_t* local_size,
                                                                  cl_uint wait_count, const cl_event* wait_list,
                                                                  cl_event* event) {
  using namespace mdh::peers;
  if (!g_recording)
    return loader_entry()(queue, kernel, work_dim, global_offset, global_size, local_size, wait_count, wait_list,
                          event);
  cl_event own = nullptr;
  cl_int status = loader_entry()(queue, kernel, work_dim, global_offset, global_size, local_size, wait_count, wait_list,
                                 event ? event : &own);
  if (status != CL_SUCCESS) return status;
  cl_event recorded = event ? *event : own;
  if (event) clRetainEvent(recorded);  // the caller releases its reference whenever it likes
  std::lock_guard<std::mutex> lock(g_mutex);
  g_events.push_back(recorded);
  return status;
}
