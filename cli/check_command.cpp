// mdh check SPEC: parse and verify; print what the spec declares; build its user code on a device.
#include <iostream>

#include "cli/common.h"
#include "mdh/describe.h"
#include "mdh/signature.h"
#include "pipeline/pipeline.h"
#include "pipeline/user_code_build.h"

namespace mdh::cli {

int check_command(const Args& args) {
  po::options_description options("mdh check options");
  options.add_options()                                                                                      //
      ("size", po::value<std::string>(), "also bind sizes, e.g. I=1024,J=1024, and check the views")         //
      ("device", po::value<std::string>()->default_value(""), "device whose compiler builds the user code")  //
      ("no-build", "do not build the user code (scalar function, helpers, operators) on a device");
  po::variables_map vm;
  if (!parse_options("check", "SPEC [--size I=..,J=..] [--device D] [--no-build]", args, options, vm)) return 0;
  std::shared_ptr<const Mdh> mdh = load_spec(vm["spec"].as<std::string>());
  std::cout << describe(*mdh);
  // What tuned results record of the md_hom, so that a changed spec does not reuse them (pipeline/tuned_store.h).
  std::cout << "  signature: " << md_hom_signature(*mdh) << '\n';
  std::optional<SizeBinding> sizes;
  if (vm.count("size")) {
    sizes = parse_size_binding(vm["size"].as<std::string>());
    bind(mdh, *sizes);
    std::cout << "sizes " << vm["size"].as<std::string>() << ": every view access is inside its buffer\n";
  }
  if (!vm.count("no-build")) std::cout << build_user_code(mdh, sizes, vm["device"].as<std::string>()).what << '\n';
  return 0;
}

}  // namespace mdh::cli
