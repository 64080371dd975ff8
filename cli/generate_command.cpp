// mdh generate SPEC --size ...: print the generated OpenCL C (standalone) and, with --launch, how to launch it.
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "codegen/preamble.h"
#include "codegen/reference_kernel.h"

namespace mdh::cli {

int generate_command(const Args& args) {
  po::options_description options("mdh generate options");
  options.add_options()                                                                      //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("output,o", po::value<std::string>()->default_value("-"), "write the OpenCL C here (default: stdout)")  //
      ("launch", po::value<std::string>(), "write the launch description (kernels, NDRanges, arguments) as JSON")  //
      ("double", "the verifying reference: compute in double wherever the spec says float");
  po::variables_map vm;
  if (!parse_options("generate", "SPEC --size I=..,J=.. [-o FILE] [--launch FILE]", args, options, vm)) return 0;
  BoundMdh bound = load_and_bind(vm["spec"].as<std::string>(), vm["size"].as<std::string>());
  PreambleOptions preamble;
  if (vm.count("double")) {
    if (!can_promote_to_double(*bound.mdh))
      throw UserError("--double: " + bound.mdh->name + " uses struct types, whose layout would change in double");
    preamble.promote_float_to_double = true;
  }
  LaunchPlan plan = generate_reference_kernel(bound, preamble);
  write_text(vm["output"].as<std::string>(), plan.source);
  if (vm.count("launch")) write_text(vm["launch"].as<std::string>(), launch_to_json(plan).dump(2) + "\n");
  return 0;
}

}  // namespace mdh::cli
