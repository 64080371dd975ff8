// A configuration's kernels as the device's compiler built them: the program binary, the build log and, per
// kernel, the registers, spills and memory the driver reports. What `mdh inspect` writes and prints, so that
// "what does the profile show" can be answered for any configuration (issue 12, "seeing inside").
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mdh/bind.h"
#include "pipeline/kernel.h"
#include "pipeline/tuned_store.h"
#include "runtime/device.h"
#include "runtime/ptx_resources.h"
#include "runtime/ptxas_log.h"

namespace mdh {

/// What is known of one kernel of the plan: ptxas's report where the build log has one (NVIDIA with
/// -cl-nv-verbose), else what its PTX declares (virtual registers, local and shared arrays), else nothing.
struct KernelResources {
  std::string kernel_name;
  std::optional<PtxasKernelReport> ptxas;
  std::optional<PtxEntryResources> ptx;
};

struct InspectRequest {
  std::string spec_path, sizes;
  std::string device;          // selector, as for mdh run: the device that builds the kernel
  std::string device_profile;  // when not empty, the kernel is made for this profile's device (its name or file)
  KernelChoice kernel;
  ComputePrecision precision = ComputePrecision::fp32;  // as `mdh run --precision`
  TunedStoreNote note;  // KernelChoice::stored: what the lookup took and passed over; the precision's note
};

struct KernelInspection {
  BoundMdh bound;
  DeviceInfo device;
  PreparedKernel kernel;
  std::string build_options;             // as built: the plan's, plus kNvidiaVerboseBuildOption on NVIDIA's driver
  std::string build_log;                 // the driver's log, untrimmed ("" when it gave none)
  std::vector<unsigned char> binary;     // CL_PROGRAM_BINARIES
  bool binary_is_ptx = false;            // NVIDIA's driver gives PTX text
  std::vector<KernelResources> kernels;  // one per kernel name of the plan, in launch order
};

/// Binds the spec, generates the chosen kernel for the device, builds it there (no program or binary cache: the
/// driver really compiles it, so its log is complete) and reads the binary, the log and the resources. A build
/// failure is a UserError carrying the log (runtime/context.h).
KernelInspection inspect_kernel(const InspectRequest& request);

/// The machine-readable summary (`mdh inspect --json` and DIR/<md_hom>.resources.json): md_hom, sizes, device,
/// kernel description, configuration, build options, binary format and size, and per kernel where its numbers
/// come from ("ptxas", "ptx" or "unknown") with the numbers (null where not reported).
nlohmann::json inspection_to_json(const KernelInspection& inspection);

}  // namespace mdh
