// Pieces shared by the subcommands: option parsing conventions, loading and binding a spec.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/subcommands.h"
#include "mdh/bind.h"
#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "runtime/host_buffer.h"
#include "runtime/mdh_tuning.h"

#include <map>

namespace mdh::cli {

namespace po = boost::program_options;

/// Parses `args` against `options` with one positional SPEC argument when `positional` is non-empty.
/// Returns false (after printing usage to stdout) when --help was asked for.
bool parse_options(const std::string& command, const std::string& synopsis, const Args& args,
                   po::options_description& options, po::variables_map& vm, const std::string& positional = "spec");

/// Parses the spec file and binds `--size` (which may be empty for a spec without size symbols).
BoundMdh load_and_bind(const std::string& spec_path, const std::string& size_text);

/// The options that say what data an md_hom runs on: --param, --input, --prl-data, --seed.
void add_data_options(po::options_description& options);

struct RunData {
  std::map<std::string, HostBuffer> inputs;     // from --input files and --prl-data; the rest is seeded random
  std::map<std::string, std::string> params;    // --param NAME=VALUE
  uint64_t seed = 1;
};
/// Reads the data options (files are checked against the bound buffer declarations).
RunData load_run_data(const po::variables_map& vm, const BoundMdh& bound);
/// The same options as command-line words, to hand them on to a worker process.
std::vector<std::string> data_option_words(const po::variables_map& vm);

/// Splits "NAME=VALUE"; UserError naming the option otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option);


/// The tuning space of the md_hom on the device, narrowed by --restrict NAME=V1,V2,... options (if any).
TuningSpace restricted_tuning_space(const po::variables_map& vm, const BoundMdh& bound, const DeviceLimits& limits);

/// Writes text to a file, or to stdout when path is "-" or empty; UserError when the file cannot be written.
void write_text(const std::string& path, const std::string& text);

}  // namespace mdh::cli
