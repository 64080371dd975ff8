// mdh inspect SPEC --size ... [--config F | --reference] [--device D] -o DIR: builds a configuration's kernels on
// the device and writes what its compiler made of them — the OpenCL C, the launch description, the program binary
// (PTX on NVIDIA), the build log (with ptxas's register and spill report on NVIDIA) and a JSON summary — and prints
// the registers, spills and memory per kernel.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/common.h"
#include "pipeline/kernel_inspection.h"

namespace mdh::cli {

namespace {

namespace fs = std::filesystem;

std::string bytes_text(const std::optional<uint64_t>& bytes) {
  return bytes ? std::to_string(*bytes) + " B" : "?";
}

std::string count_text(const std::optional<uint64_t>& count) {
  return count ? std::to_string(*count) : "?";
}

// One row of a table whose columns are `widths` wide.
std::string row(const std::vector<std::string>& cells, const std::vector<int>& widths) {
  std::string line;
  for (size_t k = 0; k < cells.size(); ++k) {
    line += cells[k];
    if (k + 1 < cells.size()) line += std::string(std::max<int>(1, widths[k] - static_cast<int>(cells[k].size())), ' ');
  }
  return line + '\n';
}

// The per-kernel table: ptxas's numbers where the log has them, else what the PTX declares, else a line saying
// that the driver reports nothing.
std::string resources_text(const KernelInspection& inspection, const std::string& log_path) {
  std::ostringstream out;
  size_t name_width = 6;
  for (const KernelResources& k : inspection.kernels) name_width = std::max(name_width, k.kernel_name.size());
  const int w = static_cast<int>(name_width) + 2;
  const bool any_ptxas = std::any_of(inspection.kernels.begin(), inspection.kernels.end(),
                                     [](const KernelResources& k) { return k.ptxas.has_value(); });
  const bool any_ptx = std::any_of(inspection.kernels.begin(), inspection.kernels.end(),
                                   [](const KernelResources& k) { return k.ptx.has_value(); });
  if (any_ptxas) {
    const std::vector<int> widths{w, 11, 14, 13, 13, 15};
    out << row({"kernel", "registers", "spill stores", "spill loads", "stack frame", "shared memory", "ptxas"}, widths);
    for (const KernelResources& k : inspection.kernels) {
      if (!k.ptxas) {
        out << row({k.kernel_name, "not in the build log"}, widths);
        continue;
      }
      const PtxasKernelReport& r = *k.ptxas;
      out << row(
          {k.kernel_name, count_text(r.registers), bytes_text(r.spill_store_bytes), bytes_text(r.spill_load_bytes),
           bytes_text(r.stack_frame_bytes), bytes_text(r.shared_bytes), r.arch + (r.spills() ? "  SPILLS" : "")},
          widths);
    }
  } else if (any_ptx) {
    out << "the build log has no ptxas lines; from the PTX (virtual registers: ptxas allocates the real ones):\n";
    const std::vector<int> widths{w, 24, 22};
    out << row({"kernel", "PTX virtual registers", "local (stack) memory", "shared memory"}, widths);
    for (const KernelResources& k : inspection.kernels)
      out << (k.ptx ? row({k.kernel_name, std::to_string(k.ptx->virtual_registers),
                           std::to_string(k.ptx->local_bytes) + " B", std::to_string(k.ptx->shared_bytes) + " B"},
                          widths)
                    : row({k.kernel_name, "not in the PTX"}, widths));
  } else {
    out << "registers and spills: unknown (" << inspection.device.platform_name
        << " reports no register allocation; its build log is " << log_path << ", " << inspection.build_log.size()
        << " bytes)\n";
  }
  return out.str();
}

}  // namespace

int inspect_command(const Args& args) {
  po::options_description options("mdh inspect options");
  options.add_options()                                                                                  //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("config", po::value<std::string>(),
       "tunable-kernel configuration ('default': the device's default config; without it: the one tuned for the "
       "nearest sizes in the store, else the default)")                                                              //
      ("reference", "the reference kernel (one work-item per output point) instead of the tunable kernel")           //
      ("device", po::value<std::string>()->default_value(""), "device selector: P:D, gpu, cpu or a name substring")  //
      ("output,o", po::value<std::string>(), "the directory to write into (created if missing)")                     //
      ("force", "replace the files of an earlier inspection in the directory")                                       //
      ("json", "print the summary as JSON (what DIR/<md_hom>.resources.json holds) instead of text");
  add_tuned_store_option(options);
  add_precision_option(options);
  add_device_profile_option(options);
  po::variables_map vm;
  if (!parse_options("inspect",
                     "SPEC --size I=..,J=.. [--config FILE | --reference] [--device D] [--device-profile P] -o DIR "
                     "[--json]",
                     args, options, vm))
    return 0;
  if (!vm.count("output")) throw UserError(SourceLoc{}, "mdh inspect: missing the output directory (-o DIR)");
  // NVIDIA's driver keeps compiled kernels in its compute cache and, on a hit, skips ptxas and with it the report
  // this command exists for. Set before the first OpenCL call, since the driver reads it when it loads; a value the
  // user set is kept.
  ::setenv("CUDA_CACHE_DISABLE", "1", 0);
  InspectRequest request;
  request.spec_path = vm["spec"].as<std::string>();
  request.sizes = vm["size"].as<std::string>();
  request.device = vm["device"].as<std::string>();
  request.kernel = kernel_choice(vm);
  request.precision = precision_option(vm);
  request.note = print_note;
  if (vm.count("device-profile")) {
    if (vm.count("reference"))
      throw UserError(
          "--device-profile goes with the tunable kernel: the reference kernel is the same for every device");
    request.device_profile = vm["device-profile"].as<std::string>();
  }

  // The output files are checked before the build (which can take minutes on a GPU driver); their names need the
  // md_hom's name and whether the binary is PTX, i.e. the spec and the device, both cheap to read.
  const BoundMdh bound = load_and_bind(request.spec_path, request.sizes);
  const bool ptx = is_nvidia_platform(select_device(request.device).platform_name);
  const fs::path directory = vm["output"].as<std::string>();
  std::error_code error;
  fs::create_directories(directory, error);
  if (!fs::is_directory(directory))
    throw UserError(SourceLoc{}, "mdh inspect: cannot create the directory '" + directory.string() + "'" +
                                     (error ? ": " + error.message() : std::string()));
  const std::string base = (directory / bound.mdh->name).string();
  const std::string source_path = base + ".cl", launch_path = base + ".launch.json",
                    binary_path = base + (ptx ? ".ptx" : ".bin"), log_path = base + ".build.log",
                    summary_path = base + ".resources.json";
  for (const std::string& file : {source_path, launch_path, binary_path, log_path, summary_path}) {
    if (!vm.count("force") && fs::exists(file, error))
      throw UserError(SourceLoc{},
                      "mdh inspect: '" + file +
                          "' exists (an earlier inspection?); pass --force to replace it, or choose another -o");
    check_output_path("-o", file, input_files(vm));
  }

  const KernelInspection inspection = inspect_kernel(request);
  const nlohmann::json summary = inspection_to_json(inspection);
  write_text(source_path, inspection.kernel.plan.source);
  write_text(launch_path, launch_to_json(inspection.kernel.plan, inspection.bound).dump(2) + "\n");
  write_text(binary_path, std::string(inspection.binary.begin(), inspection.binary.end()));
  write_text(log_path, inspection.build_log);
  write_text(summary_path, summary.dump(2) + "\n");

  if (vm.count("json")) {
    std::cout << summary.dump(2) << '\n';
    return 0;
  }
  std::cout << inspection.bound.mdh->name << " (" << request.sizes << ") on " << inspection.device.name << " ["
            << inspection.device.selector() << "], " << inspection.kernel.description << '\n'
            << "build options: " << inspection.build_options << '\n'
            << "wrote " << source_path << ", " << launch_path << ", " << binary_path << " ("
            << (inspection.binary_is_ptx ? "PTX, " : "the driver's program binary, ") << inspection.binary.size()
            << " bytes), " << log_path << " (" << inspection.build_log.size() << " bytes) and " << summary_path << '\n'
            << resources_text(inspection, log_path);
  return 0;
}

}  // namespace mdh::cli
