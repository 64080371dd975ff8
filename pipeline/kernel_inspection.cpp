#include "pipeline/kernel_inspection.h"

#include <algorithm>

#include "codegen/config_json.h"
#include "codegen/device_limits.h"
#include "pipeline/compute_precision.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/pipeline.h"
#include "pipeline/recorded_device.h"
#include "runtime/context.h"
#include "support/error.h"

namespace mdh {

KernelInspection inspect_kernel(const InspectRequest& request) {
  KernelInspection out;
  out.bound = load_and_bind(request.spec_path, request.sizes);
  out.device = select_device(request.device);
  const DeviceLimits local = device_limits(out.device);
  const TargetDevice target = request.device_profile.empty()
                                  ? target_of(out.device, local)
                                  : target_of(load_device_profile(request.device_profile, device_profiles_directory()));
  const DeviceLimits limits = limits_for_kernel_choice(request.kernel, out.bound, target, request.note);
  settle_precision(out.bound, request.precision, limits, target.name, request.note);
  // NVIDIA's kernels may hold inline PTX and build options that only its driver takes.
  if (limits.nvidia_driver && !local.nvidia_driver)
    throw UserError((target.from_profile && target.limits.nvidia_driver ? "--device-profile " + request.device_profile
                                                                        : request.kernel.config_path) +
                    ": error: its kernel is generated for NVIDIA's OpenCL driver, which " + out.device.name +
                    " does not run, so it cannot be built and inspected here; `mdh generate` and `mdh export` write "
                    "it without building it");
  out.kernel = prepare_kernel(out.bound, limits,
                              resolve_kernel_choice(request.kernel, out.bound, target.slug, limits, request.note));
  const bool nvidia = is_nvidia_platform(out.device.platform_name);
  out.build_options = out.kernel.plan.build_options;
  if (nvidia) out.build_options += std::string(out.build_options.empty() ? "" : " ") + kNvidiaVerboseBuildOption;

  // A Context of its own without a binary cache: the program is compiled here, not loaded, so the log is the
  // compiler's. (PoCL may still take the compiled code from its own kernel cache; its log is then empty either way.)
  Context context(out.device);
  const cl_program program = context.program(out.kernel.plan.source, out.build_options);
  out.build_log = program_build_log(program, out.device.device);
  out.binary = program_binary(program);
  out.binary_is_ptx = nvidia;
  if (out.binary_is_ptx) {  // the PTX as text, so that ptxas assembles the written file
    const std::string text = ptx_text_of_binary(out.binary);
    out.binary.assign(text.begin(), text.end());
  }

  const std::vector<PtxasKernelReport> reports = parse_ptxas_log(out.build_log);
  const std::vector<PtxEntryResources> entries =
      out.binary_is_ptx ? parse_ptx_entries(std::string(out.binary.begin(), out.binary.end()))
                        : std::vector<PtxEntryResources>{};
  for (const KernelLaunch& launch : out.kernel.plan.kernels) {
    const std::string& name = launch.kernel_name;
    if (std::any_of(out.kernels.begin(), out.kernels.end(), [&](const auto& k) { return k.kernel_name == name; }))
      continue;
    KernelResources resources{name, std::nullopt, std::nullopt};
    for (const PtxasKernelReport& report : reports)
      if (report.kernel_name == name) resources.ptxas = report;
    for (const PtxEntryResources& entry : entries)
      if (entry.kernel_name == name) resources.ptx = entry;
    out.kernels.push_back(std::move(resources));
  }
  return out;
}

namespace {

nlohmann::json optional_number(const std::optional<uint64_t>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json kernel_to_json(const KernelResources& k) {
  nlohmann::json j = {{"name", k.kernel_name}};
  if (k.ptxas) {
    j["resources_from"] = "ptxas";
    j["arch"] = k.ptxas->arch;
    j["registers"] = optional_number(k.ptxas->registers);
    j["spill_store_bytes"] = optional_number(k.ptxas->spill_store_bytes);
    j["spill_load_bytes"] = optional_number(k.ptxas->spill_load_bytes);
    j["stack_frame_bytes"] = optional_number(k.ptxas->stack_frame_bytes);
    j["shared_bytes"] = optional_number(k.ptxas->shared_bytes);
    j["constant_bytes"] = optional_number(k.ptxas->constant_bytes);
    j["barriers"] = optional_number(k.ptxas->barriers);
  } else if (k.ptx) {
    j["resources_from"] = "ptx";
    j["registers"] = nullptr;  // PTX registers are virtual; only ptxas allocates real ones
    j["ptx_virtual_registers"] = k.ptx->virtual_registers;
    j["local_bytes"] = k.ptx->local_bytes;
    j["shared_bytes"] = k.ptx->shared_bytes;
  } else {
    j["resources_from"] = "unknown";
    j["registers"] = nullptr;
  }
  return j;
}

}  // namespace

nlohmann::json inspection_to_json(const KernelInspection& inspection) {
  nlohmann::json j;
  j["md_hom"] = inspection.bound.mdh->name;
  j["sizes"] = inspection.bound.sizes;
  j["device"] = {{"name", inspection.device.name},
                 {"platform", inspection.device.platform_name},
                 {"driver_version", inspection.device.driver_version},
                 {"selector", inspection.device.selector()},
                 {"slug", device_slug(inspection.device)}};
  j["kernel"] = inspection.kernel.description;
  j["config"] = inspection.kernel.config ? config_to_json(inspection.bound, *inspection.kernel.config) : nullptr;
  j["build_options"] = inspection.build_options;
  j["binary"] = {{"format", inspection.binary_is_ptx ? "ptx" : "driver"}, {"bytes", inspection.binary.size()}};
  j["build_log_bytes"] = inspection.build_log.size();
  j["kernels"] = nlohmann::json::array();
  for (const KernelResources& k : inspection.kernels) j["kernels"].push_back(kernel_to_json(k));
  return j;
}

}  // namespace mdh
