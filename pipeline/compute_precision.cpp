#include "pipeline/compute_precision.h"

#include "codegen/tensor_core.h"

namespace mdh {

void settle_precision(BoundMdh& bound, ComputePrecision requested, const DeviceLimits& limits,
                      const std::string& device_name, const std::function<void(const std::string&)>& note) {
  bound.precision = ComputePrecision::fp32;
  if (requested == ComputePrecision::fp32) return;
  if (!limits.tf32_tensor_cores) {
    if (note)
      note("--precision tf32: " + device_name +
           " has no TF32 tensor cores that mdh reaches (NVIDIA's driver, compute capability 8.0 or later); "
           "running in fp32");
    return;
  }
  if (!tensor_core_roles(bound)) {
    if (note)
      note("--precision tf32: " + bound.mdh->name +
           " is not a product of two float, half or bfloat16 inputs reduced with + (the shape tensor cores "
           "compute); running in fp32");
    return;
  }
  bound.precision = requested;
}

}  // namespace mdh
