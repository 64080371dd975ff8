#include "runtime/execute.h"

#include <algorithm>
#include <chrono>

#include "runtime/opencl_error.h"
#include "support/error.h"

namespace mdh {

namespace {
// One kernel argument ready for clSetKernelArg.
struct ArgValue {
  size_t size = 0;
  const void* value = nullptr;
};

// One launch with its kernel object and argument values resolved once per execute_plan call.
struct PreparedLaunch {
  const KernelLaunch* launch = nullptr;
  cl_kernel kernel = nullptr;
  std::vector<cl_mem> mems;  // storage for the cl_mem arguments (ArgValue points into it)
  std::vector<ArgValue> args;
};

std::string sizes_text(const KernelLaunch& k) {
  auto dims = [&](const std::array<uint64_t, 3>& s) {
    std::string out;
    for (int d = 0; d < k.work_dims; ++d) out += (d ? " x " : "") + std::to_string(s[d]);
    return out;
  };
  return "global " + dims(k.global_size) + ", local " +
         (k.local_size ? dims(*k.local_size) : std::string("chosen by OpenCL"));
}

std::string kernel_text(const KernelLaunch& k) {
  return "kernel '" + k.kernel_name + "' (" + sizes_text(k) + ")";
}

std::vector<PreparedLaunch> prepare_launches(Context& context, cl_program program, const LaunchPlan& plan,
                                             const std::map<std::string, cl_mem>& buffers,
                                             const std::map<std::string, std::vector<unsigned char>>& param_bytes) {
  std::vector<cl_mem> scratch;
  for (size_t s = 0; s < plan.scratch.size(); ++s) scratch.push_back(context.scratch(s, plan.scratch[s].bytes));
  // Zero before the first launch, unless this program's kernels were the last to run on the buffers and finished:
  // they leave them zero, so neither the repetitions nor the next call need a fill, as an application's calls
  // through mdh_runner.hpp's Runner have none. Otherwise the pool's buffers may hold another plan's partial results.
  // Fills before every call would lengthen short kernels measurably (docs/decisions.md). A kernel that failed to
  // reset them is caught by a checked call after the timed ones (peers/peer_common.cpp, pipeline/cost_function.cpp),
  // and it only misleads its own program's calls.
  const bool left_zero = context.scratch_left_zero_by() == program;
  context.set_scratch_left_zero_by(nullptr);  // until this call's kernels have finished
  for (size_t s = 0; s < plan.scratch.size() && !left_zero; ++s) {
    if (plan.scratch[s].zeroed) {
      const cl_uchar zero = 0;
      check(clEnqueueFillBuffer(context.queue(), scratch[s], &zero, sizeof zero, 0,
                                std::max<size_t>(plan.scratch[s].bytes, 1), 0, nullptr, nullptr),
            "clEnqueueFillBuffer (zeroing scratch buffer '" + plan.scratch[s].purpose + "')");
    }
  }

  std::vector<PreparedLaunch> prepared(plan.kernels.size());
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    const KernelLaunch& launch = plan.kernels[k];
    MDH_INTERNAL_ASSERT(
        launch.work_dims >= 1 && launch.work_dims <= 3,
        "kernel '" + launch.kernel_name + "' has " + std::to_string(launch.work_dims) + " work dimensions");
    PreparedLaunch& p = prepared[k];
    p.launch = &launch;
    p.kernel = context.kernel(program, launch.kernel_name);
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
  return prepared;
}

// Arguments are set right before each enqueue: a plan may launch the same kernel twice with different
// arguments, and OpenCL captures argument values at enqueue time.
ClEvent enqueue(Context& context, const PreparedLaunch& p, KernelEvents events) {
  const KernelLaunch& launch = *p.launch;
  for (size_t a = 0; a < p.args.size(); ++a)
    check(clSetKernelArg(p.kernel, static_cast<cl_uint>(a), p.args[a].size, p.args[a].value),
          "setting argument " + std::to_string(a) + " of " + kernel_text(launch));
  size_t global[3], local[3];
  for (int d = 0; d < 3; ++d) {
    global[d] = static_cast<size_t>(launch.global_size[d]);
    local[d] = launch.local_size ? static_cast<size_t>((*launch.local_size)[d]) : 1;
  }
  cl_event event = nullptr;
  check(clEnqueueNDRangeKernel(context.queue(), p.kernel, static_cast<cl_uint>(launch.work_dims), nullptr, global,
                               launch.local_size ? local : nullptr, 0, nullptr,
                               events == KernelEvents::profiled ? &event : nullptr),
        "launching " + kernel_text(launch));
  return ClEvent(event);
}

uint64_t profiled_ns(const ClEvent& event, const KernelLaunch& launch) {
  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(event.get(), CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
        "reading the start time of " + kernel_text(launch));
  check(clGetEventProfilingInfo(event.get(), CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
        "reading the end time of " + kernel_text(launch));
  return end >= start ? end - start : 0;
}

// Kernels may fail after they were enqueued (e.g. CL_OUT_OF_RESOURCES on a GPU); the event then carries the
// error code, so look at every event to name the kernel that failed (without events the wait's status says it).
void wait_for(Context& context, const std::vector<PreparedLaunch>& prepared, const std::vector<ClEvent>& events) {
  cl_int finish_status = clFinish(context.queue());
  for (size_t k = 0; k < events.size(); ++k) {
    cl_int status = CL_COMPLETE;
    check(clGetEventInfo(events[k].get(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
          "clGetEventInfo");
    if (status < 0) check(status, "running " + kernel_text(*prepared[k].launch));
  }
  check(finish_status, "waiting for the plan's kernels");
}
}  // namespace

uint64_t median_ns(std::vector<uint64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return values[n / 2 - 1] / 2 + values[n / 2] / 2 + (values[n / 2 - 1] % 2 + values[n / 2] % 2) / 2;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

uint64_t PlanTiming::median_kernel_ns() const {
  return median_ns(kernel_ns);
}
uint64_t PlanTiming::median_wall_ns() const {
  return median_ns(wall_ns);
}

PlanTiming execute_plan(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
                        const std::map<std::string, std::vector<unsigned char>>& param_bytes, int warmups,
                        int repetitions, KernelEvents kernel_events) {
  MDH_INTERNAL_ASSERT(warmups >= 0 && repetitions >= 0, "negative warm-up or repetition count");
  MDH_INTERNAL_ASSERT(!plan.kernels.empty(), "a launch plan without kernels");
  const cl_program program = context.program(plan.source, plan.build_options);
  std::vector<PreparedLaunch> prepared = prepare_launches(context, program, plan, buffers, param_bytes);

  PlanTiming timing;
  timing.each_kernel_ns.resize(prepared.size());
  for (int run = 0; run < warmups + repetitions; ++run) {
    auto wall_start = std::chrono::steady_clock::now();
    std::vector<ClEvent> events;
    events.reserve(prepared.size());
    for (const PreparedLaunch& p : prepared) {
      ClEvent event = enqueue(context, p, kernel_events);
      if (event.get()) events.push_back(std::move(event));
    }
    wait_for(context, prepared, events);
    auto wall_end = std::chrono::steady_clock::now();
    if (run < warmups) continue;
    if (kernel_events == KernelEvents::plain) {
      timing.wall_ns.push_back(
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall_end - wall_start).count()));
      continue;
    }

    uint64_t kernel_sum = 0;
    for (size_t k = 0; k < events.size(); ++k) {
      const uint64_t ns = profiled_ns(events[k], *prepared[k].launch);
      timing.each_kernel_ns[k].push_back(ns);
      kernel_sum += ns;
    }
    timing.kernel_ns.push_back(kernel_sum);
    timing.wall_ns.push_back(
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall_end - wall_start).count()));
  }
  context.set_scratch_left_zero_by(program);  // every launch finished (wait_for throws for one that failed)
  return timing;
}

}  // namespace mdh
