// Device listing and selection: the real list (PoCL here) and synthetic lists for the forms PoCL cannot show.
#include <gtest/gtest.h>

#include "runtime/device.h"
#include "support/error.h"

namespace mdh {
namespace {

DeviceInfo fake_device(int platform, int device, const std::string& platform_name, const std::string& name,
                       cl_device_type type) {
  DeviceInfo d;
  d.platform_index = platform;
  d.device_index = device;
  d.platform_name = platform_name;
  d.name = name;
  d.type = type;
  return d;
}

// Two platforms: a CPU platform first, then a GPU platform with two GPUs, then an accelerator.
std::vector<DeviceInfo> fake_devices() {
  return {fake_device(0, 0, "Portable Computing Language", "pthread-skylake-avx512-AMD EPYC", CL_DEVICE_TYPE_CPU),
          fake_device(1, 0, "NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU),
          fake_device(1, 1, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU),
          fake_device(2, 0, "Intel(R) FPGA Emulation Platform for OpenCL(TM)", "Intel(R) FPGA Emulation Device",
                      CL_DEVICE_TYPE_ACCELERATOR)};
}

std::string selected(const std::string& selector) {
  return select_device(fake_devices(), selector).selector();
}

TEST(SelectDevice, EachSelectorForm) {
  EXPECT_EQ(selected(""), "1:0");  // the first GPU, although a CPU comes first
  EXPECT_EQ(selected("  "), "1:0");
  EXPECT_EQ(selected("1:1"), "1:1");
  EXPECT_EQ(selected("0:0"), "0:0");
  EXPECT_EQ(selected("gpu"), "1:0");
  EXPECT_EQ(selected("GPU"), "1:0");
  EXPECT_EQ(selected("cpu"), "0:0");
  EXPECT_EQ(selected("accelerator"), "2:0");
  EXPECT_EQ(selected("h100"), "1:1");  // device name substring, case-insensitive
  EXPECT_EQ(selected("epyc"), "0:0");
  EXPECT_EQ(selected("portable"), "0:0");  // platform name substring
  EXPECT_EQ(selected("CUDA"), "1:0");
  EXPECT_EQ(selected("fpga"), "2:0");
}

TEST(SelectDevice, DefaultFallsBackToCpuThenFirst) {
  auto devices = fake_devices();
  devices.erase(devices.begin() + 1, devices.begin() + 3);  // no GPU left
  EXPECT_EQ(select_device(devices, "").selector(), "0:0");
  devices.erase(devices.begin());  // only the accelerator
  EXPECT_EQ(select_device(devices, "").selector(), "2:0");
}

TEST(SelectDevice, NoMatchListsTheDevices) {
  const std::string list =
      "available devices:\n"
      "  0:0  pthread-skylake-avx512-AMD EPYC [CPU] on Portable Computing Language\n"
      "  1:0  NVIDIA H200 [GPU] on NVIDIA CUDA\n"
      "  1:1  NVIDIA H100 80GB HBM3 [GPU] on NVIDIA CUDA\n"
      "  2:0  Intel(R) FPGA Emulation Device [accelerator] on Intel(R) FPGA Emulation Platform for OpenCL(TM)";
  for (const std::string selector : {"mi300", "3:0", "1:2"}) {
    try {
      select_device(fake_devices(), selector);
      FAIL() << selector;
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), "no OpenCL device matches '" + selector + "'; " + list);
    }
  }
  auto cpus_only = fake_devices();
  cpus_only.resize(1);
  EXPECT_THROW(select_device(cpus_only, "gpu"), UserError);
  EXPECT_THROW(select_device(std::vector<DeviceInfo>{}, ""), UserError);
}

TEST(DeviceSlug, LowerCaseWordsJoinedByDashes) {
  auto devices = fake_devices();
  EXPECT_EQ(device_slug(devices[0]), "pocl-cpu-amd-epyc");
  EXPECT_EQ(device_slug(devices[1]), "nvidia-h200");
  EXPECT_EQ(device_slug(devices[2]), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(device_slug(devices[3]), "intel-fpga-emulation-device");
  DeviceInfo intel =
      fake_device(0, 0, "Intel(R) OpenCL", "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", CL_DEVICE_TYPE_CPU);
  EXPECT_EQ(device_slug(intel), "intel-i7-8700");
  DeviceInfo amd = fake_device(0, 0, "Portable Computing Language", "cpu-znver3-AMD EPYC 7B13 64-Core Processor",
                               CL_DEVICE_TYPE_CPU);
  EXPECT_EQ(device_slug(amd), "pocl-cpu-amd-epyc-7b13");
}

TEST(DeviceSlug, CpusSayHowManyCoresTheyHave) {
  DeviceInfo vm = fake_device(0, 0, "Portable Computing Language", "pthread-skylake-avx512-Intel(R) Xeon(R) Processor",
                              CL_DEVICE_TYPE_CPU);
  vm.compute_units = 2;
  DeviceInfo host = vm;
  host.compute_units = 16;
  EXPECT_EQ(device_slug(vm), "pocl-cpu-intel-xeon-2c");
  EXPECT_EQ(device_slug(host), "pocl-cpu-intel-xeon-16c");
  DeviceInfo gpu = fake_device(1, 0, "NVIDIA CUDA", "NVIDIA H200", CL_DEVICE_TYPE_GPU);
  gpu.compute_units = 132;
  EXPECT_EQ(device_slug(gpu), "nvidia-h200");  // a GPU's name already tells the models apart
}

TEST(ListDevices, TheInstalledDevicesHaveSaneLimits) {
  auto devices = list_devices();
  ASSERT_FALSE(devices.empty()) << "the tests need an OpenCL device (PoCL)";
  for (const auto& d : devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.platform_name.empty());
    EXPECT_GT(d.compute_units, 0u);
    EXPECT_GT(d.max_work_group_size, 0u);
    EXPECT_GE(d.max_work_item_sizes.size(), 3u);
    EXPECT_GT(d.local_mem_bytes, 0u);
    EXPECT_GE(d.global_mem_bytes, d.max_alloc_bytes);
    EXPECT_GT(d.max_alloc_bytes, 0u);
    EXPECT_NE(d.opencl_c_version.find("OpenCL C"), std::string::npos);
    // Selecting a device by its own P:D gives it back.
    EXPECT_EQ(select_device(devices, d.selector()).device, d.device);
  }
  DeviceInfo chosen = select_device("");
  EXPECT_EQ(chosen.device, select_device(devices, "").device);
  std::string listing = format_device_list(devices);
  EXPECT_NE(listing.find("Platform 0: " + devices[0].platform_name), std::string::npos) << listing;
  EXPECT_NE(listing.find("0:0  " + devices[0].name), std::string::npos) << listing;
  EXPECT_NE(listing.find("max work-group size"), std::string::npos) << listing;
  EXPECT_NE(listing.find("local memory"), std::string::npos) << listing;
  EXPECT_NE(listing.find(", default]"), std::string::npos) << listing;
}

}  // namespace
}  // namespace mdh
