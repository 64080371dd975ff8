// OpenCL platforms and devices: what is installed, the limits that matter for MDH kernels, and choosing one
// device from a user's `--device` selector.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mdh {

/// One device with the limits codegen, the tuner and `mdh devices` care about.
struct DeviceInfo {
  int platform_index = 0;  // position in clGetPlatformIDs
  int device_index = 0;    // position in clGetDeviceIDs(CL_DEVICE_TYPE_ALL) of that platform
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;

  std::string platform_name;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string device_version;  // "OpenCL 3.0 PoCL ..."
  std::string driver_version;
  std::string opencl_c_version;  // "OpenCL C 1.2 PoCL"
  cl_device_type type = CL_DEVICE_TYPE_DEFAULT;

  uint32_t compute_units = 0;
  uint32_t max_clock_mhz = 0;
  uint64_t max_work_group_size = 0;
  std::vector<uint64_t> max_work_item_sizes;  // one per work dimension
  uint64_t local_mem_bytes = 0;
  bool local_mem_dedicated = false;  // CL_LOCAL: dedicated on-chip memory; CL_GLOBAL: emulated in global memory
  uint64_t global_mem_bytes = 0;
  uint64_t global_mem_cache_bytes = 0;  // CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (0: the device has no such cache)
  uint64_t max_alloc_bytes = 0;
  bool fp64 = false;  // cl_khr_fp64 (or CL_DEVICE_DOUBLE_FP_CONFIG non-zero)
  uint32_t preferred_float_vector_width = 0;
  // CL_DEVICE_WARP_SIZE_NV where the device has cl_nv_device_attribute_query, CL_DEVICE_WAVEFRONT_WIDTH_AMD where
  // it has cl_amd_device_attribute_query, else 0.
  uint32_t warp_size = 0;
  // CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV where the device has cl_nv_device_attribute_query, else 0.
  uint32_t nvidia_compute_capability_major = 0;

  /// "P:D", the selector that picks exactly this device.
  std::string selector() const;
  /// "GPU", "CPU", "accelerator", "custom" or "default".
  std::string type_name() const;
};

/// Every device of every platform, in platform then device order. Empty when no platform is installed.
std::vector<DeviceInfo> list_devices();

/// Picks a device from `devices` by `selector`:
///   ""                 the first GPU, else the first CPU, else the first device;
///   "P:D"              platform index P, device index D;
///   "gpu", "cpu", "accelerator"   the first device of that type (case-insensitive);
///   anything else      the first device whose name or platform name contains it, case-insensitively.
/// Throws UserError listing the available devices (with their P:D) when nothing matches.
DeviceInfo select_device(const std::vector<DeviceInfo>& devices, const std::string& selector);
/// Every device `selector` matches, in the order of select_device's preference (its first is select_device's
/// pick): "" all GPUs, else all CPUs, else all devices; "gpu"/"cpu"/"accelerator" all of that type; a name part all
/// devices whose name contains it, else those whose platform name does. Throws as select_device does.
std::vector<DeviceInfo> matching_devices(const std::vector<DeviceInfo>& devices, const std::string& selector);
/// select_device(list_devices(), selector).
DeviceInfo select_device(const std::string& selector);

/// A stable folder name for results: lower-case words joined by dashes ("nvidia-h200", "pocl-cpu-amd-epyc").
std::string device_slug(const DeviceInfo& device);

/// The human-readable listing printed by `mdh devices`.
std::string format_device_list(const std::vector<DeviceInfo>& devices);

}  // namespace mdh
