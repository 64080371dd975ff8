// device_peak: the hardware limits a benchmark row is judged against, measured on one OpenCL device in the same run
// as the cases: FP32 multiply-add throughput (independent FMA chains) and copy bandwidth (a large buffer copied
// with float4 loads and stores). Both use the one measurement method (runtime/measurement.h) and check their result,
// so a compiler that folded the arithmetic away or a copy that moved nothing cannot report a number.
//
// Not a peer: `device_peak [--device SEL] [--json FILE] [--quick]` measures on one OpenCL device what every benchmark
// row is judged against ("% of limit" in the result tables, `scripts/percent_of_limit.py`), with the same measurement
// method and in the same benchmark run as the cases:
// - FP32 throughput: `fma_chains`, each work-item running independent chains of `x = x * factor + addend`
//   (`FP_CONTRACT ON`, so one FMA each; 2 flops per FMA) for a constant trip count, then writing the sum of its
//   chains. GPUs: 16 scalar chains per work-item, 256 per work-group, 32 work-groups per compute unit, 2,048 FMAs per
//   chain. CPUs: 8 `floatN` chains of the device's preferred width (at least 4), since PoCL vectorises the work-group
//   loop only where it is innermost and the chain loop is not. The start values differ per chain and per work-item
//   (mod 4), the factor and addend are kernel arguments, and the host checks every work-item's sum against the same
//   recurrences in double precision (relative 1e-3; skipping a tenth of the iterations moves a sum by about 3%), so a
//   compiler that folded or shortened the loop fails instead of inflating the peak (exit 1).
// - Copy bandwidth: `copy_float4`, one float4 per work-item from a 1 GiB buffer (CPUs: 256 MiB; at most a quarter of
//   the largest allocation) into another; read + written bytes per median device time; the copy is checked byte for
//   byte.
// `--quick` (tests) uses 512 FMAs per chain, 2 work-groups per compute unit and a 16 MiB buffer; `--fma-width`,
// `--fma-accumulators` and `--copy-mib` override the shapes. The record: `device`, `device_selector`, `device_type`,
// `platform`, `driver`, `compute_units`, `max_clock_mhz`, `global_mem_cache_bytes`, `fp32_gflops`, `copy_gbytes_per_s`,
// `passed`, and per kernel its shape, work, `device_time_ns`/`call_time_ns` statistics, `runs` and `check`.
#include <CL/cl.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "peers/peer_common.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "runtime/measurement.h"
#include "runtime/opencl_error.h"
#include "support/error.h"

namespace po = boost::program_options;

namespace mdh::peers {
namespace {

// Work-items differ in their start values by (id & kItemClasses - 1) so that no compiler can treat a chain as
// uniform across work-items; the host checks one expected sum per class.
constexpr int kItemClasses = 4;
// Relative tolerance of the FMA check. Rounding is damped by the contraction (factor < 1): each chain stays within
// about `iterations` ulps of the double-precision value (~1e-4 at 2048 iterations); skipping even a tenth of the
// iterations moves the sum by several percent.
constexpr double kFmaTolerance = 1e-3;

struct PeakOptions {
  std::string device;
  std::string json_path;
  bool quick = false;
  int vector_width = 0;  // 0: chosen from the device (see fma_shape)
  int accumulators = 0;  // 0: chosen from the device
  int64_t copy_mib = 0;  // 0: chosen from the device
  MeasurementOptions measurement;
};

/// How the FMA kernel is shaped for a device: `accumulators` variables of `floatN` (N = vector_width) per work-item,
/// each one chain of `iterations` dependent multiply-adds.
struct FmaShape {
  int vector_width = 1;
  int accumulators = 16;
  int iterations = 2048;  // a power of two: factor = 1 - 1/iterations and addend = 1/iterations are exact floats
  size_t work_group_size = 256;
  size_t work_items = 0;
  int chains() const { return vector_width * accumulators; }
  double flops() const { return 2.0 * static_cast<double>(work_items) * chains() * iterations; }
};

// GPUs issue one scalar FMA per lane and hide latency across warps: 16 scalar chains per work-item are plenty.
// A CPU runtime (PoCL) vectorises the work-group loop only where it is innermost, which the chain loop prevents,
// so the SIMD width must come from the kernel itself: floatN of the device's preferred width, with enough of them
// to cover the FMA latency of two pipes.
FmaShape fma_shape(const DeviceInfo& device, const PeakOptions& options) {
  FmaShape shape;
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  int width = cpu ? static_cast<int>(std::max<uint32_t>(device.preferred_float_vector_width, 4)) : 1;
  if (options.vector_width) width = options.vector_width;
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)
    throw UserError("--fma-width must be 1, 2, 4, 8 or 16, not " + std::to_string(width));
  shape.vector_width = width;
  shape.accumulators = options.accumulators ? options.accumulators : (width > 1 ? 8 : 16);
  if (shape.accumulators < 1 || shape.accumulators > 64)
    throw UserError("--fma-accumulators must be between 1 and 64, not " + std::to_string(shape.accumulators));
  shape.iterations = options.quick ? 512 : 2048;
  uint64_t group = std::min<uint64_t>(
      {256, device.max_work_group_size, device.max_work_item_sizes.empty() ? 256 : device.max_work_item_sizes[0]});
  if (cpu) group = std::min<uint64_t>(group, 64);
  shape.work_group_size = static_cast<size_t>(group);
  // Every compute unit gets many work-groups, so that the tail of the last wave is a small share of the time.
  const size_t waves = options.quick ? 2 : (cpu ? 16 : 32);
  shape.work_items = std::max<size_t>(device.compute_units, 1) * waves * shape.work_group_size;
  return shape;
}

std::string lane_literal(int width, int first) {
  std::ostringstream out;
  if (width == 1) return "(float)" + std::to_string(first);
  out << "(float" << width << ")(";
  for (int lane = 0; lane < width; ++lane) out << (lane ? ", " : "") << first + lane;
  out << ")";
  return out.str();
}

const char* const kLaneNames = "0123456789abcdef";

/// The FMA kernel: accumulator k, lane l holds chain j = k * width + l, starting at
/// start + chain_step * j + item_step * (id & 3), then `iterations` times x = x * factor + addend. The sum of all
/// chains is written per work-item, so every chain's result is needed.
std::string fma_source(const FmaShape& s) {
  const std::string vec = s.vector_width == 1 ? "float" : "float" + std::to_string(s.vector_width);
  std::ostringstream k;
  k << "#pragma OPENCL FP_CONTRACT ON\n"
    << "kernel void fma_chains(global float* sums, const float start, const float chain_step,\n"
    << "                       const float item_step, const float factor, const float addend) {\n"
    << "  const size_t item = get_global_id(0);\n"
    << "  const float base = start + item_step * (float)(item & " << kItemClasses - 1 << ");\n";
  for (int a = 0; a < s.accumulators; ++a)
    k << "  " << vec << " a" << a << " = base + chain_step * " << lane_literal(s.vector_width, a * s.vector_width)
      << ";\n";
  // Four rounds per trip keep the loop's own instructions a small share even where the compiler does not unroll.
  k << "  for (int i = 0; i < " << s.iterations / 4 << "; ++i) {\n";
  for (int round = 0; round < 4; ++round)
    for (int a = 0; a < s.accumulators; ++a) k << "    a" << a << " = a" << a << " * factor + addend;\n";
  k << "  }\n  " << vec << " total = a0";
  for (int a = 1; a < s.accumulators; ++a) k << " + a" << a;
  k << ";\n  sums[item] = ";
  if (s.vector_width == 1) {
    k << "total";
  } else {
    for (int lane = 0; lane < s.vector_width; ++lane) k << (lane ? " + " : "") << "total.s" << kLaneNames[lane];
  }
  k << ";\n}\n";
  return k.str();
}

const char* const kCopySource =
    "kernel void copy_float4(global const float4* restrict source, global float4* restrict target) {\n"
    "  const size_t i = get_global_id(0);\n"
    "  target[i] = source[i];\n"
    "}\n";

/// One kernel launch, profiled: the device time from its event, the call time until clFinish returns.
RunTimes launch(Context& context, cl_kernel kernel, size_t global, size_t local, const std::string& what) {
  cl_event raw = nullptr;
  const double start = now_ns();
  check(clEnqueueNDRangeKernel(context.queue(), kernel, 1, nullptr, &global, &local, 0, nullptr, &raw),
        "launching " + what);
  ClEvent event(raw);
  check(clFinish(context.queue()), "running " + what);
  const double wall = now_ns() - start;
  cl_ulong begin = 0, end = 0;
  check(clGetEventProfilingInfo(raw, CL_PROFILING_COMMAND_START, sizeof begin, &begin, nullptr), "profiling " + what);
  check(clGetEventProfilingInfo(raw, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "profiling " + what);
  return RunTimes{static_cast<double>(end >= begin ? end - begin : 0), wall};
}

template <class T>
void set_arg(cl_kernel kernel, cl_uint index, const T& value, const char* what) {
  check(clSetKernelArg(kernel, index, sizeof value, &value), what);
}

nlohmann::json measurement_json(const Measurement& m) {
  return {{"device_time_ns", time_stats_json(m.device)},
          {"call_time_ns", time_stats_json(m.call)},
          {"runs", m.runs},
          {"warmups", m.warmups},
          {"ci_met", m.ci_met}};
}

struct FmaResult {
  nlohmann::json json;
  double gflops = 0;
  bool passed = false;
};

FmaResult measure_fma(Context& context, const FmaShape& shape, const MeasurementOptions& measurement) {
  const float start = 2.0f, chain_step = 1.0f / 64, item_step = 0.25f;
  const float factor = 1.0f - 1.0f / static_cast<float>(shape.iterations);
  const float addend = 1.0f / static_cast<float>(shape.iterations);
  cl_program program = context.program(fma_source(shape), "");
  cl_kernel kernel = context.kernel(program, "fma_chains");
  DeviceBuffer sums = context.create_buffer(shape.work_items * sizeof(float));
  cl_mem sums_mem = sums.get();
  set_arg(kernel, 0, sums_mem, "setting the FMA kernel's arguments");
  set_arg(kernel, 1, start, "setting the FMA kernel's arguments");
  set_arg(kernel, 2, chain_step, "setting the FMA kernel's arguments");
  set_arg(kernel, 3, item_step, "setting the FMA kernel's arguments");
  set_arg(kernel, 4, factor, "setting the FMA kernel's arguments");
  set_arg(kernel, 5, addend, "setting the FMA kernel's arguments");
  auto run_once = [&] { return launch(context, kernel, shape.work_items, shape.work_group_size, "the FMA kernel"); };

  // Correctness first: the sums of one run against the same recurrences in double precision.
  run_once();
  std::vector<float> got(shape.work_items);
  sums.read(got.data(), got.size() * sizeof(float));
  std::vector<double> expected(kItemClasses, 0.0);
  for (int c = 0; c < kItemClasses; ++c)
    for (int j = 0; j < shape.chains(); ++j) {
      double x = static_cast<double>(start) + static_cast<double>(chain_step) * j + static_cast<double>(item_step) * c;
      for (int i = 0; i < shape.iterations; ++i) x = x * factor + addend;
      expected[c] += x;
    }
  double max_rel_error = 0;
  size_t mismatches = 0;
  for (size_t item = 0; item < got.size(); ++item) {
    const double want = expected[item % kItemClasses];
    const double error = std::abs(static_cast<double>(got[item]) - want) / std::abs(want);
    if (!(error <= kFmaTolerance)) ++mismatches;  // NaN counts as a mismatch
    max_rel_error = std::isnan(error) ? error : std::max(max_rel_error, error);
  }
  const Measurement m = measure(run_once, measurement);

  FmaResult result;
  result.passed = mismatches == 0;
  result.gflops = shape.flops() / m.device.median_ns;
  result.json = measurement_json(m);
  result.json.update({{"kernel",
                       "fma_chains: per work-item, accumulators x floatN chains of x = x * factor + addend "
                       "(FP_CONTRACT ON), their sum written"},
                      {"vector_width", shape.vector_width},
                      {"accumulators", shape.accumulators},
                      {"chains_per_work_item", shape.chains()},
                      {"iterations", shape.iterations},
                      {"work_items", shape.work_items},
                      {"work_group_size", shape.work_group_size},
                      {"flops", shape.flops()},
                      {"flops_per_fma", 2},
                      {"parameters",
                       {{"start", start},
                        {"chain_step", chain_step},
                        {"item_step", item_step},
                        {"factor", factor},
                        {"addend", addend},
                        {"item_classes", kItemClasses}}},
                      {"check",
                       {{"passed", result.passed},
                        {"expected_sums", expected},
                        {"first_sums", std::vector<float>(got.begin(), got.begin() + kItemClasses)},
                        {"max_rel_error", max_rel_error},
                        {"tolerance", kFmaTolerance},
                        {"mismatches", mismatches}}}});
  return result;
}

struct CopyResult {
  nlohmann::json json;
  double gbytes_per_s = 0;
  bool passed = false;
};

// Far beyond every cache of the devices we measure (H200: 50 MB L2; Xeon: tens of MB L3). On a GPU 1 GiB also makes
// the launch's ramp-up and tail a negligible share of a ~0.5 ms copy; a CPU copies at a tenth of that speed, where
// 256 MiB keeps the runs short. At most a quarter of the largest allocation and an eighth of the device memory.
size_t copy_buffer_bytes(const DeviceInfo& device, const PeakOptions& options, size_t granule) {
  const bool cpu = (device.type & CL_DEVICE_TYPE_CPU) != 0;
  uint64_t bytes = options.copy_mib ? static_cast<uint64_t>(options.copy_mib) << 20
                   : options.quick  ? uint64_t{16} << 20
                                    : (cpu ? uint64_t{256} : uint64_t{1024}) << 20;
  if (!options.copy_mib) {
    if (device.max_alloc_bytes) bytes = std::min<uint64_t>(bytes, device.max_alloc_bytes / 4);
    if (device.global_mem_bytes) bytes = std::min<uint64_t>(bytes, device.global_mem_bytes / 8);
  } else if (device.max_alloc_bytes && bytes > device.max_alloc_bytes) {
    throw UserError("--copy-mib " + std::to_string(options.copy_mib) + " exceeds the device's largest allocation (" +
                    std::to_string(device.max_alloc_bytes >> 20) + " MiB)");
  }
  bytes -= bytes % granule;
  if (bytes == 0) throw UserError("the copy buffer would be empty on this device");
  return static_cast<size_t>(bytes);
}

/// The work-group size of the copy kernel; the buffer is a multiple of one work-group's float4s.
size_t copy_group_size(const DeviceInfo& device) {
  return static_cast<size_t>(std::min<uint64_t>(256, device.max_work_group_size));
}

CopyResult measure_copy(Context& context, size_t bytes, const MeasurementOptions& measurement) {
  const size_t group = copy_group_size(context.device());
  const size_t work_items = bytes / 16;
  cl_program program = context.program(kCopySource, "");
  cl_kernel kernel = context.kernel(program, "copy_float4");
  std::vector<uint32_t> pattern(bytes / 4);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint32_t>(i * 2654435761u);
  DeviceBuffer source = context.create_buffer(bytes), target = context.create_buffer(bytes);
  source.write(pattern.data(), bytes);
  cl_mem source_mem = source.get(), target_mem = target.get();
  set_arg(kernel, 0, source_mem, "setting the copy kernel's arguments");
  set_arg(kernel, 1, target_mem, "setting the copy kernel's arguments");
  auto run_once = [&] { return launch(context, kernel, work_items, group, "the copy kernel"); };

  run_once();
  std::vector<uint32_t> copied(pattern.size());
  target.read(copied.data(), bytes);
  const bool passed = copied == pattern;
  copied = {};
  const Measurement m = measure(run_once, measurement);

  CopyResult result;
  result.passed = passed;
  result.gbytes_per_s = 2.0 * static_cast<double>(bytes) / m.device.median_ns;
  result.json = measurement_json(m);
  result.json.update({{"kernel", "copy_float4: target[i] = source[i], one float4 per work-item"},
                      {"buffer_bytes", bytes},
                      {"bytes_moved", 2 * bytes},
                      {"work_items", work_items},
                      {"work_group_size", group},
                      {"check", {{"passed", passed}}}});
  return result;
}

/// Parses the command line; false after printing --help.
bool parse_options(int argc, const char* const* argv, PeakOptions& options) {
  po::options_description desc("device_peak options");
  desc.add_options()                                                                                                 //
      ("help", "print this help")                                                                                    //
      ("device", po::value<std::string>()->default_value(""), "OpenCL device: P:D, gpu, cpu or a name")              //
      ("json", po::value<std::string>(), "also write the JSON record to FILE")                                       //
      ("quick", "small sizes (a few seconds on a CPU device; for tests, not for judging a device)")                  //
      ("fma-width", po::value<int>()->default_value(0), "floatN of the FMA chains (default: by device type)")        //
      ("fma-accumulators", po::value<int>()->default_value(0), "floatN variables per work-item (default: by type)")  //
      ("copy-mib", po::value<int64_t>()->default_value(0),
       "size of the copied buffer in MiB (default: 1024 on GPUs, 256 on CPUs)")                          //
      ("warmups", po::value<int>()->default_value(MeasurementOptions{}.warmups), "untimed runs first")   //
      ("min-runs", po::value<int>()->default_value(MeasurementOptions{}.min_runs), "fewest timed runs")  //
      ("max-runs", po::value<int>()->default_value(MeasurementOptions{}.max_runs),
       "most timed runs (the CI target of 2% may stop earlier)");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UserError(std::string("device_peak: ") + e.what());
  }
  if (vm.count("help")) {
    std::cout << "usage: device_peak [--device SEL] [--json FILE] [--quick]\n" << desc;
    return false;
  }
  options.device = vm["device"].as<std::string>();
  if (vm.count("json")) options.json_path = vm["json"].as<std::string>();
  options.quick = vm.count("quick") > 0;
  options.vector_width = vm["fma-width"].as<int>();
  options.accumulators = vm["fma-accumulators"].as<int>();
  options.copy_mib = vm["copy-mib"].as<int64_t>();
  if (options.copy_mib < 0) throw UserError("--copy-mib must not be negative");
  options.measurement.warmups = vm["warmups"].as<int>();
  options.measurement.min_runs = vm["min-runs"].as<int>();
  options.measurement.max_runs = vm["max-runs"].as<int>();
  return true;
}

int device_peak_main(int argc, const char* const* argv) {
  try {
    PeakOptions options;
    if (!parse_options(argc, argv, options)) return 0;
    Context context(select_device(options.device));
    const DeviceInfo& device = context.device();
    // Both shapes first, so that a bad option is reported before anything runs.
    const FmaShape shape = fma_shape(device, options);
    const size_t copy_bytes = copy_buffer_bytes(device, options, copy_group_size(device) * 16);
    const FmaResult fma = measure_fma(context, shape, options.measurement);
    const CopyResult copy = measure_copy(context, copy_bytes, options.measurement);
    const nlohmann::json record = {
        {"program", "device_peak"},
        {"device", device.name},
        {"device_selector", device.selector()},
        {"device_type", device.type_name()},
        {"platform", device.platform_name},
        {"driver", device.driver_version},
        {"compute_units", device.compute_units},
        {"max_clock_mhz", device.max_clock_mhz},
        // The working sets below twice this are "partly in cache" in the tables (scripts/percent_of_limit.py).
        {"global_mem_cache_bytes", device.global_mem_cache_bytes},
        {"quick", options.quick},
        {"fp32_gflops", fma.gflops},
        {"copy_gbytes_per_s", copy.gbytes_per_s},
        {"passed", fma.passed && copy.passed},
        {"fma", fma.json},
        {"copy", copy.json},
        {"ci_target", {{"confidence", options.measurement.confidence}, {"relative", options.measurement.ci_relative}}},
    };
    std::printf("device_peak: %s (%s, %s, %s)\n", device.name.c_str(), device.selector().c_str(),
                device.platform_name.c_str(), device.driver_version.c_str());
    std::printf("  FP32 FMA: %10.1f GFLOP/s  (%zu work-items x %d chains x %d FMAs; median of %d runs, %.3f ms; %s)\n",
                fma.gflops, fma.json["work_items"].get<size_t>(), fma.json["chains_per_work_item"].get<int>(),
                fma.json["iterations"].get<int>(), fma.json["runs"].get<int>(),
                fma.json["device_time_ns"]["median"].get<double>() * 1e-6, fma.passed ? "sums checked" : "sums WRONG");
    std::printf("  copy:     %10.1f GB/s     (%zu MiB read + written; median of %d runs, %.3f ms; %s)\n",
                copy.gbytes_per_s, copy.json["buffer_bytes"].get<size_t>() >> 20, copy.json["runs"].get<int>(),
                copy.json["device_time_ns"]["median"].get<double>() * 1e-6,
                copy.passed ? "copy checked" : "copy WRONG");
    std::fflush(stdout);
    if (!options.json_path.empty()) {
      std::ofstream file(options.json_path);
      file << record.dump(2) << '\n';
      if (!file) throw UserError("cannot write " + options.json_path);
    }
    if (!fma.passed || !copy.passed) {
      std::cerr << "device_peak: the " << (fma.passed ? "copy" : "FMA") << " kernel computed a wrong result on "
                << device.name << "; its number is not a limit\n";
      return 1;
    }
    return 0;
  } catch (const UserError& e) {
    std::cerr << "device_peak: error: " << e.what() << '\n';
    return 2;
  }
}

}  // namespace
}  // namespace mdh::peers

int main(int argc, char** argv) {
  return mdh::peers::device_peak_main(argc, argv);
}
