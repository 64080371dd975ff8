// Pieces shared by the subcommands: option parsing conventions, loading and binding a spec.
#pragma once

#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/subcommands.h"
#include "mdh/bind.h"

namespace mdh::cli {

namespace po = boost::program_options;

/// Parses `args` against `options` with one positional SPEC argument when `positional` is non-empty.
/// Returns false (after printing usage to stdout) when --help was asked for.
bool parse_options(const std::string& command, const std::string& synopsis, const Args& args,
                   po::options_description& options, po::variables_map& vm, const std::string& positional = "spec");

/// Parses the spec file and binds `--size` (which may be empty for a spec without size symbols).
BoundMdh load_and_bind(const std::string& spec_path, const std::string& size_text);

/// Writes text to a file, or to stdout when path is "-" or empty; UserError when the file cannot be written.
void write_text(const std::string& path, const std::string& text);

}  // namespace mdh::cli
