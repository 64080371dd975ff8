// Whether an md_hom's buffers at the bound sizes fit the device and the host, checked before any data is made: sizes
// that cannot run fail in a moment with the numbers, not after minutes of filling gigabytes.
#pragma once

#include <cstdint>

#include "mdh/bind.h"
#include "runtime/device.h"

namespace mdh {

/// UserError naming the buffer, its bytes and the limit when one buffer exceeds the device's largest allocation, all
/// of them its global memory, or what a run holds on the host (inputs, output, and the reference output in double
/// precision; on a CPU device the device's copies too) exceeds `host_memory_bytes`.
void check_buffers_fit(const BoundMdh& bound, const DeviceInfo& device, uint64_t host_memory_bytes);

/// The host's physical memory in bytes (0 where it cannot be told, which checks nothing).
uint64_t host_memory_bytes();

}  // namespace mdh
