// mdh run SPEC --size ...: run an md_hom on given or seeded random inputs, time it, and optionally verify it
// against the reference kernel computed in double precision. Runs the tunable kernel with --config (or the
// device's default configuration); --reference runs the reference kernel instead.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "pipeline/pipeline.h"
#include "runtime/npy.h"

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
  options.add_options()                                                                                  //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("config", po::value<std::string>(),
       "tunable-kernel configuration (JSON: a config or an `mdh tune` result; 'default': the device's default)")     //
      ("reference", "run the reference kernel (one work-item per output point) instead of the tunable kernel")       //
      ("output", po::value<std::string>(), "write the output to FILE (.npy or .bin): NAME=FILE")                     //
      ("device", po::value<std::string>()->default_value(""), "device selector: P:D, gpu, cpu or a name substring")  //
      ("repeat", po::value<int>()->default_value(10), "timed repetitions")                                           //
      ("warmup", po::value<int>()->default_value(1), "untimed runs before the timed ones")                           //
      ("verify", "check the result against the reference kernel (in double where possible); exit 1 on failure");
  add_data_options(options);
  add_time_limit_option(options);
  add_tuned_store_option(options);
  add_precision_option(options);
  po::variables_map vm;
  if (!parse_options("run",
                     "SPEC --size I=..,J=.. [--config FILE] [--param N=V] [--input N=F] [--output N=F] [--verify]",
                     args, options, vm))
    return 0;
  RunRequest request;
  request.spec_path = vm["spec"].as<std::string>();
  request.sizes = vm["size"].as<std::string>();
  request.precision = precision_option(vm);
  request.device = vm["device"].as<std::string>();
  request.kernel = kernel_choice(vm);
  request.note = print_note;
  request.data = data_options(vm);
  request.warmup = vm["warmup"].as<int>();
  request.repeat = vm["repeat"].as<int>();
  request.verify = vm.count("verify") > 0;
  std::optional<std::pair<std::string, std::string>> output_file;
  if (vm.count("output")) {
    output_file = split_assignment(vm["output"].as<std::string>(), "output");
    request.output_buffer = output_file->first;
    check_output_path("--output", output_file->second, input_files(vm));
  }

  const RunOutcome run = run_md_hom(request);

  const PlanTiming& timing = run.timing;
  const uint64_t median = timing.median_kernel_ns();
  std::cout << run.bound.mdh->name << " (" << request.sizes << ") on " << run.device.name << " ["
            << run.device.selector() << "], " << run.kernel.description << '\n';
  std::cout << "kernel time: median " << format_ms(median) << " over " << request.repeat << " runs (min "
            << format_ms(*std::min_element(timing.kernel_ns.begin(), timing.kernel_ns.end())) << ", max "
            << format_ms(*std::max_element(timing.kernel_ns.begin(), timing.kernel_ns.end())) << ")";
  const double seconds = std::max(static_cast<double>(median), 1.0) * 1e-9;
  char rate[64];
  if (run.bound.flops)
    std::snprintf(rate, sizeof rate, ", %.2f GFLOP/s", *run.bound.flops / seconds * 1e-9), std::cout << rate;
  if (run.bound.bytes)
    std::snprintf(rate, sizeof rate, ", %.2f GB/s", *run.bound.bytes / seconds * 1e-9), std::cout << rate;
  if (timing.each_kernel_ns.size() > 1) {
    std::cout << "\nper kernel: median";
    for (size_t k = 0; k < timing.each_kernel_ns.size(); ++k)
      std::cout << (k ? ", " : " ") << run.kernel.plan.kernels[k].kernel_name << ' '
                << format_ms(median_ns(timing.each_kernel_ns[k]));
  }
  std::cout << "\nwhole call: median " << format_ms(timing.median_wall_ns()) << '\n';

  if (output_file) write_buffer_file(output_file->second, run.output);

  if (!run.verification) return 0;
  // A stored configuration was checked without --verify (and passed, or the run would have failed): say so.
  std::cout << (request.verify ? "" : "tuned configuration checked, ") << "verify (reference in "
            << (run.reference_in_double ? "double" : "the spec's types") << "): " << run.verification->summary()
            << '\n';
  return run.verification->passed ? 0 : 1;
}

}  // namespace mdh::cli
