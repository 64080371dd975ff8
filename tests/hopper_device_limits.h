// The limits an NVIDIA H100 or H200 reports through OpenCL (132 compute units, 48 KiB of local memory per work-group,
// warps of 32, 255 registers per work-item), for the tests and benchmarks that derive GPU defaults and spaces without
// the device (tests/codegen/tunable_test_support.h, tests/perf/tuning_quality.cpp).
#pragma once

#include "codegen/device_limits.h"

namespace mdh::testing {

inline DeviceLimits hopper_device_limits() {
  DeviceLimits l;
  l.max_work_group_size = 1024;
  l.max_work_item_sizes = {1024, 1024, 64};
  l.local_mem_bytes = 48 * 1024;
  l.compute_units = 132;
  l.local_memory_dedicated = true;
  l.simd_width = 32;
  l.warp_size = 32;
  l.registers_per_work_item = 255;
  l.nvidia_driver = true;
  return l;
}

}  // namespace mdh::testing
