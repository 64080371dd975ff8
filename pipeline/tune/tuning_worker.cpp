// A tuning worker: the request's spec, device and space rebuilt in this process, then configurations served.
#include "pipeline/tune/tuning_worker.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "codegen/config_json.h"
#include "pipeline/compute_precision.h"
#include "pipeline/cost_function.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/kernel.h"
#include "pipeline/md_hom_run.h"
#include "pipeline/pipeline.h"
#include "pipeline/shared_reference.h"
#include "pipeline/tuning_request.h"
#include "runtime/binary_cache.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/first_launch.h"
#include "runtime/icd_diagnostics.h"
#include "tuner/evaluate/worker_pool.h"

namespace mdh {

int serve_tuning_worker(const std::string& request_path, size_t device_index, bool compile_only) {
  // Where the start-up goes, for the "ready" line: a worker restarted after a timeout or crash pays it again.
  tuner::StageSeconds start_up;
  tuner::StageClock start_up_clock(start_up);
  const TuningRequest request = TuningRequest::read(request_path);
  if (device_index >= request.device_selectors.size())
    throw UserError("tune-worker: no device " + std::to_string(device_index) + " in the request");
  BoundMdh bound = load_and_bind(request.spec_path, request.sizes);
  // Before the first OpenCL call: NVIDIA's driver reads it when it loads (see TuningRequest::nvidia_compute_cache).
  if (!request.nvidia_compute_cache.empty()) ::setenv("CUDA_CACHE_PATH", request.nvidia_compute_cache.c_str(), 1);
  DeviceInfo device;
  try {
    device = select_device(request.device_selectors[device_index]);
  } catch (const UserError& e) {
    // The parent saw this device a moment ago: say what differs in this process (it lands in the journal's reason).
    throw UserError(std::string(e.what()) + "\nin the worker process:\n" + describe_icd_loading());
  }
  const DeviceLimits limits = device_limits(device);
  settle_precision(bound, request.precision, limits, device.name, nullptr);  // the tuner noted it
  auto space = std::make_shared<const TuningSpace>(
      restricted_tuning_space(bound, limits, request.restrictions, request.full_ranges));
  start_up_clock.end("spec, device and space");
  Context context(device);
  if (!request.binary_cache.empty()) context.use_binary_cache(std::make_shared<BinaryCache>(request.binary_cache));
  const CostSettings cost_settings = tuning_cost_settings(request, limits);
  start_up_clock.end("context");
  if (compile_only) {
    // Where the driver compiles at first launch (PoCL), the launch is part of the build: zeroed buffers of the run's
    // sizes, made at the first build, and the run's params take the one-work-group launches.
    const bool launch_to_compile = compiles_at_first_launch(device);
    context.store_binaries_at_build(!launch_to_compile);
    std::map<std::string, DeviceBuffer> launch_buffers;
    std::map<std::string, std::vector<unsigned char>> launch_params;
    return tuner::serve_worker_requests(
        [&](const nlohmann::json& json, const tuner::EvaluationContext&) {
          // The binary goes into the cache with its build log, from which the evaluating worker judges spills.
          LaunchPlan plan = prepare_kernel(bound, limits, KernelChoice::typed(config_from_json(bound, json))).plan;
          plan.build_options = tuning_build_options(plan.build_options, cost_settings);
          const auto begin = std::chrono::steady_clock::now();
          tuner::EvaluationResult built = tuner::EvaluationResult::ok(0);
          try {
            context.program(plan.source, plan.build_options);
          } catch (const UserError& e) {
            built = tuner::EvaluationResult::failed(tuner::EvaluationStatus::build_error, e.what());
          }
          if (launch_to_compile && built.status == tuner::EvaluationStatus::ok) {
            try {
              if (launch_buffers.empty()) {
                launch_buffers = zeroed_device_buffers(context, bound);
                launch_params = checked_param_bytes(bound, request.data.params);
              }
              compile_first_launches(context, plan, buffer_handles(launch_buffers), launch_params);
            } catch (const UserError& e) {
              built = tuner::EvaluationResult::failed(tuner::EvaluationStatus::launch_error, e.what());
            }
          }
          // The build's own time, failed or not, for the run's compile deadline (pipeline/tune/compile_ahead.h).
          tuner::add_stage_seconds(built.stage_seconds, kProgramStage,
                                   std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
          return built;
        },
        start_up);
  }
  RunInputs data = load_run_inputs(bound, request.data);
  MdHomRun run(context, bound, std::move(data.inputs), data.params, data.seed);
  start_up_clock.end("inputs");
  // Once per run, before the first deadline-bound evaluation: read where an earlier worker saved it.
  std::optional<SharedReference> shared;
  try {
    if (!request.shared_reference.empty())
      shared = load_shared_reference(request.shared_reference, make_host_buffer(bound, bound.output.buffer));
  } catch (const UserError& e) {
    std::cerr << "note: " << e.what() << "; computing the reference output again\n";
  }
  if (shared) {
    run.adopt_reference(std::move(shared->output), shared->in_double);
    start_up_clock.end("reference (shared)");
  } else {
    const HostBuffer& reference = run.reference_output();
    try {
      if (!request.shared_reference.empty())
        save_shared_reference(request.shared_reference, reference, run.reference_in_double());
    } catch (const UserError& e) {
      std::cerr << "note: " << e.what() << "; a worker started later computes the reference output again\n";
    }
    start_up_clock.end("reference");
  }
  MdHomCostFunction cost(run, space, limits, cost_settings);
  return tuner::serve_worker_requests(
      [&](const nlohmann::json& json, const tuner::EvaluationContext& context) {
        // The tuner sends a configuration in the config JSON form (named values), the one form every stage reads.
        KernelConfig config;
        try {
          config = config_from_json(bound, json);
        } catch (const UserError& e) {
          return tuner::EvaluationResult::failed(tuner::EvaluationStatus::constraint, e.what());
        }
        return cost.evaluate(config, context);
      },
      start_up);
}

}  // namespace mdh
