// The limits of an OpenCL device (runtime/device.h) as the plain numbers that bound the tunable kernel's
// configurations (codegen/device_limits.h): the step between the runtime's device query and codegen.
#pragma once

#include "codegen/device_limits.h"
#include "runtime/device.h"

namespace mdh {

DeviceLimits device_limits(const DeviceInfo& device);

}  // namespace mdh
