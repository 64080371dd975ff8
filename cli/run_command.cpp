// mdh run SPEC --size ...: run an md_hom on given or seeded random inputs, time it, and optionally verify it
// against the reference kernel computed in double precision.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "codegen/reference_kernel.h"
#include "runtime/device.h"
#include "runtime/md_hom_run.h"
#include "runtime/npy.h"
#include "runtime/prl_data.h"
#include "runtime/verify_result.h"

namespace mdh::cli {

namespace {

/// Splits "NAME=VALUE"; UserError naming the option otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UserError("--" + option + " '" + text + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::string format_ms(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

int run_command(const Args& args) {
  po::options_description options("mdh run options");
  options.add_options()                                                                          //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("param", po::value<std::vector<std::string>>()->composing(), "a param value, NAME=VALUE (repeatable)")  //
      ("input", po::value<std::vector<std::string>>()->composing(),
       "read input NAME from FILE (.npy for numeric types, raw .bin for structs): NAME=FILE (repeatable)")  //
      ("output", po::value<std::string>(), "write the output to FILE (.npy or .bin): NAME=FILE")          //
      ("seed", po::value<uint64_t>()->default_value(1), "seed of the random inputs not given with --input")  //
      ("device", po::value<std::string>()->default_value(""), "device selector: P:D, gpu, cpu or a name substring")  //
      ("repeat", po::value<int>()->default_value(10), "timed repetitions")                                  //
      ("warmup", po::value<int>()->default_value(1), "untimed runs before the timed ones")                  //
      ("prl-data", "inputs a, b and freq from the seeded synthetic record generator (for apps/prl.mdh)")  //
      ("verify", "check the result against the reference kernel (in double where possible); exit 1 on failure");
  po::variables_map vm;
  if (!parse_options("run", "SPEC --size I=..,J=.. [--param N=V] [--input N=F] [--output N=F] [--verify]", args,
                     options, vm))
    return 0;
  const int repeat = vm["repeat"].as<int>(), warmup = vm["warmup"].as<int>();
  if (repeat < 1) throw UserError("--repeat must be at least 1");
  if (warmup < 0) throw UserError("--warmup must not be negative");

  BoundMdh bound = load_and_bind(vm["spec"].as<std::string>(), vm["size"].as<std::string>());
  const Mdh& mdh = *bound.mdh;

  std::map<std::string, std::string> params;
  if (vm.count("param"))
    for (const auto& text : vm["param"].as<std::vector<std::string>>()) {
      auto [name, value] = split_assignment(text, "param");
      params[name] = value;
    }
  std::map<std::string, HostBuffer> inputs;
  if (vm.count("input"))
    for (const auto& text : vm["input"].as<std::vector<std::string>>()) {
      auto [name, path] = split_assignment(text, "input");
      int b = mdh.find_buffer(name);
      if (b < 0) throw UserError("--input " + text + ": the spec declares no buffer '" + name + "'");
      if (mdh.buffers[b].kind == BufferKind::Output)
        throw UserError("--input " + text + ": '" + name + "' is the output");
      HostBuffer buffer = make_host_buffer(bound, b);
      read_buffer_file(path, buffer, "input " + name);
      inputs.emplace(name, std::move(buffer));
    }
  if (vm.count("prl-data")) {
    PrlData data = make_prl_data(bound, vm["seed"].as<uint64_t>());
    for (HostBuffer* b : {&data.a, &data.b, &data.freq})
      if (!inputs.count(b->name)) inputs.emplace(b->name, std::move(*b));
  }
  std::optional<std::pair<std::string, std::string>> output_file;
  if (vm.count("output")) {
    output_file = split_assignment(vm["output"].as<std::string>(), "output");
    if (mdh.find_buffer(output_file->first) != bound.output.buffer)
      throw UserError("--output " + vm["output"].as<std::string>() + ": the output of " + mdh.name + " is '" +
                      mdh.buffers[bound.output.buffer].name + "'");
  }

  DeviceInfo device = select_device(vm["device"].as<std::string>());
  Context context(device);
  MdHomRun run(context, bound, std::move(inputs), params, vm["seed"].as<uint64_t>());

  LaunchPlan plan = generate_reference_kernel(bound, PreambleOptions{});
  PlanTiming timing = run.run(plan, warmup, repeat);
  HostBuffer output = run.read_output();

  const uint64_t median = timing.median_kernel_ns();
  std::cout << mdh.name << " (" << vm["size"].as<std::string>() << ") on " << device.name << " [" << device.selector()
            << "], reference kernel\n";
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
