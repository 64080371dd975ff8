// Checking an output against its reference on the device: the tuner's check of a candidate that could become the
// best. Reading a large output back and comparing it on the host can cost more than the evaluation itself; on the
// device the comparison runs at memory speed (docs/decisions.md). It answers only pass or fail, by the rule of
// verify_result.h, in double precision: IEEE-754 subtraction, multiplication, addition and comparison, which OpenCL
// requires correctly rounded for double, decide exactly as the host does. The report of a failure (which values, how
// far off) stays the host's (verify_result).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/launch_plan.h"
#include "mdh/bind.h"
#include "runtime/context.h"
#include "runtime/host_buffer.h"

namespace mdh {

class DeviceCheck {
 public:
  /// A check of outputs of type `output_type` against `reference` (float or double scalar elements, as
  /// verify_result takes them) on the context's device, with the tolerance of `reduction_size`; nullopt where the
  /// device cannot check: an integer or struct output, no fp64, or a reference that does not fit beside the run's
  /// buffers (the host checks then). Copies the reference to the device once.
  static std::optional<DeviceCheck> make(Context& context, const HostBuffer& reference, ElementType output_type,
                                         int64_t reduction_size, ComputePrecision precision = ComputePrecision::fp32);

  /// Whether every value of `output` (a device buffer of the reference's element count) passes.
  bool passes(const DeviceBuffer& output);

 private:
  DeviceCheck(Context& context, DeviceBuffer reference, DeviceBuffer outside, LaunchPlan plan,
              std::map<std::string, std::vector<unsigned char>> params)
      : context_(&context),
        reference_(std::move(reference)),
        outside_(std::move(outside)),
        plan_(std::move(plan)),
        params_(std::move(params)) {}

  Context* context_;
  DeviceBuffer reference_;
  DeviceBuffer outside_;                                      // set to 1 by the kernel where a value fails
  LaunchPlan plan_;                                           // one launch of mdh_check over the outputs' values
  std::map<std::string, std::vector<unsigned char>> params_;  // n, tol, magnitude
};

}  // namespace mdh
