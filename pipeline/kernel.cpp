// prepare_kernel and load_config.
#include "pipeline/kernel.h"

#include <nlohmann/json.hpp>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/reference_kernel.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "pipeline/tuning_result.h"
#include "support/error.h"
#include "support/input_file.h"
#include "support/untrusted_json.h"

namespace mdh {

KernelConfig load_config(const std::string& path, const BoundMdh& bound, const DeviceLimits& limits) {
  const InputFile file = read_input_file(path, kMaxConfigBytes);
  if (!file.ok) throw UserError(path + ": error: cannot read the configuration file: " + file.problem);
  return parse_config(file.bytes, path, bound, limits);
}

KernelConfig parse_config(const std::string& text, const std::string& path, const BoundMdh& bound,
                          const DeviceLimits& limits) {
  nlohmann::json json;
  try {
    json = parse_untrusted_json(text);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(path + ": error: not valid JSON: " + e.what());
  } catch (const UserError& e) {
    throw UserError(path + ": error: not a configuration: " + e.what());
  }
  return config_of_json(std::move(json), path, bound, limits);
}

KernelConfig config_of_json(nlohmann::json json, const std::string& where, const BoundMdh& bound,
                            const DeviceLimits& limits) {
  KernelConfig config;
  try {
    if (TuningResultFile::is_result(json)) json = TuningResultFile::from_json(json).config;
    config = config_from_json(bound, json);
    check_config(bound, config, limits);
  } catch (const UserError& e) {
    throw UserError(where + ": " + e.what());
  }
  return config;
}

std::optional<std::string> outside_default_space_note(const BoundMdh& bound, const KernelConfig& config,
                                                      const DeviceLimits& limits, const std::string& where) {
  const std::optional<std::string> violation = lattice_only_violation(bound, config, limits);
  if (!violation) return std::nullopt;
  return where + ": outside the default tuning space: " + *violation +
         "; it runs, but `mdh tune` tries such configurations only with --full-ranges";
}

KernelChoice KernelChoice::option(const std::string& text) {
  return text == kDefaultConfigName ? default_configuration() : file(text);
}

PreparedKernel prepare_kernel(const BoundMdh& bound, const DeviceLimits& limits, const KernelChoice& choice,
                              const PreambleOptions& preamble) {
  PreparedKernel kernel;
  switch (choice.kind) {
    case KernelChoice::Kind::reference:
      kernel.plan = generate_reference_kernel(bound, preamble);
      kernel.description = "reference kernel";
      return kernel;
    case KernelChoice::Kind::default_config:
      kernel.config = default_config(bound, limits);
      kernel.description = "tunable kernel, default config";
      break;
    case KernelChoice::Kind::config_file:
      kernel.config = load_config(choice.config_path, bound, limits);
      kernel.description = "tunable kernel, config " + choice.config_path;
      break;
    case KernelChoice::Kind::config_json:
      kernel.config = config_of_json(choice.json, "the given configuration", bound, limits);
      kernel.description = "tunable kernel, given config";
      break;
    case KernelChoice::Kind::config:
      MDH_INTERNAL_ASSERT(choice.config.has_value(), "a typed kernel choice without a configuration");
      kernel.config = choice.config;
      kernel.description = "tunable kernel, " + (choice.origin.empty() ? std::string("given config") : choice.origin);
      break;
    case KernelChoice::Kind::stored:
      MDH_INTERNAL_ASSERT(false,
                          "a stored-configuration choice reached prepare_kernel unresolved (resolve_kernel_choice)");
  }
  kernel.plan = generate_tunable_kernel(bound, *kernel.config, limits, preamble);
  return kernel;
}

}  // namespace mdh
