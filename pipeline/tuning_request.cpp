// JSON form of the tuning request, and the restricted tuning space.
#include "pipeline/tuning_request.h"

#include <fstream>

#include "runtime/ptxas_log.h"
#include "support/error.h"

namespace mdh {

nlohmann::json TuningRequest::to_json() const {
  nlohmann::json restrict = nlohmann::json::array();
  for (const auto& [name, values] : restrictions) restrict.push_back({{"parameter", name}, {"values", values}});
  return {{"spec", spec_path},
          {"sizes", sizes},
          {"precision", precision_name(precision)},
          {"devices", device_selectors},
          {"data", data.to_json()},
          {"warmup", warmup},
          {"repeat", repeat},
          {"binary_cache", binary_cache},
          {"restrict", restrict},
          {"full_ranges", full_ranges},
          {"cut_factor", cut_factor},
          {"allow_spills", allow_spills},
          {"nvidia_compute_cache", nvidia_compute_cache},
          {"shared_reference", shared_reference}};
}

TuningRequest TuningRequest::from_json(const nlohmann::json& json) {
  TuningRequest r;
  try {
    r.spec_path = json.at("spec").get<std::string>();
    r.sizes = json.at("sizes").get<std::string>();
    r.precision = parse_precision(json.value("precision", std::string("fp32")));
    r.device_selectors = json.at("devices").get<std::vector<std::string>>();
    r.data = DataOptions::from_json(json.at("data"));
    r.warmup = json.at("warmup").get<int>();
    r.repeat = json.at("repeat").get<int>();
    r.binary_cache = json.at("binary_cache").get<std::string>();
    r.full_ranges = json.at("full_ranges").get<bool>();
    r.cut_factor = json.at("cut_factor").get<double>();
    r.allow_spills = json.at("allow_spills").get<bool>();
    r.nvidia_compute_cache = json.at("nvidia_compute_cache").get<std::string>();
    r.shared_reference = json.value("shared_reference", std::string());
    for (const auto& entry : json.at("restrict"))
      r.restrictions.emplace_back(entry.at("parameter").get<std::string>(),
                                  entry.at("values").get<std::vector<std::string>>());
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("tuning request: ") + e.what());
  }
  return r;
}

void TuningRequest::write(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << to_json().dump(2) << '\n') || !out.flush())
    throw UserError("cannot write the tuning request '" + path + "'");
}

TuningRequest TuningRequest::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read the tuning request '" + path + "'");
  try {
    return from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw UserError("tuning request '" + path + "': " + e.what());
  }
}

CostSettings tuning_cost_settings(const TuningRequest& request, const DeviceLimits& limits) {
  CostSettings settings;
  settings.warmups = request.warmup;
  settings.repetitions = request.repeat;
  settings.cut_factor = request.cut_factor;
  if (limits.nvidia_driver && !request.allow_spills) {
    settings.extra_build_options = kNvidiaVerboseBuildOption;
    settings.reject_spills = true;
  }
  return settings;
}

TuningSpace restricted_tuning_space(const BoundMdh& bound, const DeviceLimits& limits,
                                    const std::vector<std::pair<std::string, std::vector<std::string>>>& restrictions,
                                    bool full_ranges) {
  TuningSpace space = make_tuning_space(bound, limits);
  space.full_ranges = full_ranges;
  for (const auto& [name, items] : restrictions) {
    const int p = space.find(name);
    if (p < 0) throw UserError("--restrict " + name + ": the tuning space has no parameter '" + name + "'");
    const TuningParameter& parameter = space.parameters[p];
    // A permutation is printed by `mdh space` as its elements joined by commas ("k,j,i"): the comma-separated
    // items are then taken as consecutive orders of that many elements each.
    std::vector<std::string> texts = items;
    const size_t order = parameter.permutation_elements.size();
    if (parameter.kind() == FamilyValueKind::permutation && order > 1 && items.size() % order == 0 &&
        !parameter.parse_value_name(items[0])) {
      texts.clear();
      for (size_t k = 0; k < items.size(); k += order) {
        std::string joined;
        for (size_t e = k; e < k + order; ++e) joined += (e > k ? "," : "") + items[e];
        texts.push_back(joined);
      }
    }
    std::vector<int64_t> values;
    for (const std::string& text : texts) {
      // A value by its name as `mdh space` prints it ("local", "P", "k,j,i"), else by number.
      const std::optional<int64_t> value = parameter.parse_value_name(text);
      if (!value) throw UserError("--restrict " + name + ": '" + text + "' is neither a value name nor an integer");
      values.push_back(*value);
    }
    space.restrict_to(name, values);
  }
  return space;
}

}  // namespace mdh
