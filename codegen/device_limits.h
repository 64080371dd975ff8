// The limits of an OpenCL device that bound the tunable kernel's configurations. Plain numbers: the runtime fills
// them from the device (clGetDeviceInfo), codegen and the tuning space only read them and never touch OpenCL.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace mdh {

/// CMB_WI shuffle's sub-group width where the device has no shuffle instruction mdh uses (DeviceLimits).
inline constexpr uint64_t kPortableSubgroupWidth = 4;

struct DeviceLimits {
  uint64_t max_work_group_size = 256;                         // CL_DEVICE_MAX_WORK_GROUP_SIZE
  std::array<uint64_t, 3> max_work_item_sizes{256, 256, 64};  // CL_DEVICE_MAX_WORK_ITEM_SIZES
  uint64_t local_mem_bytes = 32 * 1024;                       // CL_DEVICE_LOCAL_MEM_SIZE
  uint64_t max_alloc_bytes = uint64_t{1} << 30;               // CL_DEVICE_MAX_MEM_ALLOC_SIZE (scratch buffers)
  uint64_t compute_units = 1;                                 // CL_DEVICE_MAX_COMPUTE_UNITS (for defaults only)
  // CL_DEVICE_LOCAL_MEM_TYPE is CL_LOCAL: local memory is a separate on-chip memory (GPUs), not global memory by
  // another name (CPUs). Only then does the default configuration cache inputs there (for defaults only).
  bool local_memory_dedicated = false;
  // Not a device query: the most bytes of arrays one work-item may keep in private memory (result slots, cached
  // private tiles). Private arrays live in registers or on a per-work-item stack; beyond a few KiB they spill or
  // overflow PoCL's stack, so the tuning space keeps configurations below this budget.
  uint64_t private_mem_bytes = 16 * 1024;
  // Work-items the device executes in lockstep: NVIDIA's warp (CL_DEVICE_WARP_SIZE_NV), elsewhere the preferred
  // float vector width (CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: PoCL vectorises a work-group's work-items across
  // SIMD lanes along OpenCL dimension 0). Work-item counts that are multiples of it leave no lane idle, so the
  // work-item lattices hold them (codegen/families/tile_sizes.cpp).
  uint64_t simd_width = 1;
  // Work-items the hardware runs as one thread, where the device reports such a width: NVIDIA's warp
  // (CL_DEVICE_WARP_SIZE_NV), AMD's wavefront (CL_DEVICE_WAVEFRONT_WIDTH_AMD); 1 elsewhere. A work-group of another
  // size leaves lanes of its last warp idle, so the default search space holds only multiples of it (the warp
  // constraint in codegen/families/tile_sizes.cpp). PoCL on a CPU reports none: it runs a work-group's work-items as
  // loops, and its fast configurations have work-groups of any size (docs/decisions.md).
  uint64_t warp_size = 1;
  // CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT (for defaults only): the floats one vector register holds (16 on PoCL for
  // AVX-512, 8 for AVX2). On devices without dedicated local memory (CPUs) the default gives each work-item private
  // tiles of this many elements along the inputs' unit-stride dimensions and copies them in vectors of this width.
  uint64_t float_vector_width = 1;
  // Not a device query: the 32-bit registers one work-item may use before the compiler spills to memory, 0 where
  // the device has no register file worth modelling (CPUs keep private arrays on a stack that private_mem_bytes
  // bounds). NVIDIA: 255, the architectural limit since Kepler, which the driver does not report; a configuration
  // whose estimated register use exceeds it spills and runs many times slower, so the space prunes it before the
  // build (the register budget constraint in codegen/families/result_memory.cpp).
  uint64_t registers_per_work_item = 0;
  // The work-items among which CMB_WI shuffle exchanges partial results. Under NVIDIA's driver the warp, which
  // exchanges registers with shfl.sync (inline PTX) and no barrier. Elsewhere no instruction is used: the same rounds
  // exchange through memory with barriers, in sub-groups of kPortableSubgroupWidth (this default). No hardware
  // width is better there, and 4 is small enough that the property tests' small sizes draw both of the shape's levels
  // (several points in one sub-group, one point over several sub-groups): PoCL checks the index arithmetic that the
  // GPU runs.
  uint64_t subgroup_width = kPortableSubgroupWidth;
  // The device runs NVIDIA's OpenCL driver, whose PTX assembler needs a workaround for some kernels
  // (generate_tunable_kernel, nvidia_build_options in codegen/tunable_kernel.cpp).
  bool nvidia_driver = false;
  // The device multiplies TF32 matrices on tensor cores that mdh reaches (inline PTX mma.sync m16n8k8 .tf32):
  // NVIDIA's driver on compute capability 8.0 and later. Where it does not, a TF32 request runs in FP32.
  bool tf32_tensor_cores = false;
};

/// Whether an OpenCL platform name is NVIDIA's driver (DeviceLimits::nvidia_driver).
inline bool is_nvidia_platform(const std::string& platform_name) {
  return platform_name.find("NVIDIA") != std::string::npos;
}

}  // namespace mdh
