// mdh devices: what OpenCL can see, with the selectors `--device` takes.
#include <iostream>

#include "cli/common.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/device_profile.h"
#include "runtime/device.h"
#include "runtime/icd_diagnostics.h"

namespace mdh::cli {

int devices_command(const Args& args) {
  po::options_description options("mdh devices options");
  options.add_options()("slug", po::value<std::string>(),
                        "print only the results-folder name of the device this selector picks (\"\" = default)");
  options.add_options()("selector", po::value<std::string>(), "print only the P:D of the device this selector picks");
  options.add_options()("profile", po::value<std::string>(),
                        "print the device profile (name, slug and limits, as tuning results record them) of the "
                        "device this selector picks, for --device-profile on machines without it");
  options.add_options()("icd", "print which OpenCL drivers (ICD files) the loader reads and whether each one loads");
  po::variables_map vm;
  if (!parse_options("devices", "", args, options, vm, "")) return 0;
  if (vm.count("slug")) {
    std::cout << device_slug(select_device(vm["slug"].as<std::string>())) << '\n';
    return 0;
  }
  if (vm.count("selector")) {
    std::cout << select_device(vm["selector"].as<std::string>()).selector() << '\n';
    return 0;
  }
  if (vm.count("profile")) {
    const DeviceInfo device = select_device(vm["profile"].as<std::string>());
    std::cout << device_profile_json(device, device_limits(device)).dump(2) << '\n';
    return 0;
  }
  if (vm.count("icd")) {
    std::cout << describe_icd_loading();
    return 0;
  }
  auto devices = list_devices();
  if (devices.empty()) throw UserError("no OpenCL device found (is an ICD such as pocl-opencl-icd installed?)");
  std::cout << format_device_list(devices);
  std::cout << "default: " << select_device("").selector() << '\n';
  return 0;
}

}  // namespace mdh::cli
