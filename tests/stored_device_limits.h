// The limits the devices behind the committed store and tables report (`mdh devices` on each), for the tests that
// load and generate their configurations without the device: the configurations were valid for these.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/device_limits.h"

namespace mdh::testing {

/// The limits of the device whose folder `path` lies in (a path naming an NVIDIA folder: the H200's; else the
/// CPU machines' PoCL).
inline DeviceLimits stored_device_limits(const std::string& path) {
  DeviceLimits l;
  if (path.find("nvidia") != std::string::npos) {
    l.max_work_group_size = 1024;
    l.max_work_item_sizes = {1024, 1024, 64};
    l.local_mem_bytes = 48 * 1024;
    l.max_alloc_bytes = uint64_t{20} << 30;
    l.nvidia_driver = true;
    l.simd_width = 32;
    l.warp_size = 32;
    l.subgroup_width = 32;
  } else {
    l.max_work_group_size = 4096;
    l.max_work_item_sizes = {4096, 4096, 4096};
    l.local_mem_bytes = 4 * 1024 * 1024;
    l.max_alloc_bytes = uint64_t{2} << 30;
  }
  return l;
}

}  // namespace mdh::testing
