// The file `mdh tune --out` writes: the best configuration found with what it was found for and how. One type owns
// the format, for the writer (mdh tune) and every reader (mdh run/generate/export --config, peers, scripts).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "codegen/device_limits.h"

namespace mdh {

struct TuningResultFile {
  std::string spec, spec_hash, md_hom;
  // mdh/signature.h: which md_hom the configuration was tuned for, independent of comments and flops/bytes; ""
  // in results written before it was recorded (the tuned-configuration store then compares spec_hash).
  std::string md_hom_signature;
  nlohmann::json sizes = nlohmann::json::object();  // {"I": 1024, ...}
  // The precision it was tuned in (ComputePrecision's name); results without the key were tuned in fp32.
  std::string precision = "fp32";
  nlohmann::json device = nlohmann::json::object();  // name, driver, platform, slug, count
  // The limits the configuration was tuned under (pipeline/device_limits_json.h), from which it is generated on
  // machines without that device; nullopt in results written before they were recorded.
  std::optional<DeviceLimits> device_limits;
  std::string technique, abort;
  uint64_t seed = 0, evaluations = 0, valid_evaluations = 0;
  double tuning_seconds = 0, kernel_time_ns = 0;
  std::optional<double> gflops, gbytes_per_second;
  std::string space_size;
  nlohmann::json config;  // the config JSON form (codegen/kernel_config.h)
  /// The final timing that chose `config` (tuner/evaluate/final_timing.h): {"rounds", "runs_per_round", "protocol",
  /// "finalists": [{"role", "search_ns", "final_ns" or "failure", "round_ns", "config"}], "chosen"}; null where the
  /// run had none (interrupted, or results written before it existed). kernel_time_ns is then the chosen one's
  /// final_ns.
  nlohmann::json final_timing;

  nlohmann::json to_json() const;
  /// Reads a result; throws UserError naming the missing or malformed key.
  static TuningResultFile from_json(const nlohmann::json& json);
  /// Whether a JSON document is a tuning result (rather than a bare config).
  static bool is_result(const nlohmann::json& json);
};

}  // namespace mdh
