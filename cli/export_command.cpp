// mdh export SPEC --size ... [--config F] -o DIR: what an application needs to run a tuned kernel without mdh —
// the standalone OpenCL C, its launch description, and the header-only runner runtime/mdh_runner.hpp.
#include <cstddef>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "pipeline/kernel.h"
#include "pipeline/recorded_device.h"
#include "pipeline/tuned_store.h"
#include "runtime/device.h"

namespace mdh::cli {

// The text of runtime/mdh_runner.hpp, embedded at build time (cli/CMakeLists.txt), so that an installed or
// moved `mdh` binary does not need the source tree.
extern const unsigned char kMdhRunnerHeader[];
extern const std::size_t kMdhRunnerHeaderSize;

int export_command(const Args& args) {
  po::options_description options("mdh export options");
  options.add_options()                                                                                  //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("config", po::value<std::string>(),
       "tunable-kernel configuration, e.g. from mdh tune --out ('default': the device's default config; without it: "
       "the configuration tuned for the nearest sizes in the store, else the default)")                              //
      ("device", po::value<std::string>()->default_value(""), "device whose limits the configuration must respect")  //
      ("output,o", po::value<std::string>(), "the directory to write into (created if missing)");
  add_tuned_store_option(options);
  add_device_profile_option(options);
  po::variables_map vm;
  if (!parse_options("export", "SPEC --size I=..,J=.. [--config FILE] [--device D | --device-profile P] -o DIR", args,
                     options, vm))
    return 0;
  if (!vm.count("output")) throw UserError(SourceLoc{}, "mdh export: missing the output directory (-o DIR)");
  BoundMdh bound = load_and_bind(vm["spec"].as<std::string>(), vm["size"].as<std::string>());

  // The same plan `mdh generate` makes from these options, so the exported files equal its output.
  const TargetDevice target = target_device(vm, true);
  const KernelChoice asked = kernel_choice(vm);
  const DeviceLimits limits = limits_for_kernel_choice(asked, bound, target, print_note);
  std::optional<StoredConfiguration> stored;
  const KernelChoice choice = resolve_kernel_choice(asked, bound, target.slug, limits, print_note, &stored);
  const LaunchPlan plan = prepare_kernel(bound, limits, choice).plan;
  if (stored)
    print_note(std::string("it is valid for these sizes on ") + (target.from_profile ? "the profile's" : "this") +
               " device; export does not run it: `mdh run` checks its result against the reference before its first "
               "use");

  const std::filesystem::path directory = vm["output"].as<std::string>();
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (!std::filesystem::is_directory(directory))
    throw UserError(SourceLoc{}, "mdh export: cannot create the directory '" + directory.string() + "'" +
                                     (error ? ": " + error.message() : std::string()));
  const std::string base = (directory / bound.mdh->name).string();
  for (const std::string& file : {base + ".cl", base + ".launch.json", (directory / "mdh_runner.hpp").string()})
    check_output_path("-o", file, input_files(vm));
  write_text(base + ".cl", plan.source);
  write_text(base + ".launch.json", launch_to_json(plan, bound).dump(2) + "\n");
  write_text((directory / "mdh_runner.hpp").string(),
             std::string(reinterpret_cast<const char*>(kMdhRunnerHeader), kMdhRunnerHeaderSize));

  std::cout << "wrote " << base << ".cl, " << base << ".launch.json and " << (directory / "mdh_runner.hpp").string()
            << " (" << plan.kernels.size() << (plan.kernels.size() == 1 ? " kernel, " : " kernels, ")
            << plan.scratch.size() << " scratch buffer" << (plan.scratch.size() == 1 ? "" : "s") << ")\n";
  return 0;
}

}  // namespace mdh::cli
