// mdh tune SPEC --size ...: auto-tune the tunable kernel for one device and size binding (issue: the auto-tuner).
// mdh tune-worker: the evaluation process the tuner starts (and kills, if a kernel hangs); not for people.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

#include "cli/common.h"
#include "codegen/tunable_kernel.h"
#include "runtime/binary_cache.h"
#include "runtime/icd_diagnostics.h"
#include "runtime/mdh_tuning.h"
#include "tuner/abort.h"
#include "tuner/seeded_technique.h"
#include "tuner/technique.h"
#include "tuner/tuner.h"
#include "tuner/worker_pool.h"

namespace mdh::cli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted = true; }

/// Options that tune and tune-worker share, so that both build the same space on the same data.
void add_evaluation_options(po::options_description& options) {
  options.add_options()                                                                                 //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("warmup", po::value<int>()->default_value(1), "untimed runs before the timed ones, per configuration")  //
      ("repeat", po::value<int>()->default_value(3), "timed runs per configuration (the cost is their median)")  //
      ("binary-cache", po::value<std::string>(), "folder of compiled kernels shared by the compile threads and workers")  //
      ("restrict", po::value<std::vector<std::string>>()->composing(),
       "search only these values of a parameter: NAME=V1,V2,... (repeatable; see mdh space for the names)");
  add_data_options(options);
}

std::string spec_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char out[20];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string self_executable() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw UserError("cannot find the mdh executable to start tuning workers (/proc/self/exe)");
  return path.string();
}

std::string format_cost(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f ms", seconds * 1e3);
  return buf;
}

std::string rates(const BoundMdh& bound, double seconds) {
  std::string out;
  char buf[48];
  if (bound.flops) std::snprintf(buf, sizeof buf, ", %.2f GFLOP/s", *bound.flops / seconds * 1e-9), out += buf;
  if (bound.bytes) std::snprintf(buf, sizeof buf, ", %.2f GB/s", *bound.bytes / seconds * 1e-9), out += buf;
  return out;
}

/// A duration like "90s", "10m", "1h" or plain seconds.
double parse_budget(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UserError("--budget '" + text + "': expected a duration such as 90s, 10m or 1h");
  }
  std::string unit = text.substr(used);
  double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (scale < 0 || value <= 0) throw UserError("--budget '" + text + "': expected a duration such as 90s, 10m or 1h");
  return value * scale;
}

}  // namespace

int tune_worker_command(const Args& args) {
  po::options_description options("mdh tune-worker options");
  add_evaluation_options(options);
  options.add_options()("device", po::value<std::string>()->default_value(""), "device selector");
  po::variables_map vm;
  if (!parse_options("tune-worker", "SPEC --size ... (started by mdh tune)", args, options, vm)) return 0;
  BoundMdh bound = load_and_bind(vm["spec"].as<std::string>(), vm["size"].as<std::string>());
  DeviceInfo device;
  try {
    device = select_device(vm["device"].as<std::string>());
  } catch (const UserError& e) {
    // The parent saw this device a moment ago: say what differs in this process (it lands in the journal's reason).
    throw UserError(std::string(e.what()) + "\nin the worker process:\n" + describe_icd_loading());
  }
  const DeviceLimits limits = device_limits(device);
  auto space = std::make_shared<const TuningSpace>(restricted_tuning_space(vm, bound, limits));
  RunData data = load_run_data(vm, bound);
  Context context(device);
  if (vm.count("binary-cache")) context.use_binary_cache(std::make_shared<BinaryCache>(vm["binary-cache"].as<std::string>()));
  MdHomRun run(context, bound, std::move(data.inputs), data.params, data.seed);
  run.reference_output();  // once, before the first deadline-bound evaluation
  MdHomCostFunction cost(run, space, limits, {vm["warmup"].as<int>(), vm["repeat"].as<int>()});
  return tuner::serve_worker_requests([&](const nlohmann::json& json) {
    Assignment values(space->parameters.size());
    for (size_t p = 0; p < values.size(); ++p) values[p] = json.at(space->parameters[p].name).get<int64_t>();
    return cost.evaluate(config_from_assignment(bound, *space, values));
  });
}

int tune_command(const Args& args) {
  po::options_description options("mdh tune options");
  add_evaluation_options(options);
  options.add_options()                                                                                       //
      ("device", po::value<std::vector<std::string>>()->composing(),
       "device selector; repeat for several identical devices, one worker each (default: the default device)")  //
      ("technique", po::value<std::string>()->default_value("auc_bandit"),
       "auc_bandit, exhaustive, random, annealing, differential_evolution, pattern_search, particle_swarm")  //
      ("budget", po::value<std::string>(), "tuning time, e.g. 90s, 10m, 1h")                                //
      ("evals", po::value<uint64_t>(), "number of evaluations")                                             //
      ("abort", po::value<std::string>(), "abort expression, e.g. 'evaluations(500) || speedup(1.05, 2m)'")   //
      ("journal", po::value<std::string>(), "JSON-lines journal of every evaluation (default: OUT.journal)")  //
      ("resume", "continue the run recorded in the journal without re-evaluating anything")                  //
      ("out", po::value<std::string>()->default_value("best.json"), "where to write the best configuration")  //
      ("in-process", "evaluate in this process (no protection against hanging kernels; for debugging)")      //
      ("compile-threads", po::value<unsigned>()->default_value(2),
       "threads compiling upcoming configurations while the device runs the current one (0: off)")           //
      ("timeout-floor", po::value<double>()->default_value(10), "seconds an evaluation may always take")    //
      ("no-default-start", "do not evaluate the default configuration (the one `mdh run` uses) first");
  po::variables_map vm;
  if (!parse_options("tune", "SPEC --size I=.. [--device D]... [--technique T] [--budget 10m | --evals N] [--out F]",
                     args, options, vm))
    return 0;
  const std::string spec_path = vm["spec"].as<std::string>(), sizes = vm["size"].as<std::string>();
  BoundMdh bound = load_and_bind(spec_path, sizes);
  std::vector<std::string> selectors =
      vm.count("device") ? vm["device"].as<std::vector<std::string>>() : std::vector<std::string>{""};
  std::vector<DeviceInfo> devices;
  for (const auto& s : selectors) devices.push_back(select_device(s));
  for (const auto& d : devices)
    if (d.name != devices[0].name || d.driver_version != devices[0].driver_version)
      throw UserError("--device: tuning over several devices needs identical ones; '" + d.name + "' differs from '" +
                      devices[0].name + "'");
  const DeviceLimits limits = device_limits(devices[0]);
  auto space = std::make_shared<const TuningSpace>(restricted_tuning_space(vm, bound, limits));
  RunData data = load_run_data(vm, bound);  // reads --input files now, so a bad one fails before tuning starts

  // Abort condition: the options given, combined with ||; 200 evaluations when none is given.
  std::optional<tuner::Abort> abort;
  auto add = [&](tuner::Abort a) { abort = abort ? (*abort || a) : a; };
  if (vm.count("evals")) add(tuner::evaluations(vm["evals"].as<uint64_t>()));
  if (vm.count("budget")) add(tuner::duration(parse_budget(vm["budget"].as<std::string>())));
  if (vm.count("abort")) add(tuner::parse_abort(vm["abort"].as<std::string>()));
  if (!abort) abort = tuner::evaluations(200);

  const auto started = std::chrono::steady_clock::now();
  tuner::SearchSpace search_space = make_search_space(*space);
  std::unique_ptr<tuner::SearchTechnique> technique = tuner::make_technique(vm["technique"].as<std::string>());
  bool default_start = false;
  if (!vm.count("no-default-start")) {
    // The default configuration first: in a large space (seven-dimensional contractions) a short search can
    // otherwise end worse than what `mdh run` gives without tuning.
    const Assignment values = assignment_from_config(bound, *space, default_config(bound, limits));
    nlohmann::json named = nlohmann::json::object();
    for (size_t p = 0; p < values.size(); ++p) named[space->parameters[p].name] = values[p];
    std::optional<tuner::Point> point;
    try {
      point = search_space.point_of(search_space.configuration_from_json(named));
    } catch (const UserError&) {
      // A value outside the tuner's candidates (search_values) or a --restrict: the search starts without it.
    }
    if (point) {
      technique = std::make_unique<tuner::SeededTechnique>(std::move(technique), std::vector<tuner::Point>{*point});
      default_start = true;
    } else {
      std::cerr << "note: the default configuration is not in the search space; the search starts without it\n";
    }
  }
  const uint64_t seed = vm["seed"].as<uint64_t>();
  const std::string out_path = vm["out"].as<std::string>();
  const std::string journal = vm.count("journal") ? vm["journal"].as<std::string>() : out_path + ".journal";

  std::string cache_folder = vm.count("binary-cache") ? vm["binary-cache"].as<std::string>()
                                                      : (std::filesystem::temp_directory_path() /
                                                         ("mdh-kernels-" + std::to_string(::getpid()))).string();
  auto cache = std::make_shared<BinaryCache>(cache_folder);

  tuner::TunerOptions tuner_options;
  tuner_options.seed = seed;
  tuner_options.journal_path = journal;
  tuner_options.resume = vm.count("resume") > 0;
  tuner_options.journal_metadata = {{"spec", spec_path}, {"spec_hash", spec_hash(spec_path)}, {"sizes", sizes},
                                    {"device", devices[0].name}, {"driver", devices[0].driver_version},
                                    {"default_start", default_start}};
  tuner_options.interrupt = &g_interrupted;
  const unsigned compile_threads = vm["compile-threads"].as<unsigned>();
  if (compile_threads > 0) {
    // Parallel compilation: build upcoming configurations on a thread pool (one Context per thread) into the binary
    // cache; the evaluating process then loads them instead of compiling.
    tuner_options.lookahead = compile_threads;
    tuner_options.prepare_threads = compile_threads;
    tuner_options.prepare = [&, device = devices[0]](const tuner::Configuration& configuration) {
      thread_local std::unique_ptr<Context> context;
      if (!context) {
        context = std::make_unique<Context>(device);
        context->use_binary_cache(cache);
      }
      LaunchPlan plan;
      try {
        plan = generate_tunable_kernel(bound, kernel_config_of(bound, *space, configuration), limits);
        context->program(plan.source, plan.build_options);
      } catch (const UserError&) {
        // The evaluation reports the same failure with its classification; preparing only saves time.
      }
    };
  }
  const bool terminal = ::isatty(STDERR_FILENO);
  tuner_options.on_evaluation = [&](const tuner::TuningStatus& status, const tuner::EvaluationRecord& record,
                                    bool replayed) {
    auto best = status.best_cost();
    const bool improved = record.result.status == tuner::EvaluationStatus::ok && best && record.result.cost == *best;
    std::string line = "evaluations " + std::to_string(status.evaluations) + " (" +
                       std::to_string(status.valid_evaluations) + " valid), best " +
                       (best ? format_cost(*best) + rates(bound, *best) : std::string("none yet")) + ", " +
                       std::to_string(static_cast<int>(status.elapsed_seconds)) + " s" + (replayed ? " (replayed)" : "");
    if (terminal)
      std::cerr << "\r\033[K" << line << std::flush;
    else if (improved)
      std::cerr << line << '\n';
  };

  std::signal(SIGINT, on_interrupt);
  tuner::TuningResult result;
  {
    std::unique_ptr<Context> context;
    std::unique_ptr<MdHomRun> run;
    std::unique_ptr<MdHomCostFunction> cost;
    std::unique_ptr<tuner::WorkerPool> pool;
    if (vm.count("in-process")) {
      context = std::make_unique<Context>(devices[0]);
      context->use_binary_cache(cache);
      run = std::make_unique<MdHomRun>(*context, bound, std::move(data.inputs), data.params, data.seed);
      cost = std::make_unique<MdHomCostFunction>(*run, space, limits,
                                                 CostSettings{vm["warmup"].as<int>(), vm["repeat"].as<int>()});
      result = tuner::tune(search_space, *technique, *abort, *cost, tuner_options);
    } else {
      tuner::WorkerPoolOptions pool_options;
      pool_options.timeout_floor_seconds = vm["timeout-floor"].as<double>();
      // Until a first success sets the pace, one evaluation may not take more than the whole time budget.
      if (vm.count("budget"))
        pool_options.initial_timeout_seconds =
            std::max(pool_options.timeout_floor_seconds,
                     std::min(pool_options.initial_timeout_seconds, parse_budget(vm["budget"].as<std::string>())));
      const std::string self = self_executable();
      for (const auto& selector : selectors) {
        std::vector<std::string> command{self, "tune-worker", spec_path, "--size", sizes, "--device",
                                         devices[&selector - &selectors[0]].selector(),
                                         "--warmup", std::to_string(vm["warmup"].as<int>()), "--repeat",
                                         std::to_string(vm["repeat"].as<int>()), "--binary-cache", cache_folder};
        for (auto& w : data_option_words(vm)) command.push_back(w);
        if (vm.count("restrict"))
          for (const auto& r : vm["restrict"].as<std::vector<std::string>>()) command.insert(command.end(), {"--restrict", r});
        pool_options.commands.push_back(command);
      }
      pool = std::make_unique<tuner::WorkerPool>(pool_options);
      result = tuner::tune(search_space, *technique, *abort, *pool, tuner_options);
    }
  }
  std::signal(SIGINT, SIG_DFL);
  if (terminal) std::cerr << '\n';
  if (!vm.count("binary-cache")) std::filesystem::remove_all(cache_folder);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << "stopped: " << result.stop_reason << "; " << result.status.evaluations << " evaluations ("
            << result.status.valid_evaluations << " valid, " << result.replayed << " replayed) in "
            << static_cast<int>(seconds) << " s\n";
  if (!result.best) {
    std::cout << "no valid configuration found; see the journal " << journal << " for the reasons\n";
    return 1;
  }
  KernelConfig best = kernel_config_of(bound, *space, *result.best);
  nlohmann::json out;
  out["spec"] = spec_path;
  out["spec_hash"] = spec_hash(spec_path);
  out["md_hom"] = bound.mdh->name;
  out["sizes"] = bound.sizes;
  out["device"] = {{"name", devices[0].name}, {"driver", devices[0].driver_version},
                   {"platform", devices[0].platform_name}, {"slug", device_slug(devices[0])},
                   {"count", devices.size()}};
  out["technique"] = vm["technique"].as<std::string>();
  out["seed"] = seed;
  out["abort"] = abort->describe();
  out["evaluations"] = result.status.evaluations;
  out["valid_evaluations"] = result.status.valid_evaluations;
  out["tuning_seconds"] = seconds;
  out["kernel_time_ns"] = *result.best_cost * 1e9;
  if (bound.flops) out["gflops"] = *bound.flops / *result.best_cost * 1e-9;
  if (bound.bytes) out["gbytes_per_second"] = *bound.bytes / *result.best_cost * 1e-9;
  out["space_size"] = search_space.size().str();
  out["config"] = config_to_json(*bound.mdh, best);
  write_text(out_path, out.dump(2) + "\n");
  std::cout << "best: " << format_cost(*result.best_cost) << rates(bound, *result.best_cost) << " -> " << out_path
            << '\n';
  return 0;
}

}  // namespace mdh::cli
