// mdh devices: what OpenCL can see, with the selectors `--device` takes.
#include <iostream>

#include "cli/common.h"
#include "runtime/device.h"

namespace mdh::cli {

int devices_command(const Args& args) {
  po::options_description options("mdh devices options");
  po::variables_map vm;
  if (!parse_options("devices", "", args, options, vm, "")) return 0;
  auto devices = list_devices();
  if (devices.empty()) throw UserError("no OpenCL device found (is an ICD such as pocl-opencl-icd installed?)");
  std::cout << format_device_list(devices);
  std::cout << "default: " << select_device("").selector() << '\n';
  return 0;
}

}  // namespace mdh::cli
