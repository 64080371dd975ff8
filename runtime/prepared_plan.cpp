#include "runtime/prepared_plan.h"

#include <algorithm>
#include <array>

#include "runtime/opencl_error.h"
#include "support/error.h"

namespace mdh {

namespace {
std::string sizes_text(const KernelLaunch& k) {
  auto dims = [&](const std::array<uint64_t, 3>& s) {
    std::string out;
    for (int d = 0; d < k.work_dims; ++d) out += (d ? " x " : "") + std::to_string(s[d]);
    return out;
  };
  return "global " + dims(k.global_size) + ", local " +
         (k.local_size ? dims(*k.local_size) : std::string("chosen by OpenCL"));
}
}  // namespace

std::string kernel_text(const KernelLaunch& k) {
  return "kernel '" + k.kernel_name + "' (" + sizes_text(k) + ")";
}

PreparedPlan::PreparedPlan(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
                           const std::map<std::string, std::vector<unsigned char>>& param_bytes)
    : context_(context) {
  MDH_INTERNAL_ASSERT(!plan.kernels.empty(), "a launch plan without kernels");
  program_ = context.program(plan.source, plan.build_options);
  std::vector<cl_mem> scratch;
  for (size_t s = 0; s < plan.scratch.size(); ++s) scratch.push_back(context.scratch(s, plan.scratch[s].bytes));
  // Zero before the first launch, unless this program's kernels were the last to run on the buffers and finished:
  // they leave them zero, so a program's repeated calls need no fill, as an application's calls through
  // mdh_runner.hpp's Runner have none, and a fill before each call lengthens short kernels (docs/decisions.md).
  // Otherwise the pool's buffers may hold another plan's partial results. A kernel that failed to reset them is
  // caught by a checked call after the timed ones (peers/peer_common.cpp, pipeline/cost_function.cpp).
  const bool left_zero = context.scratch_left_zero_by() == program_;
  context.set_scratch_left_zero_by(nullptr);  // until this plan's kernels have finished
  for (size_t s = 0; s < plan.scratch.size() && !left_zero; ++s) {
    if (plan.scratch[s].zeroed) {
      const cl_uchar zero = 0;
      check(clEnqueueFillBuffer(context.queue(), scratch[s], &zero, sizeof zero, 0,
                                std::max<size_t>(plan.scratch[s].bytes, 1), 0, nullptr, nullptr),
            "clEnqueueFillBuffer (zeroing scratch buffer '" + plan.scratch[s].purpose + "')");
    }
  }

  launches_.resize(plan.kernels.size());
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const KernelLaunch& launch = plan.kernels[k];
    MDH_INTERNAL_ASSERT(
        launch.work_dims >= 1 && launch.work_dims <= 3,
        "kernel '" + launch.kernel_name + "' has " + std::to_string(launch.work_dims) + " work dimensions");
    Launch& p = launches_[k];
    p.launch = &launch;
    p.kernel = context.kernel(program_, launch.kernel_name);
    p.mems.reserve(launch.args.size());  // ArgValue keeps pointers into mems: no reallocation allowed
    for (const KernelArg& arg : launch.args) {
      switch (arg.kind) {
        case KernelArg::Kind::Buffer: {
          auto found = buffers.find(arg.name);
          MDH_INTERNAL_ASSERT(found != buffers.end(), "kernel '" + launch.kernel_name + "' takes buffer '" + arg.name +
                                                          "', which the caller did not supply");
          p.mems.push_back(found->second);
          p.args.push_back({sizeof(cl_mem), &p.mems.back()});
          break;
        }
        case KernelArg::Kind::Scratch:
          MDH_INTERNAL_ASSERT(arg.scratch >= 0 && static_cast<size_t>(arg.scratch) < scratch.size(),
                              "kernel '" + launch.kernel_name + "' takes scratch buffer " +
                                  std::to_string(arg.scratch) + " of a plan with " + std::to_string(scratch.size()));
          p.mems.push_back(scratch[arg.scratch]);
          p.args.push_back({sizeof(cl_mem), &p.mems.back()});
          break;
        case KernelArg::Kind::Param: {
          auto found = param_bytes.find(arg.name);
          MDH_INTERNAL_ASSERT(found != param_bytes.end(), "kernel '" + launch.kernel_name + "' takes param '" +
                                                              arg.name + "', which the caller did not supply");
          p.args.push_back({found->second.size(), found->second.data()});
          break;
        }
      }
    }
  }
}

// Arguments are set right before each enqueue: a plan may launch the same kernel twice with different
// arguments, and OpenCL captures argument values at enqueue time.
ClEvent PreparedPlan::enqueue(size_t k, bool with_event) {
  const Launch& p = launches_.at(k);
  const KernelLaunch& launch = *p.launch;
  context_.set_scratch_left_zero_by(nullptr);  // until a wait has seen this launch finish
  for (size_t a = 0; a < p.args.size(); ++a)
    check(clSetKernelArg(p.kernel, static_cast<cl_uint>(a), p.args[a].size, p.args[a].value),
          "setting argument " + std::to_string(a) + " of " + kernel_text(launch));
  size_t global[3], local[3];
  for (int d = 0; d < 3; ++d) {
    global[d] = static_cast<size_t>(launch.global_size[d]);
    local[d] = launch.local_size ? static_cast<size_t>((*launch.local_size)[d]) : 1;
  }
  cl_event event = nullptr;
  check(clEnqueueNDRangeKernel(context_.queue(), p.kernel, static_cast<cl_uint>(launch.work_dims), nullptr, global,
                               launch.local_size ? local : nullptr, 0, nullptr, with_event ? &event : nullptr),
        "launching " + kernel_text(launch));
  return ClEvent(event);
}

uint64_t PreparedPlan::timestamp(const ClEvent& event, size_t k, cl_profiling_info which) const {
  cl_ulong time = 0;
  check(clGetEventProfilingInfo(event.get(), which, sizeof time, &time, nullptr),
        std::string(which == CL_PROFILING_COMMAND_START ? "reading the start time of "
                    : which == CL_PROFILING_COMMAND_END ? "reading the end time of "
                                                        : "reading a time stamp of ") +
            kernel_text(launch(k)));
  return time;
}

uint64_t PreparedPlan::event_ns(const ClEvent& event, size_t k) const {
  const uint64_t start = timestamp(event, k, CL_PROFILING_COMMAND_START);
  const uint64_t end = timestamp(event, k, CL_PROFILING_COMMAND_END);
  return end >= start ? end - start : 0;
}

void PreparedPlan::wait(const std::vector<std::pair<size_t, const ClEvent*>>& events) {
  const cl_int finish_status = clFinish(context_.queue());
  for (const auto& [k, event] : events) {
    cl_int status = CL_COMPLETE;
    check(clGetEventInfo(event->get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
          "clGetEventInfo");
    if (status < 0) check(status, "running " + kernel_text(launch(k)));
  }
  check(finish_status, "waiting for the plan's kernels");
  context_.set_scratch_left_zero_by(program_);  // every launch finished (a failed one threw above)
}

}  // namespace mdh
