// JSON form of the tuning result file.
#include "pipeline/tuning_result.h"

#include <type_traits>

#include "pipeline/device_limits_json.h"
#include "support/error.h"

namespace mdh {

nlohmann::json TuningResultFile::to_json() const {
  nlohmann::json out;
  out["spec"] = spec;
  out["spec_hash"] = spec_hash;
  out["md_hom"] = md_hom;
  if (!md_hom_signature.empty()) out["md_hom_signature"] = md_hom_signature;
  out["sizes"] = sizes;
  out["precision"] = precision;
  out["device"] = device;
  if (device_limits) out["device_limits"] = device_limits_to_json(*device_limits);
  out["technique"] = technique;
  out["seed"] = seed;
  out["abort"] = abort;
  out["evaluations"] = evaluations;
  out["valid_evaluations"] = valid_evaluations;
  out["tuning_seconds"] = tuning_seconds;
  out["kernel_time_ns"] = kernel_time_ns;
  if (gflops) out["gflops"] = *gflops;
  if (gbytes_per_second) out["gbytes_per_second"] = *gbytes_per_second;
  out["space_size"] = space_size;
  out["config"] = config;
  if (!final_timing.is_null()) out["final_timing"] = final_timing;
  return out;
}

bool TuningResultFile::is_result(const nlohmann::json& json) {
  return json.is_object() && json.contains("config");
}

TuningResultFile TuningResultFile::from_json(const nlohmann::json& json) {
  if (!is_result(json)) throw UserError("not a tuning result: no 'config'");
  TuningResultFile r;
  auto text = [&](const char* key, std::string& field) {
    if (!json.contains(key)) return;
    if (!json[key].is_string()) throw UserError(std::string("tuning result: '") + key + "' must be a string");
    field = json[key].get<std::string>();
  };
  auto number = [&](const char* key, auto& field) {
    if (!json.contains(key)) return;
    using Field = std::decay_t<decltype(field)>;
    // Counts must be JSON integers: nlohmann would convert a float beyond 2^64 with undefined behaviour.
    if (std::is_integral_v<Field> ? !json[key].is_number_unsigned() : !json[key].is_number())
      throw UserError(std::string("tuning result: '") + key + "' must be a " +
                      (std::is_integral_v<Field> ? "count" : "number"));
    field = json[key].get<Field>();
  };
  auto optional_number = [&](const char* key, std::optional<double>& field) {
    if (!json.contains(key)) return;
    double value = 0;
    number(key, value);
    field = value;
  };
  // Every key but the configuration is a record of how it was found: results of older versions lack some.
  text("spec", r.spec);
  text("spec_hash", r.spec_hash);
  text("md_hom", r.md_hom);
  text("md_hom_signature", r.md_hom_signature);
  if (json.contains("sizes")) r.sizes = json["sizes"];
  text("precision", r.precision);
  text("technique", r.technique);
  text("abort", r.abort);
  text("space_size", r.space_size);
  number("seed", r.seed);
  number("evaluations", r.evaluations);
  number("valid_evaluations", r.valid_evaluations);
  number("tuning_seconds", r.tuning_seconds);
  number("kernel_time_ns", r.kernel_time_ns);
  optional_number("gflops", r.gflops);
  optional_number("gbytes_per_second", r.gbytes_per_second);
  if (json.contains("device")) r.device = json["device"];
  if (json.contains("device_limits")) {
    try {
      r.device_limits = device_limits_from_json(json["device_limits"]);
    } catch (const UserError& e) {
      throw UserError(std::string("tuning result: ") + e.what());
    }
  }
  if (json.contains("final_timing")) {
    if (!json["final_timing"].is_object()) throw UserError("tuning result: 'final_timing' must be an object");
    r.final_timing = json["final_timing"];
  }
  r.config = json["config"];
  return r;
}

}  // namespace mdh
