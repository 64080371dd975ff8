// device_limits(): every DeviceLimits field comes from the device. Checked twice: against a synthetic device whose
// values all differ from DeviceLimits' defaults (a field left at its default fails whatever the installed device
// reports), and on every installed device against clGetDeviceInfo asked directly (the DeviceInfo query included).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pipeline/device_limits_query.h"
#include "runtime/device.h"

namespace mdh {
namespace {

TEST(DeviceLimits, EveryFieldIsCopiedFromTheDevice) {
  DeviceInfo device;
  device.platform_name = "NVIDIA CUDA";
  device.max_work_group_size = 1000;
  device.max_work_item_sizes = {11, 22, 33};
  device.local_mem_bytes = 12345;
  device.max_alloc_bytes = uint64_t{3} << 40;
  device.compute_units = 77;
  device.local_mem_dedicated = true;
  device.preferred_float_vector_width = 4;
  device.warp_size = 48;
  device.nvidia_compute_capability_major = 9;
  const DeviceLimits defaults;
  // Destructured so that a field added to DeviceLimits does not compile here until this test checks it.
  const auto [max_work_group_size, max_work_item_sizes, local_mem_bytes, max_alloc_bytes, compute_units,
              local_memory_dedicated, private_mem_bytes, simd_width, warp_size, float_vector_width,
              registers_per_work_item, subgroup_width, nvidia_driver, tf32_tensor_cores] = device_limits(device);
  EXPECT_EQ(max_work_group_size, 1000u);
  EXPECT_EQ(max_work_item_sizes, (std::array<uint64_t, 3>{11, 22, 33}));
  EXPECT_EQ(local_mem_bytes, 12345u);
  EXPECT_EQ(max_alloc_bytes, uint64_t{3} << 40);
  EXPECT_EQ(compute_units, 77u);
  EXPECT_TRUE(local_memory_dedicated);
  EXPECT_TRUE(nvidia_driver);
  EXPECT_EQ(simd_width, 48u);  // the warp, where the device reports one
  EXPECT_EQ(warp_size, 48u);
  EXPECT_EQ(float_vector_width, 4u);         // the vector width, warp or not
  EXPECT_EQ(registers_per_work_item, 255u);  // NVIDIA's per-thread register limit (not reported by the driver)
  EXPECT_EQ(subgroup_width, 48u);            // shfl.sync's width: the warp
  EXPECT_TRUE(tf32_tensor_cores);            // NVIDIA's driver, compute capability 9
  // The synthetic values are not the defaults, so each check above fails for a field device_limits() leaves alone.
  EXPECT_NE(defaults.max_work_group_size, 1000u);
  EXPECT_NE(defaults.max_work_item_sizes, (std::array<uint64_t, 3>{11, 22, 33}));
  EXPECT_NE(defaults.local_mem_bytes, 12345u);
  EXPECT_NE(defaults.max_alloc_bytes, uint64_t{3} << 40);
  EXPECT_NE(defaults.compute_units, 77u);
  EXPECT_FALSE(defaults.local_memory_dedicated);
  EXPECT_FALSE(defaults.nvidia_driver);
  EXPECT_NE(defaults.simd_width, 48u);
  EXPECT_NE(defaults.warp_size, 48u);
  EXPECT_NE(defaults.float_vector_width, 4u);
  EXPECT_NE(defaults.registers_per_work_item, 255u);
  EXPECT_NE(defaults.subgroup_width, 48u);
  EXPECT_FALSE(defaults.tf32_tensor_cores);
  // Not a device query but mdh's budget for one work-item's private arrays (see device_limits.h).
  EXPECT_EQ(private_mem_bytes, defaults.private_mem_bytes);

  // Devices with fewer than three work-item dimensions: the missing ones hold a single work-item.
  device.max_work_item_sizes = {64};
  device.platform_name = "Portable Computing Language";
  EXPECT_EQ(device_limits(device).max_work_item_sizes, (std::array<uint64_t, 3>{64, 1, 1}));
  EXPECT_FALSE(device_limits(device).nvidia_driver);
  // Without a warp the SIMD width is the preferred float vector width, the warp 1 (no constraint), and there is no
  // register budget.
  device.warp_size = 0;
  EXPECT_EQ(device_limits(device).simd_width, 4u);
  EXPECT_EQ(device_limits(device).warp_size, 1u);
  EXPECT_EQ(device_limits(device).registers_per_work_item, 0u);
  // TF32 tensor cores: NVIDIA's driver on compute capability 8.0 and later only.
  EXPECT_FALSE(device_limits(device).tf32_tensor_cores);
  device.platform_name = "NVIDIA CUDA";
  device.nvidia_compute_capability_major = 7;
  EXPECT_FALSE(device_limits(device).tf32_tensor_cores);
  device.nvidia_compute_capability_major = 8;
  EXPECT_TRUE(device_limits(device).tf32_tensor_cores);
}

template <class T>
T queried(cl_device_id device, cl_device_info what) {
  T value{};
  EXPECT_EQ(clGetDeviceInfo(device, what, sizeof value, &value, nullptr), CL_SUCCESS);
  return value;
}

std::string queried_string(cl_device_id device, cl_device_info what) {
  size_t length = 0;
  EXPECT_EQ(clGetDeviceInfo(device, what, 0, nullptr, &length), CL_SUCCESS);
  std::string text(length, '\0');
  EXPECT_EQ(clGetDeviceInfo(device, what, length, text.data(), nullptr), CL_SUCCESS);
  return text;
}

TEST(DeviceLimits, InstalledDevicesMatchClGetDeviceInfo) {
  const std::vector<DeviceInfo> devices = list_devices();
  ASSERT_FALSE(devices.empty()) << "the tests need an OpenCL device (PoCL)";
  for (const DeviceInfo& d : devices) {
    SCOPED_TRACE(d.selector() + " " + d.name);
    const DeviceLimits limits = device_limits(d);
    EXPECT_EQ(limits.max_work_group_size, queried<size_t>(d.device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
    const cl_uint dims = queried<cl_uint>(d.device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    std::vector<size_t> sizes(dims);
    ASSERT_EQ(clGetDeviceInfo(d.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), sizes.data(), nullptr),
              CL_SUCCESS);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(limits.max_work_item_sizes[k], k < dims ? sizes[k] : 1) << "dim " << k;
    EXPECT_EQ(limits.local_mem_bytes, queried<cl_ulong>(d.device, CL_DEVICE_LOCAL_MEM_SIZE));
    EXPECT_EQ(limits.max_alloc_bytes, queried<cl_ulong>(d.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
    EXPECT_EQ(limits.compute_units, queried<cl_uint>(d.device, CL_DEVICE_MAX_COMPUTE_UNITS));
    EXPECT_EQ(limits.local_memory_dedicated,
              queried<cl_device_local_mem_type>(d.device, CL_DEVICE_LOCAL_MEM_TYPE) == CL_LOCAL);
    const cl_platform_id platform = queried<cl_platform_id>(d.device, CL_DEVICE_PLATFORM);
    size_t length = 0;
    ASSERT_EQ(clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, nullptr, &length), CL_SUCCESS);
    std::string name(length, '\0');
    ASSERT_EQ(clGetPlatformInfo(platform, CL_PLATFORM_NAME, length, name.data(), nullptr), CL_SUCCESS);
    EXPECT_EQ(limits.nvidia_driver, is_nvidia_platform(name.c_str())) << name;
    const std::string extensions = queried_string(d.device, CL_DEVICE_EXTENSIONS);
    const bool nv_warp = extensions.find("cl_nv_device_attribute_query") != std::string::npos;
    const bool amd_wavefront = !nv_warp && extensions.find("cl_amd_device_attribute_query") != std::string::npos;
    const uint64_t warp = nv_warp         ? queried<cl_uint>(d.device, 0x4003 /* CL_DEVICE_WARP_SIZE_NV */)
                          : amd_wavefront ? queried<cl_uint>(d.device, 0x4043 /* CL_DEVICE_WAVEFRONT_WIDTH_AMD */)
                                          : 0;
    EXPECT_EQ(limits.warp_size, std::max<uint64_t>(1, warp));
    EXPECT_EQ(
        limits.simd_width,
        std::max<uint64_t>(1, warp > 0 ? warp : queried<cl_uint>(d.device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT)));
    EXPECT_EQ(limits.float_vector_width,
              std::max<uint64_t>(1, queried<cl_uint>(d.device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT)));
    EXPECT_EQ(limits.registers_per_work_item, limits.nvidia_driver ? 255u : 0u);
    EXPECT_EQ(limits.subgroup_width, limits.nvidia_driver ? limits.warp_size : kPortableSubgroupWidth);
  }
}

}  // namespace
}  // namespace mdh
