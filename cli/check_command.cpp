// mdh check SPEC: parse and verify; print what the spec declares.
#include <iostream>

#include "cli/common.h"
#include "mdh/describe.h"
#include "mdh/parser.h"
#include "mdh/signature.h"

namespace mdh::cli {

int check_command(const Args& args) {
  po::options_description options("mdh check options");
  options.add_options()("size", po::value<std::string>(), "also bind sizes, e.g. I=1024,J=1024, and check the views");
  po::variables_map vm;
  if (!parse_options("check", "SPEC [--size I=..,J=..]", args, options, vm)) return 0;
  std::shared_ptr<const Mdh> mdh = parse_spec_file(vm["spec"].as<std::string>());
  std::cout << describe(*mdh);
  // What tuned results record of the md_hom, so that a changed spec does not reuse them (pipeline/tuned_store.h).
  std::cout << "  signature: " << md_hom_signature(*mdh) << '\n';
  if (vm.count("size")) {
    bind(mdh, parse_size_binding(vm["size"].as<std::string>()));
    std::cout << "sizes " << vm["size"].as<std::string>() << ": every view access is inside its buffer\n";
  }
  return 0;
}

}  // namespace mdh::cli
