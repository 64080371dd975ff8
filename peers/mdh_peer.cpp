// peer_mdh: mdh's own tunable kernel measured exactly like every peer (same inputs, same check, same method,
// same JSON record), so that benchmark tables compare like with like. --config takes an `mdh tune` result.
#include <memory>
#include <nlohmann/json.hpp>

#include "codegen/config_json.h"
#include "peers/peer_common.h"
#include "pipeline/compute_precision.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/kernel.h"
#include "runtime/device.h"

namespace mdh::peers {
namespace {

PeerSetup prepare_mdh(PeerCase& pc) {
  const DeviceInfo& device = pc.context().device();
  const DeviceLimits limits = device_limits(device);
  auto config_path = pc.options().extra.find("config");
  const bool tuned = config_path != pc.options().extra.end();
  // The precision asked for where the device and the md_hom allow it; otherwise fp32, which run_and_record then
  // refuses as a precision other than the one asked for.
  BoundMdh bound = pc.bound();
  settle_precision(bound, pc.options().precision, limits, device.name, nullptr);
  PreparedKernel kernel = prepare_kernel(
      bound, limits, tuned ? KernelChoice::file(config_path->second) : KernelChoice::default_configuration());
  const KernelConfig config = *kernel.config;
  auto plan = std::make_shared<LaunchPlan>(std::move(kernel.plan));

  PeerSetup setup;
  setup.peer = tuned ? "mdh" : "mdh-default";
  setup.precision = bound.precision;
  setup.library_version = "mdh tunable kernel (OpenCL C), " + device.platform_name + " " + device.driver_version;
  setup.device_name = device.name;
  setup.layouts = "as the spec's views declare them (row-major buffers)";
  setup.device_time_includes = "sum of the profiling-event times of every kernel of the configuration (" +
                               std::to_string(plan->kernels.size()) + " per call)";
  setup.call_time_includes =
      "host wall time from the first enqueue until the last kernel has finished, in a call of its own after each "
      "timed one, whose kernels have no events (as an application enqueues them)";
  setup.notes["config"] = tuned ? config_path->second : "default";
  setup.notes["kernels_per_call"] = plan->kernels.size();
  setup.notes["config_values"] = config_to_json(bound, config);
  MdHomRun& run = pc.md_hom_run();
  // The first call is the checked one (peer_common.h) and starts from a poisoned output; the timed calls after it
  // follow one another as an application's do, with no fill between them (OutputPoison).
  setup.run_once = [&run, plan, poison = OutputPoison::before_first_run]() mutable {
    PlanTiming t = run.run(*plan, 0, 1, KernelEvents::profiled, poison);
    poison = OutputPoison::none;
    return RunTimes{static_cast<double>(t.kernel_ns.at(0)), static_cast<double>(t.wall_ns.at(0))};
  };
  setup.plain_call = [&run, plan] {
    return static_cast<double>(run.run(*plan, 0, 1, KernelEvents::plain, OutputPoison::none).wall_ns.at(0));
  };
  // The timed calls run on the counters the previous call's kernels reset (no fill between calls of one program,
  // runtime/execute.cpp): one more call from a poisoned output is checked after them.
  setup.checked_call = [&run, plan] { run.run(*plan, 0, 1, KernelEvents::plain, OutputPoison::before_first_run); };
  setup.read_output = [&run] { return run.read_output(); };
  // The steady instrument: n calls of the plan between the first kernel's START and the last kernel's END
  // (runtime/steady_timing.h); the timer warms up once, at the harness's first request.
  setup.steady_calls = [&run, plan, timer = std::shared_ptr<SteadyTimer>()](int n) mutable {
    if (!timer) timer = std::make_shared<SteadyTimer>(run.steady_timer(*plan));
    return timer->span_ns(n);
  };
  setup.steady_time_includes =
      "the device time from the first kernel's start in the first call to the last "
      "kernel's end in the last call, every kernel of the configuration (" +
      std::to_string(plan->kernels.size()) + " per call)";
  return setup;
}

}  // namespace
}  // namespace mdh::peers

int main(int argc, char** argv) {
  return mdh::peers::peer_main(argc, argv, "peer_mdh",
                               {{"config", "tunable-kernel configuration: an `mdh tune` result or a config JSON"}},
                               mdh::peers::prepare_mdh);
}
