// mdh bench SPEC --size ... [--config F|default|reference|stored]...: configurations of one md_hom checked against the
// reference, then timed interleaved in rounds with the steady instrument (pipeline/bench.h); prints each one's
// steady time with its 95% CI, call time, event-sum diagnostic and its ratio to the first; --json writes the record.
// Exit status 1 where a configuration failed its verification (before or after the timed rounds).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "pipeline/bench.h"

namespace mdh::cli {

namespace {

constexpr const char* kReferenceConfigName = "reference";
// What `mdh run` without --config takes from the tuned store for these sizes on this device (or the default).
constexpr const char* kStoredConfigName = "stored";

std::string format_us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f us", ns / 1e3);
  return buf;
}

std::string format_ratio(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fx", ratio);
  return buf;
}

// A word of the command line as a shell reads it back: quoted where it holds anything but plain characters.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=.,/:@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

BenchConfiguration configuration(const std::string& text, const std::string& store) {
  if (text.empty()) throw UserError(SourceLoc{}, "--config '': name a file, 'default', 'reference' or 'stored'");
  if (text == kReferenceConfigName) return {text, KernelChoice::reference()};
  if (text == kStoredConfigName) return {text, KernelChoice::stored(store)};
  // Checked here so that a missing file is named before the spec is read and the device opened.
  if (text != kDefaultConfigName && !std::filesystem::is_regular_file(text))
    throw UserError(SourceLoc{}, "--config '" + text + "': no such file (a configuration file, '" + kDefaultConfigName +
                                     "', '" + kReferenceConfigName + "' or '" + kStoredConfigName + "')");
  return {text, KernelChoice::option(text)};
}

// What --config stored found: the result taken, or none (the default ran), with the lookup's notes.
nlohmann::json store_json(const BenchStoreLookup& lookup) {
  nlohmann::json out = {{"store", lookup.store}, {"taken", nullptr}, {"notes", lookup.notes}};
  if (lookup.taken) {
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [name, value] : lookup.taken->sizes) sizes[name] = value;
    out["taken"] = lookup.taken->path;
    out["tuned_sizes"] = sizes;
    out["log2_distance"] = lookup.taken->distance;
  }
  return out;
}

nlohmann::json stats_json(const TimeStats& s) {
  return {{"median", s.median_ns}, {"ci_low", s.ci_low_ns}, {"ci_high", s.ci_high_ns}, {"min", s.min_ns},
          {"max", s.max_ns},       {"stddev", s.stddev_ns}, {"ci_met", s.ci_met}};
}

nlohmann::json verification_json(const VerifyReport& r) {
  return {{"passed", r.passed},       {"max_abs_error", r.max_abs_error}, {"max_rel_error", r.max_rel_error},
          {"tolerance", r.tolerance}, {"mismatches", r.mismatches},       {"compared", r.compared},
          {"summary", r.summary()}};
}

const BenchEntry* first_timed(const BenchOutcome& outcome) {
  for (const BenchEntry& e : outcome.entries)
    if (e.timed) return &e;
  return nullptr;
}

nlohmann::json record(const BenchOutcome& outcome, const BenchRequest& request, const std::string& command_line) {
  nlohmann::json sizes = nlohmann::json::object();
  for (const auto& [name, value] : outcome.bound.sizes) sizes[name] = value;
  nlohmann::json out = {
      {"tool", "mdh bench"},
      {"command_line", command_line},
      {"date", utc_now()},
      {"spec", request.spec_path},
      {"md_hom", outcome.bound.mdh->name},
      {"sizes", sizes},
      {"data", request.data.to_json()},
      {"device",
       {{"name", outcome.device.name},
        {"selector", outcome.device.selector()},
        {"platform", outcome.device.platform_name},
        {"driver_version", outcome.device.driver_version}}},
      {"method",
       {{"steady_time",
         "time per call of calls_per_pair calls enqueued back to back between one pair of device "
         "time stamps (the first kernel's START, the last kernel's END); every kernel of a call counts"},
        {"call_time", "host wall time of one call without kernel events, first enqueue to finish"},
        {"event_sum", "sum of one call's kernel profiling events: a diagnostic"},
        {"interleaved", "each round times every configuration in order"},
        {"min_span_ns", request.steady.min_span_ns},
        {"min_calls", request.steady.min_calls},
        {"confidence", request.measurement.confidence},
        {"ci_relative", request.measurement.ci_relative},
        {"max_rounds", request.measurement.max_runs}}},
      {"rounds", outcome.rounds},
      {"ci_met", outcome.ci_met},
      {"reference_precision", outcome.reference_in_double ? "double" : "spec types"},
  };
  if (*kBuildCommit) out["commit"] = {{"id", kBuildCommit}, {"modified", kBuildSourceModified}};
  const BenchEntry* first = first_timed(outcome);
  nlohmann::json entries = nlohmann::json::array();
  for (const BenchEntry& e : outcome.entries) {
    nlohmann::json j = {{"label", e.label},
                        {"description", e.description},
                        {"kernels_per_call", e.kernels_per_call},
                        {"verification", verification_json(e.verification)},
                        {"timed", e.timed}};
    if (e.config) j["config"] = *e.config;
    if (e.store) j["store"] = store_json(*e.store);
    if (e.timed) {
      j["verification_after_timing"] = verification_json(*e.after_timing);
      j["calls_per_pair"] = e.calls_per_pair;
      j["runs"] = e.runs;
      j["steady_time_median_ns"] = e.steady.median_ns;
      j["call_time_median_ns"] = e.call.median_ns;
      j["steady_time_ns"] = stats_json(e.steady);
      j["call_time_ns"] = stats_json(e.call);
      j["event_sum_ns"] = stats_json(e.event_sum);
      j["samples"] = {
          {"steady_ns", e.steady_samples}, {"call_ns", e.call_samples}, {"event_sum_ns", e.event_sum_samples}};
      if (first && first != &e) {
        const BenchComparison c = compare_steady(*first, e);
        j["against_first"] = {{"label", first->label}, {"steady_ratio", c.ratio}, {"tie", c.tie}};
      }
    }
    entries.push_back(std::move(j));
  }
  out["configurations"] = std::move(entries);
  return out;
}

void print(const BenchOutcome& outcome, const BenchRequest& request) {
  std::cout << outcome.bound.mdh->name << " (" << request.sizes << ") on " << outcome.device.name << " ["
            << outcome.device.selector() << "], " << outcome.entries.size() << " configuration"
            << (outcome.entries.size() == 1 ? "" : "s") << ", " << outcome.rounds << " interleaved round"
            << (outcome.rounds == 1 ? "" : "s") << ", steady CIs " << (outcome.ci_met ? "" : "NOT ") << "within "
            << request.measurement.ci_relative * 100 << "%\n";
  const BenchEntry* first = first_timed(outcome);
  for (size_t i = 0; i < outcome.entries.size(); ++i) {
    const BenchEntry& e = outcome.entries[i];
    std::cout << "#" << i + 1 << ' ' << e.label << ": " << e.description << ", " << e.kernels_per_call << " kernel"
              << (e.kernels_per_call == 1 ? "" : "s") << " per call\n";
    if (e.store)
      std::cout << "  from the store: "
                << (e.store->taken ? e.store->taken->path : "none taken, the default configuration (notes above)")
                << '\n';
    std::cout << "  verify: " << e.verification.summary() << '\n';
    if (!e.timed) {
      std::cout << "  not timed: the verification failed\n";
      continue;
    }
    if (!e.after_timing->passed) std::cout << "  verify after timing: " << e.after_timing->summary() << '\n';
    std::cout << "  steady time: median " << format_us(e.steady.median_ns) << ", 95% CI ["
              << format_us(e.steady.ci_low_ns) << ", " << format_us(e.steady.ci_high_ns) << "], " << e.calls_per_pair
              << " calls per pair, " << e.runs << " runs\n";
    std::cout << "  call time: median " << format_us(e.call.median_ns) << "; event sum (diagnostic): median "
              << format_us(e.event_sum.median_ns) << '\n';
    if (first && first != &e) {
      const BenchComparison c = compare_steady(*first, e);
      std::cout << "  against " << first->label << ": "
                << (c.tie         ? "tie (the CIs overlap), "
                    : c.ratio < 1 ? "faster, "
                                  : "slower, ")
                << format_ratio(c.ratio) << " its steady time\n";
    }
  }
}

}  // namespace

int bench_command(const Args& args) {
  const SteadyOptions steady_defaults;
  const MeasurementOptions measurement_defaults;
  po::options_description options("mdh bench options");
  options.add_options()                                                                                  //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("config", po::value<std::vector<std::string>>()->composing(),
       "a configuration to time (repeatable, in order): a config or `mdh tune` result file, 'default' (the device's "
       "default configuration), 'reference' (the reference kernel) or 'stored' (what `mdh run` without --config "
       "takes from the tuned store, else the default); none: 'default'")  //
      ("tuned-results", po::value<std::string>()->default_value(""),
       "the store that --config stored reads (default: $MDH_TUNED_RESULTS, else the source tree's tuned/)")          //
      ("device", po::value<std::string>()->default_value(""), "device selector: P:D, gpu, cpu or a name substring")  //
      ("rounds", po::value<int>()->default_value(100), "the most interleaved rounds (fewer once every CI is met)")   //
      ("min-calls", po::value<int>()->default_value(steady_defaults.min_calls),
       "calls per pair of time stamps that suffice even where the pair spans less than --min-span-us")  //
      ("min-span-us", po::value<double>()->default_value(steady_defaults.min_span_ns / 1e3),
       "device time a pair of time stamps spans at least, unless --min-calls calls are reached first")  //
      ("ci", po::value<double>()->default_value(measurement_defaults.ci_relative),
       "stop once every steady median's 95% CI lies within this share of it (0.02: 2%)")                        //
      ("json", po::value<std::string>(), "also write the record to FILE (never replaces one without --force)")  //
      ("force", "replace an existing --json file");
  add_data_options(options);
  add_time_limit_option(options);
  add_precision_option(options);
  po::variables_map vm;
  if (!parse_options("bench",
                     "SPEC --size I=..,J=.. [--config F|default|reference|stored]... [--rounds N] [--ci X] "
                     "[--json FILE]",
                     args, options, vm))
    return 0;

  BenchRequest request;
  request.spec_path = vm["spec"].as<std::string>();
  request.sizes = vm["size"].as<std::string>();
  request.precision = precision_option(vm);
  request.device = vm["device"].as<std::string>();
  request.data = data_options(vm);
  for (const std::string& text :
       vm.count("config") ? vm["config"].as<std::vector<std::string>>() : std::vector<std::string>{kDefaultConfigName})
    request.configurations.push_back(configuration(text, tuned_store_directory(vm["tuned-results"].as<std::string>())));
  const int rounds = vm["rounds"].as<int>();
  if (rounds < 1) throw UserError(SourceLoc{}, "--rounds must be at least 1");
  request.measurement.max_runs = rounds;
  request.measurement.min_runs = std::min(measurement_defaults.min_runs, rounds);
  request.measurement.ci_relative = vm["ci"].as<double>();
  if (!(request.measurement.ci_relative > 0 && request.measurement.ci_relative < 1))
    throw UserError(SourceLoc{}, "--ci must lie strictly between 0 and 1 (0.02: the CI within 2% of the median)");
  request.steady.min_calls = vm["min-calls"].as<int>();
  if (request.steady.min_calls < 1) throw UserError(SourceLoc{}, "--min-calls must be at least 1");
  request.steady.min_span_ns = vm["min-span-us"].as<double>() * 1e3;
  if (!(request.steady.min_span_ns > 0)) throw UserError(SourceLoc{}, "--min-span-us must be positive");

  std::string json_path;
  if (vm.count("json")) {
    json_path = vm["json"].as<std::string>();
    std::error_code error;
    if (!vm.count("force") && std::filesystem::exists(json_path, error))
      throw UserError(SourceLoc{}, "--json '" + json_path +
                                       "' exists (an earlier result?); pass --force to replace it, or choose "
                                       "another file");
    // input_files(vm) reads one --config; here there may be several.
    std::vector<NamedPath> inputs{{"spec", request.spec_path}};
    for (const auto& [name, path] : request.data.input_files) inputs.push_back({"input file", path});
    for (const BenchConfiguration& c : request.configurations)
      if (c.choice.kind == KernelChoice::Kind::config_file) inputs.push_back({"configuration", c.label});
    check_output_path("--json", json_path, inputs);
  }
  std::string command_line = "mdh bench";
  for (const std::string& word : args) command_line += ' ' + shell_word(word);

  const BenchOutcome outcome = bench_md_hom(request, print_note);
  print(outcome, request);
  if (!json_path.empty()) write_text(json_path, record(outcome, request, command_line).dump(2) + '\n');

  for (const BenchEntry& e : outcome.entries)
    if (!e.verification.passed || (e.after_timing && !e.after_timing->passed)) return 1;
  return 0;
}

}  // namespace mdh::cli
