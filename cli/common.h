// Pieces shared by the subcommands: option parsing conventions, loading and binding a spec.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/subcommands.h"
#include "pipeline/device_profile.h"
#include "pipeline/pipeline.h"
#include "pipeline/run_inputs.h"

namespace mdh::cli {

namespace po = boost::program_options;

/// Parses `args` against `options` with one positional SPEC argument when `positional` is non-empty.
/// Returns false (after printing usage to stdout) when --help was asked for.
bool parse_options(const std::string& command, const std::string& synopsis, const Args& args,
                   po::options_description& options, po::variables_map& vm, const std::string& positional = "spec");

/// The options that say what data an md_hom runs on: --param, --input, --prl-data, --seed.
void add_data_options(po::options_description& options);
/// --time-limit S of the commands that run kernels in a watched process (cli/watched_run.h reads it).
void add_time_limit_option(po::options_description& options);
/// Those options as the pipeline's DataOptions (the files are read by load_run_inputs).
DataOptions data_options(const po::variables_map& vm);

/// --precision fp32|tf32 (ComputePrecision), and its value.
void add_precision_option(po::options_description& options);
ComputePrecision precision_option(const po::variables_map& vm);

/// --tuned-results DIR: the store of tuned configurations to look in when no --config is given
/// (pipeline/tuned_store.h).
void add_tuned_store_option(po::options_description& options);
/// The kernel that --reference (where the command has it), --config and --tuned-results choose: the reference
/// kernel, `--config default` the device's default configuration, `--config FILE` that file, and without either
/// the store's configuration for the nearest sizes (KernelChoice::stored; resolved with the device later).
KernelChoice kernel_choice(const po::variables_map& vm);
/// --device-profile NAME|FILE: generate for a device this machine does not have (pipeline/device_profile.h).
void add_device_profile_option(po::options_description& options);
/// The device the kernel is made for: --device-profile's when given (then --device, if the command's only use of it
/// is the limits, must not be given too: `device_selects_limits`), else the device --device selects.
TargetDevice target_device(const po::variables_map& vm, bool device_selects_limits);
/// Prints what the store lookup took or passed over: "note: TEXT" on stderr.
void print_note(const std::string& text);

/// Splits "NAME=VALUE"; UserError naming the option otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option);

/// The --restrict NAME=V1,V2,... options (repeatable) as (name, values).
std::vector<std::pair<std::string, std::vector<std::string>>> restrictions(const po::variables_map& vm);

/// A file a command reads, named as messages name it: {"the spec", "apps/gemm.mdh"}.
struct NamedPath {
  std::string role;
  std::string path;
};
/// The files a command reads that an output must not replace: the spec, --input, --config, --start and
/// --device-profile files.
std::vector<NamedPath> input_files(const po::variables_map& vm);

/// Checks before any work that output `path` (given with `option`, e.g. "--out") can be written and is none of
/// `inputs` (also through another name: a link, "./"). Nothing is checked for "-" or "" (stdout). The file is not
/// changed: an existing one is opened without truncation, a missing one created and removed again.
void check_output_path(const std::string& option, const std::string& path, const std::vector<NamedPath>& inputs);

/// Writes text to a file, or to stdout when path is "-" or empty; UserError when the file cannot be written.
void write_text(const std::string& path, const std::string& text);

}  // namespace mdh::cli
