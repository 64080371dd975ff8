// The whole pipeline in one place: spec file -> checked IR -> sizes bound -> device and its limits -> kernel
// (configuration -> OpenCL C) -> program, buffers and launches -> timing -> verification. `mdh run` is this
// function plus option parsing and printing; generate, export, tune and the peers take its first steps.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "mdh/bind.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/kernel.h"
#include "pipeline/run_inputs.h"
#include "pipeline/tuned_store.h"
#include "runtime/device.h"
#include "runtime/execute.h"
#include "runtime/host_buffer.h"
#include "runtime/verify_result.h"

namespace mdh {

/// Parses and checks the spec file, refusing the names the code generators reserve beside the language's
/// (codegen/generated_names.h): every spec that is to be generated is read this way.
std::shared_ptr<const Mdh> load_spec(const std::string& spec_path);

/// Parses and checks the spec file (load_spec) and binds the sizes ("I=1024,J=1024"; empty for a spec without sizes).
BoundMdh load_and_bind(const std::string& spec_path, const std::string& sizes);

struct RunRequest {
  std::string spec_path, sizes;
  ComputePrecision precision =
      ComputePrecision::fp32;  // `--precision`; settled against the device (compute_precision.h)
  std::string device;          // selector: "P:D", "gpu", "cpu", a name substring, or "" for the default device
  KernelChoice kernel;
  DataOptions data;
  /// Inputs in the caller's memory (the Python module's numpy arrays), copied to the device from where they lie.
  std::map<std::string, HostBufferView> input_views;
  int warmup = 1, repeat = 10;
  bool verify = false;        // against the reference kernel, in double where the md_hom allows it
  std::string output_buffer;  // when set, must name the md_hom's output (checked before any device work)
  /// KernelChoice::stored: what the lookup took and passed over (pipeline/tuned_store.h); nothing when empty.
  TunedStoreNote note;
  /// A configuration taken from the store is checked against the reference in this run even without `verify` (a
  /// wrong result is a UserError naming the file), unless this says it need not be: the Python module answers false
  /// for a stored configuration it has checked for the same sizes before in the same process. Empty: always checked.
  std::function<bool(const StoredConfiguration&)> stored_needs_check;
};

struct RunOutcome {
  BoundMdh bound;
  DeviceInfo device;
  PreparedKernel kernel;
  PlanTiming timing;
  HostBuffer output;
  std::optional<VerifyReport> verification;
  bool reference_in_double = false;
  std::optional<StoredConfiguration> stored;  // the stored configuration the run took, if any
};

RunOutcome run_md_hom(const RunRequest& request);

}  // namespace mdh
