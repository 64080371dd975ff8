// mdh tune SPEC --size ...: auto-tune the tunable kernel for one device and size binding (pipeline/tune.h).
// mdh tune-worker: the evaluation process the tuner starts (and kills, if a kernel hangs); not for people.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/common.h"
#include "pipeline/spill_check.h"
#include "pipeline/tune.h"
#include "pipeline/tune/tuning_ranks.h"
#include "pipeline/tune/tuning_session.h"
#include "pipeline/tuned_store.h"
#include "support/utf8.h"
#include "tuner/abort.h"
#include "tuner/search/technique_registry.h"
#include "tuner/search/techniques.h"

namespace mdh::cli {

namespace {

std::string self_executable() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw UserError("cannot find the mdh executable to start tuning workers (/proc/self/exe)");
  return path.string();
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
  if (scale < 0 || !(value > 0) || !std::isfinite(value))
    throw UserError("--budget '" + text + "': expected a duration such as 90s, 10m or 1h");
  return value * scale;
}

/// --evals N: a count from 0 to tuner::kMaxEvaluationCount. Read as text: Boost reads "-1" as an unsigned 2^64-1.
uint64_t evaluation_count(const po::variables_map& vm) {
  const std::string text = vm["evals"].as<std::string>();
  const bool digits = !text.empty() && text.size() <= 10 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoull(text) > tuner::kMaxEvaluationCount)
    throw UserError("--evals '" + text + "': expected a count of evaluations from 0 to " +
                    std::to_string(tuner::kMaxEvaluationCount));
  return std::stoull(text);
}

/// Seconds an option gives: a finite number above zero.
double positive_seconds(const po::variables_map& vm, const char* option) {
  const double value = vm[option].as<double>();
  if (!(value > 0) || !std::isfinite(value)) {
    char text[48];
    std::snprintf(text, sizeof text, "%g", value);
    throw UserError(std::string("--") + option + " " + text + ": expected a number of seconds above 0");
  }
  return value;
}

/// --technique's help: the names this build accepts, the default first (tuner::technique_names).
std::string technique_help() {
  std::string names;
  for (const std::string& name : tuner::technique_names()) names += (names.empty() ? "" : ", ") + name;
  std::string help = "search technique: " + names + " (default: " + tuner::kDefaultTechnique +
                     "; with --resume: the one the journal was recorded with)";
  // The model's proposals compile slower and it reached worse results than local in the same time on every case
  // measured, so the help says where it can pay (docs/decisions.md).
  if (tuner::model_guided_built_in())
    help +=
        ". model needs fewer evaluations than local to come near the best of a recorded space, but ran fewer "
        "evaluations per second and ended slower in the same time wherever compiles dominate: use it only where "
        "one evaluation (a long kernel, a slow device) costs much more than a compile";
  return help;
}

// More compile threads than this only queue for the same cores (and each runs a compile worker process).
constexpr int kMaxCompileThreads = 256;

void add_tune_options(po::options_description& options) {
  options.add_options()                                                                                          //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")          //
      ("warmup", po::value<int>()->default_value(1), "untimed runs before the timed ones, per configuration")    //
      ("repeat", po::value<int>()->default_value(3), "timed runs per configuration (the cost is their median)")  //
      ("binary-cache", po::value<std::string>(),
       "folder of compiled kernels shared by the compile threads and workers")  //
      ("restrict", po::value<std::vector<std::string>>()->composing(),
       "search only these values of a parameter: NAME=V1,V2,... (repeatable; see mdh space for the names)")  //
      ("full-ranges",
       "search every integer of each size range, not only the lattices of sensible sizes (mdh space "
       "prints both)")  //
      ("cut-factor", po::value<double>()->default_value(3),
       "stop timing a candidate whose first run takes more than this many times the best so far (0: never)")  //
      ("allow-spills",
       ("time candidates whose kernels spill registers (NVIDIA: ptxas's report in the build log; more than " +
        std::to_string(kToleratedSpillBytes) + " bytes each way) instead of rejecting them")
           .c_str())  //
      ("device", po::value<std::vector<std::string>>()->composing(),
       "device selector; repeat for several identical devices, one worker each (default: the default device)")  //
      ("technique", po::value<std::string>(), technique_help().c_str())                                         //
      ("budget", po::value<std::string>(), "tuning time, e.g. 90s, 10m, 1h")                                    //
      ("evals", po::value<std::string>(), "number of evaluations")                                              //
      ("abort", po::value<std::string>(), "abort expression, e.g. 'evaluations(500) || speedup(1.05, 2m)'")     //
      ("journal", po::value<std::string>(), "JSON-lines journal of every evaluation (default: OUT.journal)")    //
      ("resume", "continue the run recorded in the journal without re-evaluating anything")                     //
      ("force", "replace an existing journal (without --resume or --force, an existing journal is an error)")   //
      ("out", po::value<std::string>()->default_value("best.json"), "where to write the best configuration")    //
      ("in-process", "evaluate in this process (no protection against hanging kernels; for debugging)")         //
      ("compile-threads", po::value<int>(),
       "threads compiling upcoming configurations while the device runs the current one (0: off; default: one "
       "per core, one per two cores where the device is the host's CPU, shared by the mpirun ranks of a host; a "
       "compile that takes 6 times the run's median, at least 2 s, is recorded as a timeout)")            //
      ("timeout-floor", po::value<double>()->default_value(10), "seconds an evaluation may always take")  //
      ("no-default-start", "do not evaluate the default configuration (the one `mdh run` uses) first")    //
      ("finalists", po::value<int>()->default_value(static_cast<int>(kDefaultFinalists)),
       "after the search, time this many of its fastest configurations and the default again, side by side and "
       "as the benchmark times them, and write the fastest (0: write the search's best)")  //
      ("start", po::value<std::vector<std::string>>()->composing(),
       "evaluate this configuration next (a config or an mdh tune result, e.g. the best of another size or device; "
       "checked, never trusted; repeatable)")  //
      ("transfer-from", po::value<std::string>(),
       "start from the best tuned results of the same md_hom in this store (any device's folder, other sizes; "
       "re-checked, adapted where they do not fit; default: $MDH_TUNED_RESULTS, else the source tree's tuned/)")  //
      ("no-transfer", "do not start from stored results of the same md_hom")                                      //
      ("no-rank0-evaluation",
       "under mpirun: rank 0 only searches and writes the journal; the other ranks evaluate (one device each)");
  add_data_options(options);
  add_precision_option(options);
}

// The workers' request, the journal and the result record the options in JSON, which holds UTF-8 text only, while a
// Linux file name may be any bytes: text that is not UTF-8 is refused here, before any work, naming the option.
void check_options_are_utf8(const po::variables_map& vm) {
  for (const auto& [name, value] : vm) {
    std::vector<std::string> texts;
    if (const auto* text = boost::any_cast<std::string>(&value.value())) texts.push_back(*text);
    if (const auto* list = boost::any_cast<std::vector<std::string>>(&value.value())) texts = *list;
    for (const std::string& text : texts)
      if (!is_utf8(text))
        throw UserError((name == "spec" ? std::string("the spec path") : "--" + name) + " '" + escaped_bytes(text) +
                        "' is not UTF-8 text: mdh tune records it in JSON (the workers' request, the journal and "
                        "the result), which holds UTF-8 only; rename the file");
  }
}

// What the run measures: the spec, sizes, devices, data and measurement settings.
TuningRequest tuning_request(const po::variables_map& vm) {
  check_options_are_utf8(vm);
  TuningRequest request;
  request.spec_path = vm["spec"].as<std::string>();
  request.sizes = vm["size"].as<std::string>();
  request.precision = precision_option(vm);
  if (vm.count("device")) request.device_selectors = vm["device"].as<std::vector<std::string>>();
  request.data = data_options(vm);
  request.warmup = vm["warmup"].as<int>();
  request.repeat = vm["repeat"].as<int>();
  if (vm.count("binary-cache")) request.binary_cache = vm["binary-cache"].as<std::string>();
  request.restrictions = restrictions(vm);
  request.full_ranges = vm.count("full-ranges") > 0;
  // As `mdh run` says it (pipeline/pipeline.cpp): a negative warm-up count stopped every evaluation at an internal
  // check, and a repetition count below 1 was taken as 1.
  if (request.repeat < 1) throw UserError("--repeat must be at least 1");
  if (request.warmup < 0) throw UserError("--warmup must not be negative");
  request.cut_factor = vm["cut-factor"].as<double>();
  request.allow_spills = vm.count("allow-spills") > 0;
  if (!std::isfinite(request.cut_factor) || (request.cut_factor != 0 && !(request.cut_factor >= 1)))
    throw UserError("--cut-factor " + std::to_string(request.cut_factor) + ": must be 0 (never cut) or at least 1");
  return request;
}

// How the run searches. The outputs are checked here, before any work.
TuningSettings tuning_settings(const po::variables_map& vm, const std::string& out_path) {
  TuningSettings settings;
  if (vm.count("technique")) settings.technique = vm["technique"].as<std::string>();
  settings.seed = vm["seed"].as<uint64_t>();
  // Abort condition: the options given, combined with ||; kDefaultTuningEvaluations when none is given.
  auto add = [&](tuner::Abort a) { settings.abort = settings.abort ? (*settings.abort || a) : a; };
  if (vm.count("evals")) add(tuner::evaluations(evaluation_count(vm)));
  if (vm.count("budget")) {
    settings.budget_seconds = parse_budget(vm["budget"].as<std::string>());
    add(tuner::duration(*settings.budget_seconds));
  }
  if (vm.count("abort")) add(tuner::parse_abort(vm["abort"].as<std::string>()));
  settings.journal_path = vm.count("journal") ? vm["journal"].as<std::string>() : out_path + ".journal";
  settings.resume = vm.count("resume") > 0;
  settings.replace_journal = vm.count("force") > 0;
  if (settings.resume && settings.replace_journal) throw UserError("--resume and --force exclude each other");
  // Outputs are checked before any work: neither may replace an input or the other, and both must be writable.
  // Only the process that writes them checks (under mpirun rank 0; the check's own probe file would look like an
  // existing journal to another rank).
  std::error_code ec;
  if (writes_tuning_outputs()) {
    std::vector<NamedPath> inputs = input_files(vm);
    check_output_path("--journal", settings.journal_path, inputs);
    if (!settings.resume && !settings.replace_journal && std::filesystem::exists(settings.journal_path, ec))
      throw UserError("--journal '" + settings.journal_path +
                      "' exists: continue its run with --resume, or replace it with --force");
    inputs.push_back({"journal", settings.journal_path});
    check_output_path("--out", out_path, inputs);
  }
  settings.default_start = !vm.count("no-default-start");
  if (vm["finalists"].as<int>() < 0) throw UserError("--finalists must be 0 or more");
  settings.finalists = static_cast<size_t>(vm["finalists"].as<int>());
  if (vm.count("start")) settings.start_config_paths = vm["start"].as<std::vector<std::string>>();
  if (vm.count("no-transfer") && vm.count("transfer-from"))
    throw UserError("--transfer-from and --no-transfer exclude each other");
  if (vm.count("transfer-from")) {
    settings.transfer_folder = vm["transfer-from"].as<std::string>();
    if (!std::filesystem::is_directory(*settings.transfer_folder, ec))
      throw UserError("--transfer-from '" + *settings.transfer_folder + "': not a folder");
  } else if (!vm.count("no-transfer")) {
    settings.transfer_folder = tuned_store_directory();
  }
  settings.in_process = vm.count("in-process") > 0;
  if (vm.count("compile-threads")) {
    const int threads = vm["compile-threads"].as<int>();
    if (threads < 0 || threads > kMaxCompileThreads)
      throw UserError("--compile-threads " + std::to_string(threads) + ": expected 0 (compile in the worker) to " +
                      std::to_string(kMaxCompileThreads));
    settings.compile_threads = static_cast<unsigned>(threads);
  }
  settings.timeout_floor_seconds = positive_seconds(vm, "timeout-floor");
  settings.worker_executable = self_executable();
  return settings;
}

TuningSessionOptions session_options(const po::variables_map& vm, const TuningSettings& settings,
                                     const std::string& out_path) {
  // Progress counts towards --evals (200 when no limit is given) and --budget; the conditions of --abort are joined
  // by ||, so these stay upper bounds.
  TuningSessionOptions session;
  if (vm.count("evals")) session.horizon.evaluations = evaluation_count(vm);
  if (!settings.abort) session.horizon.evaluations = kDefaultTuningEvaluations;
  session.horizon.seconds = settings.budget_seconds;
  session.out_path = out_path;
  session.write_text = write_text;
  session.rank0_evaluates = !vm.count("no-rank0-evaluation");
  return session;
}

}  // namespace

int tune_worker_command(const Args& args) {
  po::options_description options("mdh tune-worker options");
  options.add_options()                                                                                           //
      ("request", po::value<std::string>(), "the tuning request file written by mdh tune")                        //
      ("device-index", po::value<size_t>()->default_value(0), "which of the request's devices this worker uses")  //
      ("compile-only", "build the configurations into the binary cache instead of running them");
  po::variables_map vm;
  if (!parse_options("tune-worker", "--request FILE [--device-index K] (started by mdh tune)", args, options, vm, ""))
    return 0;
  if (!vm.count("request")) throw UserError("mdh tune-worker: missing --request FILE");
  return serve_tuning_worker(vm["request"].as<std::string>(), vm["device-index"].as<size_t>(),
                             vm.count("compile-only") > 0);
}

int tune_command(const Args& args) {
  po::options_description options("mdh tune options (without --evals, --budget or --abort: stop after " +
                                  std::to_string(kDefaultTuningEvaluations) + " evaluations)");
  add_tune_options(options);
  po::variables_map vm;
  if (!parse_options("tune", "SPEC --size I=.. [--device D]... [--technique T] [--budget 10m | --evals N] [--out F]",
                     args, options, vm))
    return 0;
  const std::string out_path = vm["out"].as<std::string>();
  const TuningRequest request = tuning_request(vm);
  const TuningSettings settings = tuning_settings(vm, out_path);
  return run_tuning_session(request, settings, session_options(vm, settings, out_path));
}

}  // namespace mdh::cli
