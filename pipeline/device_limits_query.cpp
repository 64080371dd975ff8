// DeviceInfo -> DeviceLimits.
#include "pipeline/device_limits_query.h"

#include <algorithm>

namespace mdh {

namespace {
// The most 32-bit registers one thread may use on NVIDIA GPUs since Kepler (DeviceLimits::registers_per_work_item).
constexpr uint64_t kNvidiaRegistersPerThread = 255;
}  // namespace

DeviceLimits device_limits(const DeviceInfo& device) {
  DeviceLimits limits;
  limits.max_work_group_size = device.max_work_group_size;
  for (size_t d = 0; d < 3; ++d)
    limits.max_work_item_sizes[d] = d < device.max_work_item_sizes.size() ? device.max_work_item_sizes[d] : 1;
  limits.local_mem_bytes = device.local_mem_bytes;
  limits.max_alloc_bytes = device.max_alloc_bytes;
  limits.compute_units = device.compute_units;
  limits.local_memory_dedicated = device.local_mem_dedicated;
  limits.nvidia_driver = is_nvidia_platform(device.platform_name);
  limits.simd_width =
      std::max<uint64_t>(1, device.warp_size > 0 ? device.warp_size : device.preferred_float_vector_width);
  limits.warp_size = std::max<uint64_t>(1, device.warp_size);
  limits.float_vector_width = std::max<uint64_t>(1, device.preferred_float_vector_width);
  if (limits.nvidia_driver) limits.registers_per_work_item = kNvidiaRegistersPerThread;
  limits.tf32_tensor_cores = limits.nvidia_driver && device.nvidia_compute_capability_major >= 8;
  limits.subgroup_width = limits.nvidia_driver && limits.warp_size > 1 ? limits.warp_size : kPortableSubgroupWidth;
  return limits;
}

}  // namespace mdh
