#include "cli/common.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/watched_run.h"
#include "pipeline/device_limits_query.h"
#include "support/atomic_file.h"

namespace mdh::cli {

bool parse_options(const std::string& command, const std::string& synopsis, const Args& args,
                   po::options_description& options, po::variables_map& vm, const std::string& positional) {
  options.add_options()("help,h", "show this help");
  po::positional_options_description pos;
  if (!positional.empty()) {
    options.add_options()(positional.c_str(), po::value<std::string>(), "the spec file");
    pos.add(positional.c_str(), 1);
  }
  po::store(po::command_line_parser(args).options(options).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: mdh " << command << ' ' << synopsis << "\n\n" << options << '\n';
    return false;
  }
  po::notify(vm);
  if (!positional.empty() && !vm.count(positional))
    throw UserError("mdh " + command + ": missing the spec file (usage: mdh " + command + ' ' + synopsis + ")");
  return true;
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UserError("--" + option + " '" + text + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void add_precision_option(po::options_description& options) {
  options.add_options()("precision", po::value<std::string>()->default_value("fp32"),
                        "fp32, or tf32: products of float inputs on tensor cores, inputs rounded to 10 fraction bits "
                        "(matrix-product md_homs on NVIDIA GPUs of compute capability 8.0 or later; elsewhere fp32)");
}

ComputePrecision precision_option(const po::variables_map& vm) {
  return parse_precision(vm["precision"].as<std::string>());
}

void add_tuned_store_option(po::options_description& options) {
  options.add_options()("tuned-results", po::value<std::string>()->default_value(""),
                        "without --config: take the configuration tuned for the nearest sizes from this store "
                        "(default: $MDH_TUNED_RESULTS, else the source tree's tuned/; 'none': the default "
                        "configuration)");
}

KernelChoice kernel_choice(const po::variables_map& vm) {
  if (vm.count("config") && vm.count("reference")) throw UserError("--config and --reference exclude each other");
  if (vm.count("reference")) return KernelChoice::reference();
  if (vm.count("config")) return KernelChoice::option(vm["config"].as<std::string>());
  return KernelChoice::stored(tuned_store_directory(vm["tuned-results"].as<std::string>()));
}

void add_device_profile_option(po::options_description& options) {
  options.add_options()("device-profile", po::value<std::string>(),
                        "generate for this device instead of one of this machine: a profile's name (those in the "
                        "source tree's device_profiles/, or $MDH_DEVICE_PROFILES) or file (a path; any tuning result "
                        "that records device limits is one; `mdh devices --profile SEL` writes one)");
}

TargetDevice target_device(const po::variables_map& vm, bool device_selects_limits) {
  if (!vm.count("device-profile")) {
    const DeviceInfo device = select_device(vm["device"].as<std::string>());
    return target_of(device, device_limits(device));
  }
  if (device_selects_limits && !vm["device"].as<std::string>().empty())
    throw UserError("--device and --device-profile exclude each other: both name the device to generate for");
  return target_of(load_device_profile(vm["device-profile"].as<std::string>(), device_profiles_directory()));
}

void print_note(const std::string& text) {
  std::cerr << "note: " << text << '\n';
}

void add_data_options(po::options_description& options) {
  options.add_options()                                                                                        //
      ("param", po::value<std::vector<std::string>>()->composing(), "a param value, NAME=VALUE (repeatable)")  //
      ("input", po::value<std::vector<std::string>>()->composing(),
       "read input NAME from FILE (.npy for numeric types, raw .bin for structs): NAME=FILE (repeatable)")  //
      ("prl-data",
       "inputs a, b and freq or agree, differ from the seeded synthetic record generator (apps/prl*.mdh)")  //
      ("seed", po::value<uint64_t>()->default_value(1), "seed of the inputs not given with --input");
}

void add_time_limit_option(po::options_description& options) {
  options.add_options()("time-limit", po::value<double>()->default_value(kDefaultTimeLimitSeconds),
                        "seconds the command may run before its kernels are stopped (0: no limit); a kernel that "
                        "crashes is reported, not fatal to mdh (cli/watched_run.h)");
}

DataOptions data_options(const po::variables_map& vm) {
  DataOptions data;
  data.seed = vm["seed"].as<uint64_t>();
  if (vm.count("param"))
    for (const auto& text : vm["param"].as<std::vector<std::string>>()) {
      auto [name, value] = split_assignment(text, "param");
      data.params[name] = value;
    }
  if (vm.count("input"))
    for (const auto& text : vm["input"].as<std::vector<std::string>>()) {
      auto [name, path] = split_assignment(text, "input");
      data.input_files[name] = path;
    }
  data.prl_data = vm.count("prl-data") > 0;
  return data;
}

std::vector<std::pair<std::string, std::vector<std::string>>> restrictions(const po::variables_map& vm) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  if (!vm.count("restrict")) return out;
  for (const auto& text : vm["restrict"].as<std::vector<std::string>>()) {
    auto [name, list] = split_assignment(text, "restrict");
    std::vector<std::string> values;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) values.push_back(item);
    out.emplace_back(name, values);
  }
  return out;
}

std::vector<NamedPath> input_files(const po::variables_map& vm) {
  std::vector<NamedPath> inputs;
  if (vm.count("spec")) inputs.push_back({"spec", vm["spec"].as<std::string>()});
  if (vm.count("config") && vm["config"].as<std::string>() != kDefaultConfigName)
    inputs.push_back({"configuration", vm["config"].as<std::string>()});
  if (vm.count("input"))
    for (const auto& text : vm["input"].as<std::vector<std::string>>())
      inputs.push_back({"input file", split_assignment(text, "input").second});
  if (vm.count("start"))
    for (const auto& path : vm["start"].as<std::vector<std::string>>()) inputs.push_back({"start configuration", path});
  if (vm.count("device-profile")) {  // a file, not a profile's name (pipeline/device_profile.h)
    const std::string& profile = vm["device-profile"].as<std::string>();
    if (profile.find('/') != std::string::npos || profile.ends_with(".json"))
      inputs.push_back({"device profile", profile});
  }
  return inputs;
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec)) return std::filesystem::equivalent(a, b, ec);
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

}  // namespace

void check_output_path(const std::string& option, const std::string& path, const std::vector<NamedPath>& inputs) {
  if (path.empty() || path == "-") return;
  for (const NamedPath& input : inputs)
    if (same_file(path, input.path))
      throw UserError(option + " '" + path + "' is the " + input.role + " '" + input.path +
                      "': writing it would destroy the input; choose another file");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError(option + " '" + path + "': is a directory");
  const bool existed = std::filesystem::exists(path, ec);
  // O_NONBLOCK: a named pipe without a reader fails instead of blocking the check.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK | (existed ? 0 : O_CREAT | O_EXCL), 0644);
  if (fd < 0) throw UserError(option + " '" + path + "': cannot write it: " + std::strerror(errno));
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
}

void write_text(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  write_file_atomically(path, text);
}

}  // namespace mdh::cli
