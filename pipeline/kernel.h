// Bound md_hom + device limits + a choice of kernel -> LaunchPlan: the one step that `mdh run`, `generate`,
// `export`, the peers and the tuner's cost function share.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/launch_plan.h"
#include "codegen/preamble.h"
#include "mdh/bind.h"

namespace mdh {

/// Which kernel to generate.
struct KernelChoice {
  enum class Kind {
    reference,       // the oracle: one work-item per output point
    default_config,  // the tunable kernel with the device's default configuration
    config_file,     // the tunable kernel with a configuration file (a config or an `mdh tune` result)
    config,          // the tunable kernel with a typed configuration
    config_json,     // the tunable kernel with a configuration in JSON (what a config file holds)
    stored,          // the configuration tuned for the nearest sizes in a store, else the default configuration;
                     // resolved with the device by resolve_kernel_choice (pipeline/tuned_store.h) before prepare_kernel
  };
  Kind kind = Kind::default_config;
  std::string config_path;             // config_file; stored: the store's folder (tuned_store_directory)
  std::optional<KernelConfig> config;  // config
  nlohmann::json json;                 // config_json
  std::string origin;                  // config: where it came from, for the description ("" : "given config")

  static KernelChoice reference() { return {Kind::reference, "", std::nullopt, {}, ""}; }
  static KernelChoice default_configuration() { return {Kind::default_config, "", std::nullopt, {}, ""}; }
  static KernelChoice file(std::string path) { return {Kind::config_file, std::move(path), std::nullopt, {}, ""}; }
  static KernelChoice typed(KernelConfig config, std::string origin = "") {
    return {Kind::config, "", std::move(config), {}, std::move(origin)};
  }
  static KernelChoice from_json(nlohmann::json json) {
    return {Kind::config_json, "", std::nullopt, std::move(json), ""};
  }
  static KernelChoice stored(std::string store) { return {Kind::stored, std::move(store), std::nullopt, {}, ""}; }
  /// What `--config TEXT` means: kDefaultConfigName the default configuration, anything else a file.
  static KernelChoice option(const std::string& text);
};

/// `--config default` (Python: config="default"): the device's default configuration, even where a store holds a
/// tuned one. A file of that name is `--config ./default`.
inline constexpr const char* kDefaultConfigName = "default";

struct PreparedKernel {
  LaunchPlan plan;
  std::optional<KernelConfig> config;  // the tunable kernel's configuration
  std::string description;             // "tunable kernel, default config", for people
};

/// Throws UserError for a configuration that is unreadable, malformed or invalid for the device.
PreparedKernel prepare_kernel(const BoundMdh& bound, const DeviceLimits& limits, const KernelChoice& choice,
                              const PreambleOptions& preamble = {});

/// Reads a tunable-kernel configuration: a config (any version, codegen/kernel_config.h) or an `mdh tune` result
/// holding one (pipeline/tuning_result.h); checked against the md_hom and the device (UserError naming the file and
/// the problem).
KernelConfig load_config(const std::string& path, const BoundMdh& bound, const DeviceLimits& limits);
/// The same for the text of a configuration file; `path` names it in messages.
KernelConfig parse_config(const std::string& text, const std::string& path, const BoundMdh& bound,
                          const DeviceLimits& limits);
/// The same for the JSON a configuration file holds; messages start with `where`.
KernelConfig config_of_json(nlohmann::json json, const std::string& where, const BoundMdh& bound,
                            const DeviceLimits& limits);

/// For a valid configuration that the default search space leaves out (a lattice-only constraint such as whole
/// warps, codegen/families/tile_sizes.cpp): a note, starting with `where`, that it runs but `mdh tune` tries it only
/// with --full-ranges. Nullopt otherwise.
std::optional<std::string> outside_default_space_note(const BoundMdh& bound, const KernelConfig& config,
                                                      const DeviceLimits& limits, const std::string& where);

}  // namespace mdh
