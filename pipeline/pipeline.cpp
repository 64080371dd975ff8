// The pipeline driver (see pipeline.h).
#include "pipeline/pipeline.h"

#include "codegen/generated_names.h"
#include "mdh/parser.h"
#include "pipeline/buffer_fit.h"
#include "pipeline/compute_precision.h"
#include "pipeline/md_hom_run.h"

namespace mdh {

std::shared_ptr<const Mdh> load_spec(const std::string& spec_path) {
  return parse_spec_file(spec_path, generated_name_reason);  // lexer, parser and checks: mdh/; names: codegen/
}

BoundMdh load_and_bind(const std::string& spec_path, const std::string& sizes) {
  return bind(load_spec(spec_path), parse_size_binding(sizes));
}

RunOutcome run_md_hom(const RunRequest& request) {
  if (request.repeat < 1) throw UserError("--repeat must be at least 1");
  if (request.warmup < 0) throw UserError("--warmup must not be negative");
  // 1. Spec -> checked IR -> sizes bound (mdh/).
  BoundMdh bound = load_and_bind(request.spec_path, request.sizes);
  const Mdh& mdh = *bound.mdh;
  if (!request.output_buffer.empty() && mdh.find_buffer(request.output_buffer) != bound.output.buffer)
    throw UserError("--output " + request.output_buffer + ": the output of " + mdh.name + " is '" +
                    mdh.buffers[bound.output.buffer].name + "'");
  // 2. The data: files and generated records now, so that a bad file fails before any device work.
  RunInputs inputs = load_run_inputs(bound, request.data);
  // 3. The device and the limits that bound its configurations (runtime/); sizes it cannot hold fail here.
  DeviceInfo device = select_device(request.device);
  const DeviceLimits limits = device_limits(device);
  settle_precision(bound, request.precision, limits, device.name, request.note);
  check_buffers_fit(bound, device, host_memory_bytes());
  // 4. Configuration (given, or the one tuned for the nearest sizes in the store) -> OpenCL C and launch plan.
  std::optional<StoredConfiguration> stored;
  const KernelChoice choice = resolve_kernel_choice(request.kernel, bound, device, limits, request.note, &stored);
  PreparedKernel kernel = prepare_kernel(bound, limits, choice);
  if (request.note &&
      (choice.kind == KernelChoice::Kind::config_file || choice.kind == KernelChoice::Kind::config_json))
    if (auto note = outside_default_space_note(
            bound, *kernel.config, limits,
            choice.kind == KernelChoice::Kind::config_file ? choice.config_path : "the given configuration"))
      request.note(*note);
  // 5. Program, buffers, launches, timing (runtime/).
  Context context(device);
  MdHomRun run(context, bound, std::move(inputs.inputs), inputs.params, inputs.seed, request.input_views);
  PlanTiming timing = run.run(kernel.plan, request.warmup, request.repeat);
  HostBuffer output = run.read_output();
  // 6. Verification against the reference kernel; a stored configuration is never trusted before it passed once.
  std::optional<VerifyReport> verification;
  const bool verify =
      request.verify || (stored && (!request.stored_needs_check || request.stored_needs_check(*stored)));
  if (verify)
    verification =
        verify_result(output, run.reference_output(), *bound.mdh, bound.reduction_size(), 8, bound.precision);
  if (stored && verification && !verification->passed && !request.verify)
    throw UserError(SourceLoc{}, "the tuned configuration " + stored->path + " computes a wrong result for " +
                                     request.sizes + " on " + device.name + ": " + verification->summary() +
                                     "; name a configuration instead (--config FILE, or --config " +
                                     kDefaultConfigName + ")");
  const bool in_double = verify && run.reference_in_double();
  return {std::move(bound),  std::move(device),       std::move(kernel), std::move(timing),
          std::move(output), std::move(verification), in_double,         std::move(stored)};
}

}  // namespace mdh
