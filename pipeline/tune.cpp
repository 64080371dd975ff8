// The tuning driver: space, search, evaluation and result of one tuning run.
#include "pipeline/tune.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/tunable_kernel.h"
#include "mdh/signature.h"
#include "pipeline/cost_function.h"
#include "pipeline/device_limits.h"
#include "pipeline/kernel.h"
#include "pipeline/pipeline.h"
#include "pipeline/shared_reference.h"
#include "pipeline/transferred_starts.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/binary_cache.h"
#include "runtime/device.h"
#include "runtime/icd_diagnostics.h"
#include "support/fnv1a.h"
#include "support/input_file.h"
#include "tuner/compile_deadline.h"
#include "tuner/compile_pipeline.h"
#include "tuner/journal.h"
#include "tuner/seeded_technique.h"
#include "tuner/technique.h"
#include "tuner/worker_pool.h"
#ifdef MDH_WITH_MPI
#include "tuner/mpi_evaluators.h"
#endif

namespace mdh {

std::string spec_hash(const std::string& path) {
  const InputFile file = read_input_file(path, kMaxSpecBytes);
  if (!file.ok) throw UserError(SourceLoc{path, 0, 0}, "cannot read spec file: " + file.problem);
  return fnv1a_64_hex(file.bytes);
}

void check_journal_resumable(const std::string& path, const nlohmann::json& metadata) {
  if (::access(path.c_str(), F_OK) != 0) return;
  const nlohmann::json recorded = tuner::read_journal(path).header.metadata;
  // Journals written before the generation was recorded were made by generation 1.
  // Journals written on NVIDIA before spills were checked timed spilling candidates.
  auto value = [&](const nlohmann::json& m, const char* key) {
    if (m.contains(key)) return m[key];
    if (std::string(key) == "generator") return nlohmann::json(1);
    if (std::string(key) == kSpillingCandidatesKey && metadata.contains(key)) return nlohmann::json("timed");
    return nlohmann::json();
  };
  for (const char* key : {"spec_hash", "sizes", "device", "driver", "generator", "starts", kSpillingCandidatesKey}) {
    const nlohmann::json was = value(recorded, key), now = value(metadata, key);
    if (was != now)
      throw UserError(SourceLoc{},
                      "cannot resume journal '" + path + "': it was recorded with " + key + " " + was.dump() +
                          ", this run has " + now.dump() +
                          (std::string(key) == "generator" ? " (its timings are of kernels mdh no longer generates)"
                           : std::string(key) == kSpillingCandidatesKey
                               ? " (--allow-spills times them, without it they are rejected)"
                               : ""));
  }
}

bool TuningSettings::searches() const {
#ifdef MDH_WITH_MPI
  return mpi == nullptr || mpi->rank() == 0;
#else
  return true;
#endif
}

unsigned default_compile_threads(unsigned processes_on_host, bool device_on_these_cores) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const unsigned cores = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0
                             ? static_cast<unsigned>(CPU_COUNT(&allowed))
                             : std::thread::hardware_concurrency();
  const unsigned workers = device_on_these_cores ? (std::max(1u, cores) + 1) / 2 : cores;  // rounded up
  return std::max(1u, workers / std::max(1u, processes_on_host));
}

namespace {
// The least time the kernels of an evaluation get on NVIDIA's driver (WorkerPoolOptions::kernels_timeout_floor_seconds)
// once one has succeeded: 10^4 times GEMM 1024^3's best on the H200; a slower candidate would be cut anyway.
constexpr double kNvidiaKernelsTimeoutFloorSeconds = 1;
// A compile ahead may take this many times the median of the run's latest compiles, and at least the floor
// (tuner/compile_deadline.h).
// On the H200 (8 compile workers) GEMM 1024^3's median compile was 0.4-0.6 s and the contraction abcdef-geab-dfgc's
// 1.5 s, with single compiles of GEMM up to 11 s. The factor is the lookahead per compile thread: behind a compile
// that the deadline lets finish, the other compile workers have work (tuner/compile_pipeline.h).
constexpr double kCompileDeadlineFactor = tuner::kLookaheadPerCompileThread, kCompileDeadlineFloorSeconds = 2;

// The seconds a compile worker reports for its build (under the cost function's program stage).
std::optional<double> build_seconds(const tuner::EvaluationResult& built) {
  for (const auto& [stage, seconds] : built.stage_seconds)
    if (stage == kProgramStage) return seconds;
  return std::nullopt;
}

// The files a tuning run leaves in the temporary folder (its binary cache, its request), removed however the run
// ends.
struct TemporaryFiles {
  std::vector<std::string> paths;
  ~TemporaryFiles() {
    std::error_code ignored;
    for (const std::string& path : paths) std::filesystem::remove_all(path, ignored);
  }
};

// Identical devices only: the search compares their times on one scale.
std::vector<DeviceInfo> select_devices(const std::vector<std::string>& selectors) {
  std::vector<DeviceInfo> devices;
  for (const auto& s : selectors) devices.push_back(select_device(s));
  for (const auto& d : devices)
    if (d.name != devices[0].name || d.driver_version != devices[0].driver_version)
      throw UserError("--device: tuning over several devices needs identical ones; '" + d.name + "' differs from '" +
                      devices[0].name + "'");
  return devices;
}

// Under mpirun, one device per rank: with several selectors the local rank's (modulo their number), with one the
// local rank's among the devices it matches (modulo their number: ranks beyond the host's devices share them).
std::string rank_device_selector(const std::vector<std::string>& selectors, int local_rank) {
  const size_t k = static_cast<size_t>(local_rank);
  if (selectors.size() > 1) return select_device(selectors[k % selectors.size()]).selector();
  const std::vector<DeviceInfo> matches = matching_devices(list_devices(), selectors.empty() ? "" : selectors[0]);
  return matches[k % matches.size()].selector();
}

tuner::WorkerPoolOptions worker_pool_options(const TuningSettings& settings) {
  tuner::WorkerPoolOptions options;
  options.timeout_floor_seconds = settings.timeout_floor_seconds;
  // Until a first success sets the pace, one evaluation may not take more than the whole time budget.
  if (settings.budget_seconds)
    options.initial_timeout_seconds =
        std::max(options.timeout_floor_seconds, std::min(options.initial_timeout_seconds, *settings.budget_seconds));
  return options;
}

// "a, b, c and 2 more" of the first `shown` items.
std::string listed(const std::vector<std::string>& items, size_t shown) {
  std::string text;
  for (size_t k = 0; k < items.size() && k < shown; ++k) text += (k ? "; " : "") + items[k];
  if (items.size() > shown) text += "; and " + std::to_string(items.size() - shown) + " more";
  return text;
}

// Appends the transferred starts (transferred_starts.h) to `seeds` and returns them as the journal records them:
// [{"path": ..., "config": {...}}]. A resumed run takes those its journal recorded (re-checked), so that it replays
// the recorded sequence whatever the results folder holds now.
nlohmann::json transferred_starts(const TuningSettings& settings, const BoundMdh& bound, const DeviceLimits& limits,
                                  const tuner::SearchSpace& search_space, const std::string& device_slug,
                                  std::vector<tuner::Point>& seeds, TuningOutcome& outcome) {
  std::vector<TransferredStart> taken;
  if (settings.resume && ::access(settings.journal_path.c_str(), F_OK) == 0) {
    const nlohmann::json metadata = tuner::read_journal(settings.journal_path).header.metadata;
    for (const nlohmann::json& entry : metadata.value("transferred", nlohmann::json::array())) {
      const std::string path = entry.value("path", std::string("?"));
      std::optional<tuner::Point> point;
      try {
        point = search_space.point_of(search_space.configuration_from_json(entry.value("config", nlohmann::json())));
      } catch (const UserError&) {
      }
      if (!point)
        throw UserError(SourceLoc{}, "cannot resume journal '" + settings.journal_path +
                                         "': its transferred start from " + path +
                                         " is not in this run's search space");
      taken.push_back({path, *point, entry.value("adapted", std::string())});
    }
  } else if (settings.transfer_folder) {
    const std::string& store = *settings.transfer_folder;
    TransferredStarts found =
        find_transferred_starts(store, bound, limits, search_space, device_slug, kMaxTransferredStarts, seeds);
    // Paths relative to the store, which the notes name once.
    auto shown = [&](std::string text) {
      const std::string prefix = (std::filesystem::path(store) / "").string();
      for (size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
      return text;
    };
    const std::string what = "stored results of " + bound.mdh->name + " in " + store;
    if (settings.note && !found.skipped.empty()) {
      std::vector<std::string> reasons;
      for (const std::string& skipped : found.skipped) reasons.push_back(shown(skipped));
      settings.note("transfer: " + std::to_string(found.skipped.size()) + " " + what +
                    " cannot be used: " + listed(reasons, 3));
    }
    if (settings.note && !found.taken.empty()) {
      std::vector<std::string> paths;
      for (const TransferredStart& start : found.taken)
        paths.push_back(shown(start.path) + (start.adapted_because.empty() ? "" : " (adapted)"));
      settings.note("transfer: starting from " + std::to_string(found.taken.size()) + " " + what +
                    " (re-checked; adapted: tuned for other sizes or limits, moved to the nearest valid configuration "
                    "of this run; --no-transfer: without them): " +
                    listed(paths, paths.size()));
    }
    taken = std::move(found.taken);
  }
  nlohmann::json recorded = nlohmann::json::array();
  for (TransferredStart& start : taken) {
    nlohmann::json entry = {{"path", start.path}, {"config", search_space.configuration(start.point).to_json()}};
    if (!start.adapted_because.empty()) entry["adapted"] = start.adapted_because;
    recorded.push_back(std::move(entry));
    outcome.transferred_from.push_back(start.path);
    seeds.push_back(std::move(start.point));
  }
  return recorded;
}

// The technique settings.technique names, else the one a resumed journal was recorded with (its header names the
// technique as the tuner ran it: "<name>+seeded" where seeds came first), else the default. Only the searching
// process reads the journal; an evaluating rank under mpirun never asks its technique.
std::string technique_of_run(const TuningSettings& settings) {
  if (!settings.technique.empty()) return settings.technique;
  std::error_code ec;
  if (settings.resume && settings.searches() && std::filesystem::exists(settings.journal_path, ec)) {
    std::string recorded = tuner::read_journal(settings.journal_path).header.technique;
    const std::string seeded = tuner::SeededTechnique::kSeededSuffix;
    if (recorded.size() > seeded.size() &&
        recorded.compare(recorded.size() - seeded.size(), seeded.size(), seeded) == 0)
      recorded.resize(recorded.size() - seeded.size());
    return recorded;
  }
  return tuner::kDefaultTechnique;
}

// The search's fastest configurations and the default start timed again side by side (tuner/final_timing.h), unless
// the run was interrupted or asked for none. `default_start` is the default configuration with its search cost,
// where the search measured it in full.
std::optional<tuner::FinalTiming> time_finalists(tuner::Evaluator& evaluator, const tuner::TuningResult& result,
                                                 const std::optional<tuner::Finalist>& default_start,
                                                 const TuningSettings& settings) {
  if (settings.finalists == 0 || result.leaders.empty()) return std::nullopt;
  if (settings.interrupt && settings.interrupt->load()) {
    if (settings.note) settings.note("interrupted: the search's best is the result, without a final timing");
    return std::nullopt;
  }
  std::vector<tuner::Finalist> finalists;
  for (size_t k = 0; k < result.leaders.size() && k < settings.finalists; ++k) {
    const auto& [configuration, cost] = result.leaders[k];
    const bool is_default = default_start && default_start->configuration == configuration;
    finalists.push_back({configuration, cost, is_default ? default_start->role : "search"});
  }
  if (default_start && std::none_of(finalists.begin(), finalists.end(), [&](const tuner::Finalist& f) {
        return f.configuration == default_start->configuration;
      }))
    finalists.push_back(*default_start);
  tuner::FinalTiming timing =
      tuner::time_finalists(evaluator, finalists, tuner::FinalTimingOptions{}, settings.interrupt);
  if (settings.note) {
    if (timing.interrupted) {
      settings.note("interrupted during the final timing: the search's best is the result");
    } else if (!timing.chosen) {
      settings.note("final timing: no finalist could be timed again (" + timing.finalists[0].failure +
                    "); the search's best is the result");
    } else {
      // "search #2 0.0601 ms (searched 0.0598) <- chosen; default 0.0700 ms (searched 0.0702)"
      auto ms = [](double seconds) {
        char text[32];
        std::snprintf(text, sizeof text, "%.4g", seconds * 1e3);
        return std::string(text);
      };
      std::string line = "final timing (" + std::to_string(timing.rounds) + " rounds of " +
                         std::to_string(timing.runs_per_round) + " runs, timed as the benchmark times): ";
      for (size_t k = 0; k < timing.finalists.size(); ++k) {
        const tuner::FinalistTiming& t = timing.finalists[k];
        line += (k ? "; " : "") + (t.finalist.role == "search" ? "search #" + std::to_string(k + 1) : t.finalist.role);
        line += t.cost ? " " + ms(*t.cost) + " ms" : " failed (" + t.failure.substr(0, 80) + ")";
        if (t.finalist.search_cost) line += " (searched " + ms(*t.finalist.search_cost) + ")";
        if (k == *timing.chosen) line += " <- chosen";
      }
      settings.note(line);
    }
  }
  return timing;
}

// The final timing as the result file records it (TuningResultFile::final_timing).
nlohmann::json final_timing_json(const tuner::FinalTiming& timing, const BoundMdh& bound, const TuningSpace& space) {
  nlohmann::json finalists = nlohmann::json::array();
  for (const tuner::FinalistTiming& t : timing.finalists) {
    nlohmann::json entry = {{"role", t.finalist.role}};
    if (t.finalist.search_cost) entry["search_ns"] = *t.finalist.search_cost * 1e9;
    if (t.cost) entry["final_ns"] = *t.cost * 1e9;
    if (!t.failure.empty()) entry["failure"] = t.failure;
    nlohmann::json rounds = nlohmann::json::array();
    for (double cost : t.round_costs) rounds.push_back(cost * 1e9);
    entry["round_ns"] = rounds;
    entry["config"] = config_to_json(bound, kernel_config_of(bound, space, t.finalist.configuration));
    finalists.push_back(std::move(entry));
  }
  return {{"protocol",
           "each finalist once a round, in turn; a round: warm-up, then runs_per_round runs, each a call of its own "
           "from a reset output (as peers are timed), checked; its cost the median of its runs, the final cost the "
           "median of the rounds'"},
          {"rounds", timing.rounds},
          {"runs_per_round", timing.runs_per_round},
          {"finalists", finalists},
          {"chosen", timing.chosen ? nlohmann::json(*timing.chosen) : nlohmann::json()}};
}

}  // namespace

TuningOutcome tune_md_hom(const TuningRequest& request_in, const TuningSettings& settings) {
  const auto started = std::chrono::steady_clock::now();
  TuningRequest request = request_in;
  if (settings.mpi) request.device_selectors = {rank_device_selector(request.device_selectors, settings.local_rank)};
  const BoundMdh bound = load_and_bind(request.spec_path, request.sizes);
  const std::vector<DeviceInfo> devices = select_devices(request.device_selectors);
  const DeviceLimits limits = device_limits(devices[0]);
  auto space = std::make_shared<const TuningSpace>(
      restricted_tuning_space(bound, limits, request.restrictions, request.full_ranges));
  RunInputs data = load_run_inputs(bound, request.data);  // reads the input files now: a bad one fails first

  tuner::SearchSpace search_space = make_search_space(*space);
  const std::string technique_name = technique_of_run(settings);
  std::unique_ptr<tuner::SearchTechnique> technique = tuner::make_technique(technique_name);
  TuningOutcome outcome;
  std::vector<tuner::Point> seeds;
  std::optional<tuner::Configuration> default_configuration;
  if (settings.default_start) {
    // The default configuration first: in a large space (seven-dimensional contractions) a short search can
    // otherwise end worse than what `mdh run` gives without tuning.
    if (auto point = point_of_config(search_space, bound, default_config(bound, limits))) {
      seeds.push_back(*point);
      default_configuration = search_space.configuration(*point);
      outcome.default_start = true;
    } else if (settings.note) {
      settings.note("the default configuration is not in the search space; the search starts without it");
    }
  }
  // Then the given starts (load_config checks each against the md_hom, the sizes and the device); under mpirun
  // only rank 0 searches, so only it reads them.
  nlohmann::json starts = nlohmann::json::array();
  for (const std::string& path : settings.searches() ? settings.start_config_paths : std::vector<std::string>{}) {
    const KernelConfig config = load_config(path, bound, limits);
    const auto point = point_of_config(search_space, bound, config);
    if (!point) {
      if (auto violation = request.full_ranges ? std::nullopt : lattice_only_violation(bound, config, limits))
        throw UserError(SourceLoc{}, "--start " + path + ": the configuration is not in the search space: " +
                                         *violation + " (--full-ranges searches it)");
      throw UserError(SourceLoc{}, "--start " + path +
                                       ": the configuration is not in the search space (a value outside the searched "
                                       "lattices or --restrict; --full-ranges searches every size)");
    }
    seeds.push_back(*point);
    starts.push_back(config_to_json(bound, config));
  }
  const nlohmann::json transferred = settings.searches() ? transferred_starts(settings, bound, limits, search_space,
                                                                              device_slug(devices[0]), seeds, outcome)
                                                         : nlohmann::json::array();
  // The seeds are the run's baseline (its result is never worse than the default it started from): their compiles
  // get the compile worker's own deadline, never the one from the run's median compile (below).
  // Under mpirun another rank learns rank 0's given and transferred starts from its requests (serve_mpi_evaluations).
  auto seed_configurations = std::make_shared<tuner::SeedConfigurations>();
  for (const tuner::Point& point : seeds) seed_configurations->add(search_space.configuration(point));
  if (!seeds.empty()) technique = std::make_unique<tuner::SeededTechnique>(std::move(technique), std::move(seeds));

  TemporaryFiles temporary;
  if (request.binary_cache.empty()) {
    request.binary_cache =
        (std::filesystem::temp_directory_path() / ("mdh-kernels-" + std::to_string(::getpid()))).string();
    temporary.paths.push_back(request.binary_cache);
  }
  auto cache = std::make_shared<BinaryCache>(request.binary_cache);
  const std::string request_path = request.binary_cache + ".request.json";
  // This process's own, also where --binary-cache names a shared folder: another run's data may differ.
  request.shared_reference =
      (std::filesystem::temp_directory_path() / ("mdh-reference-" + std::to_string(::getpid()))).string();
  temporary.paths.push_back(request.shared_reference);
  const CostSettings cost_settings = tuning_cost_settings(request, limits);
  if (cost_settings.reject_spills && !settings.in_process && request.nvidia_compute_cache.empty()) {
    // This process's own, also where --binary-cache names a shared folder: it is removed when the run ends.
    request.nvidia_compute_cache =
        (std::filesystem::temp_directory_path() / ("mdh-nvidia-compute-cache-" + std::to_string(::getpid()))).string();
    temporary.paths.push_back(request.nvidia_compute_cache);
  }

  tuner::TunerOptions options;
  options.seed = settings.seed;
  options.journal_path = settings.journal_path;
  options.resume = settings.resume;
  options.replace_journal = settings.replace_journal;
  options.journal_metadata = {{"spec", request.spec_path},
                              {"spec_hash", spec_hash(request.spec_path)},
                              {"sizes", request.sizes},
                              {"device", devices[0].name},
                              {"driver", devices[0].driver_version},
                              {"generator", kTunableKernelGeneration},
                              {"config_format", kConfigFormatVersion},
                              {"default_start", outcome.default_start}};
  // Only where spills are recognised (NVIDIA's driver), so that journals of other devices stay as they were.
  if (limits.nvidia_driver)
    options.journal_metadata[kSpillingCandidatesKey] = cost_settings.reject_spills ? "rejected" : "timed";
  if (!starts.empty()) options.journal_metadata["starts"] = starts;
  if (!transferred.empty()) options.journal_metadata["transferred"] = transferred;
  const bool searches = settings.searches();
  if (settings.resume && searches) check_journal_resumable(settings.journal_path, options.journal_metadata);
  options.interrupt = settings.interrupt;
  // The default start's search cost, where it was timed in full: it joins the final timing (replayed ones count).
  std::optional<tuner::Finalist> default_finalist;
  options.on_evaluation = [&](const tuner::TuningStatus& status, const tuner::EvaluationRecord& record, bool replayed) {
    if (default_configuration && !default_finalist && record.result.status == tuner::EvaluationStatus::ok &&
        !record.result.cut && record.configuration == default_configuration->to_json())
      default_finalist = tuner::Finalist{*default_configuration, record.result.cost, "default"};
    if (settings.on_evaluation) settings.on_evaluation(status, record, replayed);
  };
  options.leaders = settings.finalists;
  // Parallel compilation: build upcoming configurations ahead into the binary cache; the evaluating process then
  // loads them instead of compiling. Under mpirun each rank compiles what it evaluates (its RankPipeline below);
  // otherwise the tuning loop prepares the configurations it asks ahead.
  tuner::Prepare compile_ahead;
  const unsigned compile_threads = settings.compile_threads.value_or(
      default_compile_threads(settings.processes_on_host, !limits.local_memory_dedicated));
  outcome.compile_threads = compile_threads;
  if (compile_threads > 0 && settings.in_process) {
    // On a thread pool (one Context per thread). In process, nothing can stop a compile that hangs: --in-process is
    // for debugging.
    compile_ahead = [&, device = devices[0]](const tuner::Configuration& configuration, const std::atomic<bool>&) {
      thread_local std::unique_ptr<Context> context;
      thread_local const BinaryCache* context_cache = nullptr;
      if (!context || context_cache != cache.get()) {
        context = std::make_unique<Context>(device);
        context->use_binary_cache(cache);
        context->capture_driver_output(false);  // compile threads build side by side; their failures are ignored
        context_cache = cache.get();
      }
      try {
        const LaunchPlan plan =
            prepare_kernel(bound, limits, KernelChoice::typed(kernel_config_of(bound, *space, configuration))).plan;
        context->program(plan.source, tuning_build_options(plan.build_options, cost_settings));
      } catch (const UserError&) {
        // The evaluation reports the same failure with its classification; preparing only saves time.
      }
      return std::optional<tuner::EvaluationResult>();
    };
  } else if (compile_threads > 0) {
    // Parallel compilation in compile workers: each thread of the prepare pool hands its configurations to a worker
    // process of its own that builds them into the binary cache, which the evaluating workers then load. A build
    // that hangs (a helper including /dev/stdin) or grows without end is killed at its deadline, when the run ends
    // or is interrupted, like an evaluation.
    tuner::WorkerPoolOptions compile_options = worker_pool_options(settings);
    compile_options.commands = {{settings.worker_executable, "tune-worker", "--request", request_path, "--device-index",
                                 "0", "--compile-only"}};
    // No compile gets longer than a seed's, the first build's deadline.
    auto deadline = std::make_shared<tuner::CompileDeadline>(kCompileDeadlineFactor, kCompileDeadlineFloorSeconds,
                                                             compile_options.initial_timeout_seconds);
    compile_ahead = [compile_options, deadline, seed_configurations](
                        const tuner::Configuration& configuration,
                        const std::atomic<bool>& stop) -> std::optional<tuner::EvaluationResult> {
      // The pool belongs to this thread (a WorkerPool serves one thread); the thread lives as long as the run.
      thread_local std::unique_ptr<tuner::WorkerPool> compiler;
      thread_local std::vector<std::string> compiler_command;
      if (!compiler || compiler_command != compile_options.commands[0]) {
        compiler.reset();
        compiler = std::make_unique<tuner::WorkerPool>(compile_options);
        compiler_command = compile_options.commands[0];
      }
      // A seed may compile as long as a first build may (on the 16-core Xeon, PRL 32768x1024's CPU default compiled
      // for 15 s beside 15 other builds while the run's median said 2.5 s: stopped there, the run ended with a
      // configuration 1.8x slower than the default; session 23).
      const bool seed = seed_configurations->contains(configuration);
      tuner::EvaluationContext context;
      context.timeout_seconds = deadline->seconds_for(seed, compile_options.initial_timeout_seconds);
      // A build stopped at its deadline is recorded as a timeout and not evaluated (that would only build it again).
      auto timed_out = [](double limit, bool median) {
        char reason[160];
        std::snprintf(reason, sizeof reason,
                      median ? "compiling took over %.3g s (%g times the median of the run's latest %zu compiles, "
                               "at least %g s); not evaluated"
                             : "compiling took over %.3g s; not evaluated",
                      limit, kCompileDeadlineFactor, tuner::kCompileDeadlineRecentCompiles,
                      kCompileDeadlineFloorSeconds);
        return tuner::EvaluationResult::failed(tuner::EvaluationStatus::timeout, reason);
      };
      const double limit = context.timeout_seconds.value_or(compiler->current_timeout());
      // The compile's time leaves out the compile worker's start-up (its first build, and each build after one that
      // was stopped): on the H200 sixteen workers starting side by side took 2-3 s, which made the first compiles'
      // median 2.5 s against 0.15 s later, so for the rest of the run's first window compiles of up to 15 s held
      // every evaluation behind them (DOT 2^24 and GEMV 4096^2 sat idle for 6-8 of 28 s; session 19, call 6).
      const auto working = [&] { return compiler->working_seconds(0).value_or(0.0); };
      compiler->submit(0, configuration, context);
      std::optional<std::pair<uint64_t, tuner::EvaluationResult>> built;
      double worked = 0;
      while (!(built = compiler->wait_for(tuner::kInterruptPollSeconds))) {
        worked = working();
        if (stop) {
          compiler->abandon();
          return std::nullopt;
        }
        // Started before the run's median was known (the first window's compiles, under the worker's first-build
        // timeout): stopped once the median says it takes too long. On the H200 one such compile of MCC held every
        // evaluation behind it for 40 of 45 s (results/nvidia-h200/session19/).
        if (!context.timeout_seconds && deadline->passed(worked)) {
          compiler->abandon();
          const double late = *deadline->seconds();
          deadline->add(late);
          return std::optional<tuner::EvaluationResult>(timed_out(late, true));
        }
      }
      // As the worker timed the build; one stopped at its deadline took the limit, one that died what was seen of it.
      const std::optional<double> build = build_seconds(built->second);
      deadline->add(build ? *build : built->second.status == tuner::EvaluationStatus::timeout ? limit : worked);
      // A build that failed is reported by the evaluation, with its classification.
      if (built->second.status != tuner::EvaluationStatus::timeout) return std::nullopt;
      return std::optional<tuner::EvaluationResult>(timed_out(limit, !seed && context.timeout_seconds.has_value()));
    };
  }
  if (compile_ahead && !settings.mpi) {
    // A window deep enough that one slow compile at its front leaves the other compile workers busy.
    options.lookahead = tuner::compile_lookahead(compile_threads);
    options.prepare_threads = compile_threads;
    options.prepare = compile_ahead;
  }

  const tuner::Abort abort = settings.abort ? *settings.abort : tuner::evaluations(kDefaultTuningEvaluations);
  {
    std::unique_ptr<Context> context;
    std::unique_ptr<MdHomRun> run;
    std::unique_ptr<MdHomCostFunction> cost;
    std::unique_ptr<tuner::WorkerPool> pool;
    if (settings.in_process) {
      context = std::make_unique<Context>(devices[0]);
      context->use_binary_cache(cache);
      run = std::make_unique<MdHomRun>(*context, bound, std::move(data.inputs), data.params, data.seed);
      cost = std::make_unique<MdHomCostFunction>(*run, space, limits, cost_settings);
      outcome.result = tuner::tune(search_space, *technique, abort, *cost, options);
      outcome.evaluating_devices = 1;
      tuner::InProcessEvaluator evaluator(*cost);
      outcome.final_timing = time_finalists(evaluator, outcome.result, default_finalist, settings);
    } else {
      if (settings.worker_executable.empty())
        throw UserError("tuning in worker processes needs the path of the mdh executable to start them");
      request.write(request_path);
      temporary.paths.push_back(request_path);
      tuner::WorkerPoolOptions pool_options = worker_pool_options(settings);
      // NVIDIA's driver builds the whole kernel in clBuildProgram, so once a worker says its kernels start, only
      // kernels run, and one that hangs shows within a kernel's time. PoCL compiles for the work-group size at the
      // first launch: there the evaluation's floor stays.
      if (limits.nvidia_driver)
        pool_options.kernels_timeout_floor_seconds =
            std::min(settings.timeout_floor_seconds, kNvidiaKernelsTimeoutFloorSeconds);
      for (size_t k = 0; k < devices.size(); ++k)
        pool_options.commands.push_back({settings.worker_executable, "tune-worker", "--request", request_path,
                                         "--device-index", std::to_string(k)});
      if (!settings.mpi) {
        pool = std::make_unique<tuner::WorkerPool>(pool_options);
        outcome.result = tuner::tune(search_space, *technique, abort, *pool, options);
        outcome.evaluating_devices = devices.size();
        outcome.final_timing = time_finalists(*pool, outcome.result, default_finalist, settings);
      } else {
#ifdef MDH_WITH_MPI
        tuner::MpiSession& mpi = *settings.mpi;
        // Each evaluating rank compiles what it evaluates, as deep a pipeline as a one-process run on its cores.
        std::unique_ptr<tuner::RankPipeline> pipeline;
        tuner::Evaluator* local = nullptr;
        if (!searches || settings.rank0_evaluates) {
          pool = std::make_unique<tuner::WorkerPool>(pool_options);
          pipeline = std::make_unique<tuner::RankPipeline>(*pool, compile_ahead, compile_threads);
          local = &pipeline->evaluator();
        }
        // What every rank must share with rank 0 for one cost scale, and where it measures (for the journal).
        const tuner::EvaluatorDescription description{
            {{"host", mpi.host()}, {"device", devices[0].name}, {"selector", devices[0].selector()}},
            {{"device", devices[0].name},
             {"driver", devices[0].driver_version},
             {"spec_hash", options.journal_metadata["spec_hash"]},
             {"sizes", request.sizes},
             {"generator", kTunableKernelGeneration},
             {"space_size", search_space.size().str()}},
            pipeline ? pipeline->lookahead() : 0};
        if (!searches) {
          tuner::serve_mpi_evaluations(
              mpi, *local, description,
              [&](const nlohmann::json& config) { return search_space.configuration_from_json(config); },
              [&](const tuner::Configuration& seed) { seed_configurations->add(seed); });
          outcome.served = true;
        } else {
          tuner::MpiEvaluators evaluators(mpi, local, description);
          evaluators.mark_seeds([&](const tuner::Configuration& c) { return seed_configurations->contains(c); });
          outcome.evaluating_devices = evaluators.evaluating_ranks();
          options.lookahead = evaluators.lookahead();
          if (settings.note) {
            settings.note("MPI: " + std::to_string(mpi.size()) + " ranks, " +
                          std::to_string(evaluators.evaluating_ranks()) + " evaluating, " +
                          std::to_string(evaluators.capacity()) + " configurations at a time on the ranks, " +
                          std::to_string(evaluators.lookahead()) + " more asked ahead");
            // Ranks on one device measure each other's kernels too.
            std::map<std::pair<std::string, std::string>, std::string> sharing;
            std::map<std::pair<std::string, std::string>, int> count;
            for (const nlohmann::json& where : evaluators.measured_on()) {
              const auto device =
                  std::make_pair(where["host"].get<std::string>(), where["selector"].get<std::string>());
              sharing[device] += (count[device]++ ? ", " : "") + std::to_string(where["rank"].get<int>());
            }
            for (const auto& [device, ranks] : sharing)
              if (count[device] > 1)
                settings.note("ranks " + ranks + " share device " + device.second + " on " + device.first +
                              ": their timings include each other's load (start one rank per device)");
          }
          outcome.result = tuner::tune(search_space, *technique, abort, evaluators, options);
          outcome.final_timing = time_finalists(evaluators, outcome.result, default_finalist, settings);
        }
#else
        MDH_INTERNAL_ASSERT(false, "an MPI tuning run in a build without MPI");
#endif
      }
      if (pool) {
        outcome.worker_start_ups = pool->ready_starts();
        outcome.worker_start_up_seconds = pool->start_up_seconds();
        outcome.worker_start_up_stages = pool->start_up_stages();
      }
    }
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!outcome.result.best) return outcome;
  if (outcome.final_timing && outcome.final_timing->chosen) {
    const tuner::FinalistTiming& chosen = outcome.final_timing->finalists[*outcome.final_timing->chosen];
    outcome.result.best = chosen.finalist.configuration;
    outcome.result.best_cost = chosen.cost;
  }

  outcome.best = kernel_config_of(bound, *space, *outcome.result.best);
  TuningResultFile file;
  file.spec = request.spec_path;
  file.spec_hash = spec_hash(request.spec_path);
  file.md_hom = bound.mdh->name;
  file.md_hom_signature = md_hom_signature(*bound.mdh);
  file.sizes = bound.sizes;
  file.device = {{"name", devices[0].name},
                 {"driver", devices[0].driver_version},
                 {"platform", devices[0].platform_name},
                 {"slug", device_slug(devices[0])},
                 {"count", outcome.evaluating_devices}};
  file.technique = technique_name;
  file.seed = settings.seed;
  file.abort = abort.describe();
  file.evaluations = outcome.result.status.evaluations;
  file.valid_evaluations = outcome.result.status.valid_evaluations;
  file.tuning_seconds = outcome.seconds;
  file.kernel_time_ns = *outcome.result.best_cost * 1e9;
  if (bound.flops) file.gflops = *bound.flops / *outcome.result.best_cost * 1e-9;
  if (bound.bytes) file.gbytes_per_second = *bound.bytes / *outcome.result.best_cost * 1e-9;
  file.space_size = search_space.size().str();
  file.config = config_to_json(bound, *outcome.best);
  if (outcome.final_timing && outcome.final_timing->chosen)
    file.final_timing = final_timing_json(*outcome.final_timing, bound, *space);
  outcome.result_file = file;
  return outcome;
}

int serve_tuning_worker(const std::string& request_path, size_t device_index, bool compile_only) {
  // Where the start-up goes, for the "ready" line: a worker restarted after a timeout or crash pays it again (on the
  // H200, Jacobi 3D 512^3 waited a median of 6.1 s after each of 40 timeouts; results/nvidia-h200/session26/).
  tuner::StageSeconds start_up;
  tuner::StageClock start_up_clock(start_up);
  const TuningRequest request = TuningRequest::read(request_path);
  if (device_index >= request.device_selectors.size())
    throw UserError("tune-worker: no device " + std::to_string(device_index) + " in the request");
  const BoundMdh bound = load_and_bind(request.spec_path, request.sizes);
  // Before the first OpenCL call: NVIDIA's driver reads it when it loads (see TuningRequest::nvidia_compute_cache).
  if (!request.nvidia_compute_cache.empty()) ::setenv("CUDA_CACHE_PATH", request.nvidia_compute_cache.c_str(), 1);
  DeviceInfo device;
  try {
    device = select_device(request.device_selectors[device_index]);
  } catch (const UserError& e) {
    // The parent saw this device a moment ago: say what differs in this process (it lands in the journal's reason).
    throw UserError(std::string(e.what()) + "\nin the worker process:\n" + describe_icd_loading());
  }
  const DeviceLimits limits = device_limits(device);
  auto space = std::make_shared<const TuningSpace>(
      restricted_tuning_space(bound, limits, request.restrictions, request.full_ranges));
  start_up_clock.end("spec, device and space");
  Context context(device);
  if (!request.binary_cache.empty()) context.use_binary_cache(std::make_shared<BinaryCache>(request.binary_cache));
  const CostSettings cost_settings = tuning_cost_settings(request, limits);
  start_up_clock.end("context");
  if (compile_only)
    return tuner::serve_worker_requests(
        [&](const nlohmann::json& json, const tuner::EvaluationContext&) {
          // The binary goes into the cache with its build log, from which the evaluating worker judges spills.
          const LaunchPlan plan =
              prepare_kernel(bound, limits, KernelChoice::typed(config_from_json(bound, json))).plan;
          const auto begin = std::chrono::steady_clock::now();
          tuner::EvaluationResult built = tuner::EvaluationResult::ok(0);
          try {
            context.program(plan.source, tuning_build_options(plan.build_options, cost_settings));
          } catch (const UserError& e) {
            built = tuner::EvaluationResult::failed(tuner::EvaluationStatus::build_error, e.what());
          }
          // The build's own time, failed or not, for the run's compile deadline (compile_ahead in tune_md_hom).
          tuner::add_stage_seconds(built.stage_seconds, kProgramStage,
                                   std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
          return built;
        },
        start_up);
  RunInputs data = load_run_inputs(bound, request.data);
  MdHomRun run(context, bound, std::move(data.inputs), data.params, data.seed);
  start_up_clock.end("inputs");
  // Once per run, before the first deadline-bound evaluation: read where an earlier worker saved it.
  std::optional<SharedReference> shared;
  try {
    if (!request.shared_reference.empty())
      shared = load_shared_reference(request.shared_reference, make_host_buffer(bound, bound.output.buffer));
  } catch (const UserError& e) {
    std::cerr << "note: " << e.what() << "; computing the reference output again\n";
  }
  if (shared) {
    run.adopt_reference(std::move(shared->output), shared->in_double);
    start_up_clock.end("reference (shared)");
  } else {
    const HostBuffer& reference = run.reference_output();
    try {
      if (!request.shared_reference.empty())
        save_shared_reference(request.shared_reference, reference, run.reference_in_double());
    } catch (const UserError& e) {
      std::cerr << "note: " << e.what() << "; a worker started later computes the reference output again\n";
    }
    start_up_clock.end("reference");
  }
  MdHomCostFunction cost(run, space, limits, cost_settings);
  return tuner::serve_worker_requests(
      [&](const nlohmann::json& json, const tuner::EvaluationContext& context) {
        // The tuner sends a configuration in the config JSON form (named values), the one form every stage reads.
        KernelConfig config;
        try {
          config = config_from_json(bound, json);
        } catch (const UserError& e) {
          return tuner::EvaluationResult::failed(tuner::EvaluationStatus::constraint, e.what());
        }
        return cost.evaluate(config, context);
      },
      start_up);
}

}  // namespace mdh
