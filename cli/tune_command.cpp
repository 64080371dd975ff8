// mdh tune SPEC --size ...: auto-tune the tunable kernel for one device and size binding (pipeline/tune.h).
// mdh tune-worker: the evaluation process the tuner starts (and kills, if a kernel hangs); not for people.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/common.h"
#include "pipeline/host_share.h"
#include "pipeline/spill_check.h"
#include "pipeline/tune.h"
#include "pipeline/tuned_store.h"
#include "pipeline/tuning_progress.h"
#include "tuner/mpi_launch.h"
#ifdef MDH_WITH_MPI
#include "tuner/mpi_evaluators.h"
#include "tuner/technique.h"
#endif

namespace mdh::cli {

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) {
  g_interrupted = true;
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

std::string rates(const std::optional<double>& gflops, const std::optional<double>& gbytes) {
  std::string out;
  char buf[48];
  if (gflops) std::snprintf(buf, sizeof buf, ", %.2f GFLOP/s", *gflops), out += buf;
  if (gbytes) std::snprintf(buf, sizeof buf, ", %.2f GB/s", *gbytes), out += buf;
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
  if (scale < 0 || !(value > 0) || !std::isfinite(value))
    throw UserError("--budget '" + text + "': expected a duration such as 90s, 10m or 1h");
  return value * scale;
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
  return "search technique: " + names + " (default: " + tuner::kDefaultTechnique +
         "; with --resume: the one the journal was recorded with)";
}

// More compile threads than this only queue for the same cores (and each runs a compile worker process).
constexpr int kMaxCompileThreads = 256;

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
      ("evals", po::value<uint64_t>(), "number of evaluations")                                                 //
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
  po::variables_map vm;
  if (!parse_options("tune", "SPEC --size I=.. [--device D]... [--technique T] [--budget 10m | --evals N] [--out F]",
                     args, options, vm))
    return 0;
  TuningRequest request;
  request.spec_path = vm["spec"].as<std::string>();
  request.sizes = vm["size"].as<std::string>();
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

  TuningSettings settings;
  if (vm.count("technique")) settings.technique = vm["technique"].as<std::string>();
  settings.seed = vm["seed"].as<uint64_t>();
  // Abort condition: the options given, combined with ||; kDefaultTuningEvaluations when none is given.
  auto add = [&](tuner::Abort a) { settings.abort = settings.abort ? (*settings.abort || a) : a; };
  if (vm.count("evals")) add(tuner::evaluations(vm["evals"].as<uint64_t>()));
  if (vm.count("budget")) {
    settings.budget_seconds = parse_budget(vm["budget"].as<std::string>());
    add(tuner::duration(*settings.budget_seconds));
  }
  if (vm.count("abort")) add(tuner::parse_abort(vm["abort"].as<std::string>()));
  const std::string out_path = vm["out"].as<std::string>();
  settings.journal_path = vm.count("journal") ? vm["journal"].as<std::string>() : out_path + ".journal";
  settings.resume = vm.count("resume") > 0;
  settings.replace_journal = vm.count("force") > 0;
  if (settings.resume && settings.replace_journal) throw UserError("--resume and --force exclude each other");
  // Under mpirun (more than one rank) this process is one rank of one tuning run: rank 0 searches, prints and
  // writes the journal and the result; the other ranks evaluate for it and print nothing, not even their errors,
  // which reach rank 0 and are reported there (with rank 0's exit status).
  const std::optional<tuner::MpiLaunch> launch = tuner::mpirun_launch();
  // Outputs are checked before any work: neither may replace an input or the other, and both must be writable.
  // Only the process that writes them checks: another rank would race rank 0, which may already have created the
  // journal (and the check's own probe file would look like an existing journal to the other).
  std::error_code ec;
  if (!launch || launch->rank == 0) {
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
  settings.interrupt = &g_interrupted;
  // One write per note: under mpirun several ranks' notes share one stream, and the pieces of one line would
  // interleave with another rank's.
  settings.note = [](const std::string& text) { std::cerr << ("note: " + text + "\n") << std::flush; };
  // Progress on stderr, with the limits the run stops at: --evals (200 when no limit is given) and --budget; the
  // conditions of --abort are joined by ||, so these stay upper bounds.
  TuningHorizon horizon;
  if (vm.count("evals")) horizon.evaluations = vm["evals"].as<uint64_t>();
  if (!settings.abort) horizon.evaluations = kDefaultTuningEvaluations;
  horizon.seconds = settings.budget_seconds;
  const bool terminal = ::isatty(STDERR_FILENO);
  std::optional<TuningProgress> progress;
  progress.emplace(std::cerr, terminal, horizon);
  // Under mpirun: each evaluating rank's compile seconds, which say how many compiles it kept in flight (issue 16:
  // ranks that kept 6 of their 16 compile workers busy made two GPUs slower than one).
  std::map<int, double> rank_compile_seconds;
  settings.on_evaluation = [&](const tuner::TuningStatus& status, const tuner::EvaluationRecord& record,
                               bool replayed) {
    progress->on_evaluation(status, record, replayed);
    if (!replayed && record.compile_seconds && record.result.measured_on.contains("rank"))
      rank_compile_seconds[record.result.measured_on["rank"].get<int>()] += *record.compile_seconds;
  };

#ifdef MDH_WITH_MPI
  std::unique_ptr<tuner::MpiSession> mpi;
#endif
  if (launch) {
    if (!tuner::mpi_built_in())
      throw UserError(SourceLoc{},
                      "mdh tune was started by mpirun as one of " + std::to_string(launch->size) +
                          " ranks, but this mdh was built without MPI, so the ranks would be independent tuning runs "
                          "writing the same journal; install libopenmpi-dev and build again (cmake -DMDH_WITH_MPI=ON)");
    if (settings.in_process)
      throw UserError(SourceLoc{},
                      "--in-process cannot be used under mpirun: each rank evaluates in its worker processes");
#ifdef MDH_WITH_MPI
    // Before MPI starts its threads and this process its compile threads and workers, which inherit the share.
    const std::optional<std::string> pinned = keep_to_host_share(launch->local_rank, launch->local_size);
    mpi = std::make_unique<tuner::MpiSession>();
    settings.mpi = mpi.get();
    settings.local_rank = launch->local_rank;
    // A rank held to its share of the host counts only its own cores for its compile threads.
    settings.processes_on_host = pinned ? 1 : launch->local_size;
    if (pinned && settings.note) settings.note(*pinned);
    if (auto bound = single_core_binding_note(launch->local_rank, launch->local_size); bound && settings.note)
      settings.note(*bound);
    settings.rank0_evaluates = !vm.count("no-rank0-evaluation");
    if (mpi->rank() != 0) {
      settings.note = nullptr;
      settings.on_evaluation = nullptr;
      settings.interrupt = nullptr;
      progress.reset();
    }
#endif
  }

  // SIGINT and SIGTERM end the run within about a tenth of a second (tuner::kInterruptPollSeconds): evaluations
  // in flight are abandoned, the journal keeps every finished one, the best so far is written.
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  TuningOutcome outcome;
  try {
    outcome = tune_md_hom(request, settings);
  } catch (const UserError& e) {
#ifdef MDH_WITH_MPI
    if (mpi) {
      mpi->fail(e.what());
      // Rank 0 reports the failure and ends with status 2; mpirun would kill it before it could if this rank
      // ended with a non-zero status first.
      if (mpi->rank() != 0) return 0;
    }
#endif
    throw;
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  progress.reset();
  if (outcome.served) return 0;

  const tuner::TuningResult& result = outcome.result;
  // Evaluations per second over this run's wall time (replayed ones took none of it): the tuner's throughput.
  const uint64_t evaluated = result.status.evaluations - result.replayed;
  char rate[48];
  std::snprintf(rate, sizeof rate, "%.2f evaluations/s", outcome.seconds > 0 ? evaluated / outcome.seconds : 0.0);
  std::cout << "stopped: " << result.stop_reason << "; " << result.status.evaluations << " evaluations ("
            << result.status.valid_evaluations << " valid, " << result.status.verified_evaluations << " verified, "
            << result.status.cut_evaluations << " cut, " << result.replayed << " replayed) in "
            << static_cast<int>(outcome.seconds) << " s, " << rate << "\n";
  // Where the time went (tuner/tuner.h, TimeBreakdown): what limits the rate.
  if (evaluated > 0) {
    const tuner::TimeBreakdown& t = result.time;
    char breakdown[256];
    if (launch)
      // The ranks compile what they evaluate: an evaluation's time runs from sending it to its result, its compile
      // included, and the loop never waits for a compile of its own.
      std::snprintf(breakdown, sizeof breakdown,
                    "time: %.1f s on the ranks (%.0f ms per evaluation from sending it to its result, its compile "
                    "included), %.1f s in the tuning loop (%.1f s of the run before it: setup and reference)",
                    t.evaluating_seconds, 1e3 * t.evaluating_seconds / static_cast<double>(evaluated),
                    result.status.elapsed_seconds, std::max(0.0, outcome.seconds - result.status.elapsed_seconds));
    else
      std::snprintf(breakdown, sizeof breakdown,
                    "time: %.1f s evaluating (%.0f ms per evaluation), %.1f s idle waiting for compiles, %.1f s in "
                    "the tuning loop (%.1f s of the run before it: setup and reference)",
                    t.evaluating_seconds, 1e3 * t.evaluating_seconds / static_cast<double>(evaluated),
                    t.waiting_for_prepare_seconds, result.status.elapsed_seconds,
                    std::max(0.0, outcome.seconds - result.status.elapsed_seconds));
    std::cout << breakdown;
    if (t.prepared > 0)
      std::cout << "; " << t.prepared << " compiles ahead took "
                << static_cast<int>(1e3 * t.prepare_seconds / t.prepared) << " ms each on average, on "
                << outcome.compile_threads << " compile workers";
    std::cout << "\n";
    // Over this run's part of the loop's time (a resumed run's elapsed time starts where the journal's ended).
    const double loop_seconds = result.replayed == 0 ? result.status.elapsed_seconds : 0;
    if (!rank_compile_seconds.empty() && loop_seconds > 0) {
      std::cout << "compiles in flight on average:";
      char part[48];
      const char* separator = " ";
      for (const auto& [rank, seconds] : rank_compile_seconds) {
        std::snprintf(part, sizeof part, "%srank %d: %.1f", separator, rank, seconds / loop_seconds);
        std::cout << part;
        separator = ", ";
      }
      std::cout << " (" << outcome.compile_threads << " compile workers on rank 0)\n";
    }
    // The spread, not only the mean: one slow compile at the front of the window holds every evaluation behind it.
    if (!t.compile_seconds.empty()) {
      std::vector<double> sorted = t.compile_seconds;
      std::sort(sorted.begin(), sorted.end());
      auto quantile = [&](double q) { return 1e3 * sorted[static_cast<size_t>(q * (sorted.size() - 1))]; };
      char spread[160];
      std::snprintf(spread, sizeof spread,
                    "compiles of the evaluations: median %.0f ms, 90%% within %.0f ms, slowest %.0f ms\n",
                    quantile(0.5), quantile(0.9), 1e3 * sorted.back());
      std::cout << spread;
    }
    // One evaluation's stages, as the cost function timed them, and the rest of the evaluator's time: sending the
    // request, the reply, and a worker restarted after a crash or timeout.
    if (!t.stage_seconds.empty()) {
      const double per = 1e3 / static_cast<double>(evaluated);
      double staged = 0;
      char part[96];
      std::cout << "per evaluation:";
      for (const auto& [stage, seconds] : t.stage_seconds) {
        std::snprintf(part, sizeof part, " %.1f ms %s,", seconds * per, stage.c_str());
        std::cout << part;
        staged += seconds;
      }
      std::snprintf(part, sizeof part, " %.1f ms elsewhere (worker messages and restarts)",
                    std::max(0.0, t.evaluating_seconds - staged) * per);
      std::cout << part << "\n";
    }
    // What a restart after a timeout or crash costs, and where it goes.
    if (outcome.worker_start_ups > 0) {
      const double n = static_cast<double>(outcome.worker_start_ups);
      char part[96];
      std::snprintf(part, sizeof part, "evaluating worker start-ups: %llu, %.2f s each until ready",
                    static_cast<unsigned long long>(outcome.worker_start_ups), outcome.worker_start_up_seconds / n);
      std::cout << part;
      const char* separator = " (";
      for (const auto& [stage, seconds] : outcome.worker_start_up_stages) {
        std::snprintf(part, sizeof part, "%s%.2f s %s", separator, seconds / n, stage.c_str());
        std::cout << part;
        separator = ", ";
      }
      std::cout << (outcome.worker_start_up_stages.empty() ? "\n" : ")\n");
    }
  }
  if (!outcome.result_file) {
    std::cout << "no valid configuration found; see the journal " << settings.journal_path << " for the reasons\n";
    return 1;
  }
  write_text(out_path, outcome.result_file->to_json().dump(2) + "\n");
  std::cout << "best: " << format_cost(*result.best_cost)
            << rates(outcome.result_file->gflops, outcome.result_file->gbytes_per_second) << " -> " << out_path << '\n';
  return 0;
}

}  // namespace mdh::cli
