// A LaunchPlan made ready to enqueue on a Context: program built (cached), kernels and arguments resolved, scratch
// buffers taken from the Context's pool and zeroed where needed. execute_plan and the steady-state instrument
// (steady_timing.h) enqueue calls through it.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/launch_plan.h"
#include "runtime/context.h"
#include "runtime/opencl_handle.h"

namespace mdh {

class PreparedPlan {
 public:
  /// Builds the program through the Context's cache, resolves every kernel argument and zeroes the scratch buffers
  /// the plan marks `zeroed` unless this program's kernels were the last to run on them (they leave them zero).
  ///   buffers:     every spec buffer a KernelArg::Buffer names -> its device buffer;
  ///   param_bytes: every spec param a KernelArg::Param names -> its value's bytes (see param_bytes()).
  /// A build failure is a UserError; a missing buffer or param name an InternalError. `plan`, `buffers` and
  /// `param_bytes` must outlive this object.
  PreparedPlan(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
               const std::map<std::string, std::vector<unsigned char>>& param_bytes);
  PreparedPlan(const PreparedPlan&) = delete;
  PreparedPlan& operator=(const PreparedPlan&) = delete;

  size_t kernel_count() const { return launches_.size(); }
  const KernelLaunch& launch(size_t k) const { return *launches_.at(k).launch; }

  /// Enqueues kernel `k` of one call (its arguments set right before); its event when `with_event`, else an empty
  /// ClEvent. A launch failure is a UserError naming the kernel and its sizes.
  ClEvent enqueue(size_t k, bool with_event);
  /// A profiling time stamp of an event of kernel `k` (CL_PROFILING_COMMAND_START, _END), in ns.
  uint64_t timestamp(const ClEvent& event, size_t k, cl_profiling_info which) const;
  /// END - START of an event of kernel `k` (0 where a driver reports them reversed).
  uint64_t event_ns(const ClEvent& event, size_t k) const;
  /// Waits for the queue to finish; a failed kernel among `events` (pairs of kernel index and its event) is a
  /// UserError naming it (kernels may fail after they were enqueued, e.g. CL_OUT_OF_RESOURCES on a GPU), as is a
  /// failed wait. After it returns, this program's kernels ran last on the scratch buffers and left them zero.
  void wait(const std::vector<std::pair<size_t, const ClEvent*>>& events);

 private:
  // One launch with its kernel object and argument values resolved once.
  struct ArgValue {
    size_t size = 0;
    const void* value = nullptr;
  };
  struct Launch {
    const KernelLaunch* launch = nullptr;
    cl_kernel kernel = nullptr;
    std::vector<cl_mem> mems;  // storage for the cl_mem arguments (ArgValue points into it)
    std::vector<ArgValue> args;
  };

  Context& context_;
  cl_program program_ = nullptr;
  std::vector<Launch> launches_;
};

/// "kernel 'name' (global 1024 x 1024, local 16 x 16)", as errors name a launch.
std::string kernel_text(const KernelLaunch& launch);

}  // namespace mdh
