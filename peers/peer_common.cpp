#include "peers/peer_common.h"

#include <sched.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

#include "pipeline/pipeline.h"
#include "runtime/device.h"
#include "runtime/prl_data.h"
#include "runtime/verify_result.h"

namespace po = boost::program_options;

namespace mdh::peers {

double now_ns() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

unsigned host_cpu_threads() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0)
    return static_cast<unsigned>(CPU_COUNT(&allowed));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::string host_cpu_name(const std::string& detail) {
  // Physical cores are the distinct (physical id, core id) pairs of /proc/cpuinfo among the processors this process
  // may run on (a container's cpuset); where cpuinfo has none, the hardware threads stand in and the name says so.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool have_mask = sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  std::set<std::pair<std::string, std::string>> cores;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, physical = "0";
  int processor = -1;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "processor") processor = std::atoi(value.c_str());
    if (key == "physical id") physical = value;
    const bool usable = !have_mask || (processor >= 0 && processor < CPU_SETSIZE && CPU_ISSET(processor, &allowed));
    if (key == "core id" && usable) cores.emplace(physical, value);
  }
  const std::string count = cores.empty() ? std::to_string(host_cpu_threads()) + " hardware threads"
                                          : std::to_string(cores.size()) + " cores";
  return "CPU, " + count + " (" + detail + ")";
}

SteadyCalls host_steady_calls(std::function<void()> call) {
  return [call = std::move(call)](int n) {
    const double start = now_ns();
    for (int i = 0; i < n; ++i) call();
    return now_ns() - start;
  };
}

bool parse_peer_options(int argc, const char* const* argv, const std::string& program,
                        const std::vector<ExtraOption>& extra, PeerOptions& options) {
  po::options_description desc(program + " options");
  desc.add_options()                                                                                                 //
      ("help", "print this help")                                                                                    //
      ("routine", po::value<std::string>(), "the computation: gemm, gemm_nt, gemv, dot, ... (see peers/README.md)")  //
      ("spec", po::value<std::string>(), "the spec file whose inputs and reference are used, e.g. apps/gemm.mdh")    //
      ("size", po::value<std::string>(), "size bindings, e.g. I=1024,J=1024,K=1024")                                 //
      ("seed", po::value<uint64_t>()->default_value(1), "seed of the inputs (as mdh run --seed)")                    //
      ("device", po::value<std::string>()->default_value(""),
       "OpenCL device of the reference: P:D, gpu, cpu or a name")                                         //
      ("json", po::value<std::string>(), "also write the JSON record to FILE")                            //
      ("label", po::value<std::string>()->default_value(""), "a label for the record, e.g. RW or PC")     //
      ("warmups", po::value<int>()->default_value(MeasurementOptions{}.warmups), "untimed calls first")   //
      ("min-runs", po::value<int>()->default_value(MeasurementOptions{}.min_runs), "fewest timed calls")  //
      ("max-runs", po::value<int>()->default_value(MeasurementOptions{}.max_runs),
       "most timed calls (the CI target may stop earlier)")  //
      ("ci", po::value<double>()->default_value(MeasurementOptions{}.ci_relative),
       "stop once the 95% confidence interval of the median lies within this share of it (0.02: 2%)")  //
      ("precision", po::value<std::string>()->default_value("fp32"),
       "fp32, or tf32: products on the tensor cores (the peers that offer it; peers/README.md)");
  for (const ExtraOption& e : extra) desc.add_options()(e.name.c_str(), po::value<std::string>(), e.help.c_str());
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UserError(program + ": " + e.what());
  }
  if (vm.count("help")) {
    std::cout << "usage: " << program << " --routine NAME --spec apps/X.mdh --size I=..,J=.. [options]\n" << desc;
    return false;
  }
  for (const char* required : {"routine", "spec", "size"})
    if (!vm.count(required)) throw UserError(program + ": --" + std::string(required) + " is required");
  options.routine = vm["routine"].as<std::string>();
  options.spec = vm["spec"].as<std::string>();
  options.sizes = vm["size"].as<std::string>();
  options.seed = vm["seed"].as<uint64_t>();
  options.device = vm["device"].as<std::string>();
  if (vm.count("json")) options.json_path = vm["json"].as<std::string>();
  options.label = vm["label"].as<std::string>();
  options.measurement.warmups = vm["warmups"].as<int>();
  options.measurement.min_runs = vm["min-runs"].as<int>();
  options.measurement.max_runs = vm["max-runs"].as<int>();
  options.measurement.ci_relative = vm["ci"].as<double>();
  options.precision = parse_precision(vm["precision"].as<std::string>());
  for (const ExtraOption& e : extra)
    if (vm.count(e.name)) options.extra[e.name] = vm[e.name].as<std::string>();
  return true;
}

PeerCase::PeerCase(PeerOptions options) : options_(std::move(options)) {
  BoundMdh bound = load_and_bind(options_.spec, options_.sizes);
  if (!bound.mdh->params.empty())
    throw UserError("peers take specs without params; " + options_.spec + " declares '" + bound.mdh->params[0].name +
                    "'");
  context_ = std::make_unique<Context>(select_device(options_.device));
  std::map<std::string, HostBuffer> inputs;
  // PRL's inputs come from the synthetic record generator, as `mdh run --prl-data` makes them.
  if (options_.routine == "prl" || bound.mdh->name == "prl" || bound.mdh->name == "prl_weights") {
    PrlData data = make_prl_data(bound, options_.seed);
    for (HostBuffer* b : data.buffers()) inputs.emplace(b->name, std::move(*b));
  }
  run_ = std::make_unique<MdHomRun>(*context_, std::move(bound), std::move(inputs),
                                    std::map<std::string, std::string>{}, options_.seed);
}

int64_t PeerCase::size(const std::string& name) const {
  auto it = bound().sizes.find(name);
  if (it == bound().sizes.end()) throw UserError(options_.spec + " has no size '" + name + "'");
  return it->second;
}

HostBuffer PeerCase::make_output() const {
  return make_host_buffer(bound(), bound().output.buffer);
}

void PeerCase::require_md_hom(const std::string& md_hom_name) const {
  if (mdh().name != md_hom_name)
    throw UserError("routine '" + options_.routine + "' expects the md_hom '" + md_hom_name + "', but " +
                    options_.spec + " declares '" + mdh().name + "'");
}

void PeerCase::require_md_hom_of_any_storage(const std::string& md_hom_name) const {
  const std::optional<ScalarType> inputs = input_scalar_type(mdh());
  for (ScalarType stored : {ScalarType::Half, ScalarType::Bfloat16})
    if (inputs == stored && mdh().name == md_hom_name + "_" + opencl_name(stored)) return;
  if (mdh().name != md_hom_name)
    throw UserError("routine '" + options_.routine + "' expects the md_hom '" + md_hom_name + "' (or '" + md_hom_name +
                    "_half', '" + md_hom_name + "_bfloat16' with inputs of that type), but " + options_.spec +
                    " declares '" + mdh().name + "'");
}

std::optional<ScalarType> input_scalar_type(const Mdh& mdh) {
  std::optional<ScalarType> type;
  for (const Buffer& b : mdh.buffers) {
    if (b.kind != BufferKind::Input) continue;
    if (b.type.is_struct() || (type && *type != b.type.scalar)) return std::nullopt;
    type = b.type.scalar;
  }
  return type;
}

std::string data_type_name(const Mdh& mdh, const ElementType& t) {
  if (!t.is_struct() && t.scalar == ScalarType::Float) return "fp32";  // the GEMMbench names
  if (!t.is_struct() && t.scalar == ScalarType::Double) return "fp64";
  if (!t.is_struct() && t.scalar == ScalarType::Half) return "fp16";
  if (!t.is_struct() && t.scalar == ScalarType::Bfloat16) return "bf16";
  return mdh.type_name(t);
}

std::string input_type_name(const Mdh& mdh) {
  std::vector<std::string> names;
  for (const Buffer& b : mdh.buffers) {
    const std::string name = data_type_name(mdh, b.type);
    if (b.kind == BufferKind::Input && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

HostBuffer float_output(const PeerCase& peer_case, const std::vector<float>& values) {
  HostBuffer out = peer_case.make_output();
  if (out.type.is_struct() || out.type.scalar != ScalarType::Float)
    throw UserError("the output of " + peer_case.mdh().name + " is not float");
  if (static_cast<int64_t>(values.size()) != out.element_count())
    throw UserError("the peer produced " + std::to_string(values.size()) + " values for an output of " +
                    std::to_string(out.element_count()));
  std::memcpy(out.bytes.data(), values.data(), values.size() * sizeof(float));
  return out;
}

std::vector<float> float_values(const HostBuffer& buffer) {
  if (buffer.type.is_struct() || buffer.type.scalar != ScalarType::Float)
    throw UserError("buffer " + buffer.name + " is not float");
  std::vector<float> values(static_cast<size_t>(buffer.element_count()));
  std::memcpy(values.data(), buffer.bytes.data(), values.size() * sizeof(float));
  return values;
}

nlohmann::json run_and_record(PeerCase& peer_case, PeerSetup& setup) {
  MDH_INTERNAL_ASSERT(setup.run_once && setup.read_output, "a peer set up without a run or an output");
  const PeerOptions& options = peer_case.options();
  const BoundMdh& bound = peer_case.bound();
  if (setup.precision != options.precision)
    throw UserError(setup.peer + " computes " + options.routine + " in " + precision_name(setup.precision) +
                    " only, not in " + precision_name(options.precision) + " (--precision)");
  const double added_tolerance = product_rounding_tolerance(setup.precision);

  // Correctness first: one call, checked against mdh's reference; then the timed calls.
  setup.run_once();
  HostBuffer output = setup.read_output();
  const HostBuffer& reference = peer_case.reference_output();
  VerifyReport report = verify_result(output, reference, peer_case.mdh(), bound.reduction_size(), 8, setup.precision);
  Measurement m = measure(setup.plain_call ? std::function<RunTimes()>([&setup] {
                            RunTimes times = setup.run_once();
                            times.call_ns = setup.plain_call();
                            return times;
                          })
                                           : setup.run_once,
                          options.measurement);
  // The headline instrument, after the per-call times and before the second check, which thus also covers it.
  std::optional<SteadyMeasurement> steady;
  if (setup.steady_calls) steady = measure_steady(setup.steady_calls, options.measurement);
  // The second check, after the timed calls; the record reports the worse of the two.
  if (setup.checked_call) {
    setup.checked_call();
    VerifyReport last =
        verify_result(setup.read_output(), reference, peer_case.mdh(), bound.reduction_size(), 8, setup.precision);
    if (report.passed && (!last.passed || last.max_rel_error > report.max_rel_error)) report = std::move(last);
  }

  nlohmann::json sizes = nlohmann::json::object();
  for (const auto& [name, value] : bound.sizes) sizes[name] = value;
  nlohmann::json record = {
      {"peer", setup.peer},
      {"routine", options.routine},
      {"label", options.label},
      {"spec", options.spec},
      {"sizes", sizes},
      {"seed", options.seed},
      {"device", setup.device_name},
      {"reference_device", peer_case.context().device().name},
      {"library_version", setup.library_version},
      {"data_type", data_type_name(peer_case.mdh(), peer_case.mdh().result_type())},
      {"input_type", input_type_name(peer_case.mdh())},
      {"precision", precision_name(setup.precision)},
      {"layouts", setup.layouts},
      {"time_includes",
       {{"steady", steady ? setup.steady_time_includes : "not measured: this program provides no steady_calls"},
        {"device", setup.device_time_includes},
        {"call", setup.call_time_includes}}},
      {"device_time_ns", time_stats_json(m.device)},
      {"call_time_ns", time_stats_json(m.call)},
      {"runs", m.runs},
      {"warmups", m.warmups},
      {"ci_met", m.ci_met},
      {"ci_target", {{"confidence", options.measurement.confidence}, {"relative", options.measurement.ci_relative}}},
      {"validation",
       {{"passed", report.passed},
        {"max_abs_error", report.max_abs_error},
        {"max_rel_error", report.max_rel_error},
        {"tolerance", report.tolerance},
        {"precision_tolerance", added_tolerance},
        {"mismatches", report.mismatches},
        {"compared", report.compared},
        {"checked_calls",
         setup.checked_call ? "the first call and one after the timed calls (the worse shown)" : "the first call"},
        {"reference_precision", peer_case.reference_in_double() ? "double" : "spec types"}}},
      {"notes", setup.notes},
  };
  if (steady) record.update(steady_record_fields(*steady, setup.steady_time_includes));
  if (setup.late_notes) record["notes"].update(setup.late_notes());
  if (bound.flops) record["flops"] = *bound.flops;
  if (bound.bytes) record["bytes"] = *bound.bytes;
  if (!report.passed) record["validation"]["summary"] = report.summary();

  std::cout << record.dump(2) << std::endl;
  if (!options.json_path.empty()) {
    std::ofstream file(options.json_path);
    if (!file) throw UserError("cannot write " + options.json_path);
    file << record.dump(2) << '\n';
    if (!file) throw UserError("cannot write " + options.json_path);
  }
  if (!report.passed) std::cerr << setup.peer << ": validation FAILED: " << report.summary() << '\n';
  return record;
}

int peer_main(int argc, const char* const* argv, const std::string& program, const std::vector<ExtraOption>& extra,
              const std::function<PeerSetup(PeerCase&)>& prepare) {
  try {
    PeerOptions options;
    if (!parse_peer_options(argc, argv, program, extra, options)) return 0;
    PeerCase peer_case(std::move(options));
    PeerSetup setup = prepare(peer_case);
    nlohmann::json record = run_and_record(peer_case, setup);
    return record["validation"]["passed"].get<bool>() ? 0 : 1;
  } catch (const UserError& e) {
    std::cerr << program << ": error: " << e.what() << '\n';
    return 2;
  } catch (const PeerUnavailable& e) {
    std::cerr << program << ": not available here: " << e.what() << '\n';
    return 3;
  }
}

}  // namespace mdh::peers
