// mdh run SPEC --size ...: run an md_hom on given or seeded random inputs, time it, and optionally verify it
// against the reference kernel computed in double precision. Runs the tunable kernel with --config (or the
// device's default configuration); --reference runs the reference kernel instead.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "codegen/reference_kernel.h"
#include "codegen/tunable_kernel.h"
#include "runtime/device.h"
#include "runtime/md_hom_run.h"
#include "runtime/mdh_tuning.h"
#include "runtime/npy.h"
#include "runtime/verify_result.h"

namespace mdh::cli {

namespace {
std::string format_ms(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f ms", static_cast<double>(ns) / 1e6);
  return buf;
}
}  // namespace

int run_command(const Args& args) {
  po::options_description options("mdh run options");
  options.add_options()                                                                                 //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("config", po::value<std::string>(), "tunable-kernel configuration (JSON: a config or an `mdh tune` result)")  //
      ("reference", "run the reference kernel (one work-item per output point) instead of the tunable kernel")  //
      ("output", po::value<std::string>(), "write the output to FILE (.npy or .bin): NAME=FILE")           //
      ("device", po::value<std::string>()->default_value(""), "device selector: P:D, gpu, cpu or a name substring")  //
      ("repeat", po::value<int>()->default_value(10), "timed repetitions")                                  //
      ("warmup", po::value<int>()->default_value(1), "untimed runs before the timed ones")                  //
      ("verify", "check the result against the reference kernel (in double where possible); exit 1 on failure");
  add_data_options(options);
  po::variables_map vm;
  if (!parse_options("run", "SPEC --size I=..,J=.. [--config FILE] [--param N=V] [--input N=F] [--output N=F] [--verify]",
                     args, options, vm))
    return 0;
  const int repeat = vm["repeat"].as<int>(), warmup = vm["warmup"].as<int>();
  if (repeat < 1) throw UserError("--repeat must be at least 1");
  if (warmup < 0) throw UserError("--warmup must not be negative");
  if (vm.count("config") && vm.count("reference")) throw UserError("--config and --reference exclude each other");

  BoundMdh bound = load_and_bind(vm["spec"].as<std::string>(), vm["size"].as<std::string>());
  const Mdh& mdh = *bound.mdh;
  RunData data = load_run_data(vm, bound);
  std::optional<std::pair<std::string, std::string>> output_file;
  if (vm.count("output")) {
    output_file = split_assignment(vm["output"].as<std::string>(), "output");
    if (mdh.find_buffer(output_file->first) != bound.output.buffer)
      throw UserError("--output " + vm["output"].as<std::string>() + ": the output of " + mdh.name + " is '" +
                      mdh.buffers[bound.output.buffer].name + "'");
  }

  DeviceInfo device = select_device(vm["device"].as<std::string>());
  const DeviceLimits limits = device_limits(device);
  LaunchPlan plan;
  std::string kernel_kind;
  if (vm.count("reference")) {
    plan = generate_reference_kernel(bound, PreambleOptions{});
    kernel_kind = "reference kernel";
  } else {
    KernelConfig config = vm.count("config") ? load_config(vm["config"].as<std::string>(), bound, limits)
                                             : default_config(bound, limits);
    plan = generate_tunable_kernel(bound, config, limits);
    kernel_kind = std::string("tunable kernel, ") + (vm.count("config") ? "config " + vm["config"].as<std::string>()
                                                                        : "default config");
  }

  Context context(device);
  MdHomRun run(context, bound, std::move(data.inputs), data.params, data.seed);
  PlanTiming timing = run.run(plan, warmup, repeat);
  HostBuffer output = run.read_output();

  const uint64_t median = timing.median_kernel_ns();
  std::cout << mdh.name << " (" << vm["size"].as<std::string>() << ") on " << device.name << " [" << device.selector()
            << "], " << kernel_kind << '\n';
  std::cout << "kernel time: median " << format_ms(median) << " over " << repeat << " runs (min "
            << format_ms(*std::min_element(timing.kernel_ns.begin(), timing.kernel_ns.end())) << ", max "
            << format_ms(*std::max_element(timing.kernel_ns.begin(), timing.kernel_ns.end())) << ")";
  const double seconds = std::max(static_cast<double>(median), 1.0) * 1e-9;
  char rate[64];
  if (bound.flops) std::snprintf(rate, sizeof rate, ", %.2f GFLOP/s", *bound.flops / seconds * 1e-9), std::cout << rate;
  if (bound.bytes) std::snprintf(rate, sizeof rate, ", %.2f GB/s", *bound.bytes / seconds * 1e-9), std::cout << rate;
  std::cout << "\nwhole call: median " << format_ms(timing.median_wall_ns()) << '\n';

  if (output_file) write_buffer_file(output_file->second, output);

  if (!vm.count("verify")) return 0;
  const HostBuffer& reference = run.reference_output();
  VerifyReport report = verify_result(output, reference, mdh, bound.reduction_size());
  std::cout << "verify (reference in " << (run.reference_in_double() ? "double" : "the spec's types")
            << "): " << report.summary() << '\n';
  return report.passed ? 0 : 1;
}

}  // namespace mdh::cli
