// The precision a request asks for against what the device and the md_hom allow (`--precision`).
#pragma once

#include <functional>
#include <string>

#include "codegen/device_limits.h"
#include "mdh/bind.h"

namespace mdh {

/// Sets bound.precision to `requested` where it can be had: TF32 needs a device with tensor cores mdh reaches
/// (DeviceLimits::tf32_tensor_cores) and an md_hom that is a matrix product (codegen/tensor_core.h). Elsewhere the
/// md_hom runs in fp32, and `note` says why, once.
void settle_precision(BoundMdh& bound, ComputePrecision requested, const DeviceLimits& limits,
                      const std::string& device_name, const std::function<void(const std::string&)>& note);

}  // namespace mdh
