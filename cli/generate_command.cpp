// mdh generate SPEC --size ...: print the generated OpenCL C (standalone) and, with --launch, how to launch it.
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "codegen/preamble.h"
#include "codegen/reference_kernel.h"
#include "pipeline/compute_precision.h"
#include "pipeline/kernel.h"
#include "pipeline/recorded_device.h"
#include "pipeline/tuned_store.h"
#include "runtime/device.h"

namespace mdh::cli {

int generate_command(const Args& args) {
  po::options_description options("mdh generate options");
  options.add_options()                                                                                            //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")            //
      ("output,o", po::value<std::string>()->default_value("-"), "write the OpenCL C here (default: stdout)")      //
      ("launch", po::value<std::string>(), "write the launch description (kernels, NDRanges, arguments) as JSON")  //
      ("config", po::value<std::string>(),
       "tunable-kernel configuration ('default': the device's default config; without it: the one tuned for the "
       "nearest sizes in the store, else the default)")                                                              //
      ("device", po::value<std::string>()->default_value(""), "device whose limits the configuration must respect")  //
      ("reference", "the reference kernel (one work-item per output point) instead of the tunable kernel")           //
      ("double", "with --reference: the verifying reference, in double wherever the spec says float");
  add_tuned_store_option(options);
  add_device_profile_option(options);
  add_precision_option(options);
  po::variables_map vm;
  if (!parse_options("generate",
                     "SPEC --size I=..,J=.. [--config FILE | --reference] [--device D | --device-profile P] [-o FILE] "
                     "[--launch FILE]",
                     args, options, vm))
    return 0;
  const std::vector<NamedPath> inputs = input_files(vm);
  check_output_path("-o", vm["output"].as<std::string>(), inputs);
  if (vm.count("launch")) {
    std::vector<NamedPath> taken = inputs;
    taken.push_back({"OpenCL output (-o)", vm["output"].as<std::string>()});
    check_output_path("--launch", vm["launch"].as<std::string>(), taken);
  }
  BoundMdh bound = load_and_bind(vm["spec"].as<std::string>(), vm["size"].as<std::string>());
  PreambleOptions preamble;
  if (vm.count("double")) {
    if (!can_promote_to_double(*bound.mdh))
      throw UserError("--double: " + bound.mdh->name + " uses struct types, whose layout would change in double");
    preamble.promote_float_to_double = true;
  }
  if (vm.count("double") && !vm.count("reference")) throw UserError("--double goes with --reference");
  KernelChoice choice = kernel_choice(vm);
  // Only the device's limits are read (no context is created), so this works for any listed device or profile, and
  // a result tuned on another device is generated for that device's recorded limits; the reference kernel needs none.
  DeviceLimits limits;
  if (!vm.count("reference")) {
    const TargetDevice target = target_device(vm, true);
    limits = limits_for_kernel_choice(choice, bound, target, print_note);
    settle_precision(bound, precision_option(vm), limits, target.name, print_note);
    choice = resolve_kernel_choice(choice, bound, target.slug, limits, print_note);
  } else if (vm.count("device-profile")) {
    throw UserError("--device-profile goes with the tunable kernel: the reference kernel is the same for every device");
  }
  const LaunchPlan plan = prepare_kernel(bound, limits, choice, preamble).plan;
  write_text(vm["output"].as<std::string>(), plan.source);
  if (vm.count("launch"))
    write_text(vm["launch"].as<std::string>(), launch_to_json(plan, bound, vm.count("double") > 0).dump(2) + "\n");
  return 0;
}

}  // namespace mdh::cli
