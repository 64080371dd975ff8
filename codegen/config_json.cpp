// The config JSON form (codegen/config_json.h): written from the tuning space's parameters, read in every form
// mdh ever wrote.
#include "codegen/config_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "codegen/tuning_space.h"
#include "support/error.h"
#include "support/json_integer.h"

namespace mdh {

namespace {

using json = nlohmann::json;

// The families of the version-1 (nested) form: per dimension {"i": v}, per layer {"G": ..., "L": ..., "P": ...}.
constexpr const char* kNestedPerDimension[] = {"NUM_WG", "NUM_WI", "LT_SIZE", "PT_SIZE"};
constexpr const char* kNestedOther[] = {"MEM_INP", "MEM_RES", "ORDER_OCL", "BUF_ORDER", "LOOP_ORDER", "CMB_RES"};
constexpr const char* kVersionKey = "mdh_config";

constexpr Layer kLayers[] = {Layer::Global, Layer::Local, Layer::Private};
constexpr Layer kOclLayers[] = {Layer::Global, Layer::Local};

std::vector<std::string> dim_names(const Mdh& mdh) {
  std::vector<std::string> names;
  for (const auto& d : mdh.dims) names.push_back(d.name);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (size_t k = 0; k < names.size(); ++k) s += (k ? ", " : "") + names[k];
  return s;
}

std::vector<std::string> access_names(const Mdh& mdh) {
  std::vector<std::string> names;
  for (int a = 0; a < static_cast<int>(mdh.inputs.size()); ++a) names.push_back(input_access_name(mdh, a));
  return names;
}

// The parameters of an md_hom for reading and writing configs: the device's limits bound only the values, not the
// names and encodings, so any limits do.
TuningSpace config_parameters(const BoundMdh& bound) {
  DeviceLimits unbounded;
  unbounded.max_work_group_size = UINT32_MAX;
  return make_tuning_space(bound, unbounded);
}

// Every key of `object` must be one of `allowed`.
void reject_unknown_keys(const json& object, const std::vector<std::string>& allowed, const std::string& where) {
  for (auto it = object.begin(); it != object.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      config_error(where + ": unknown key '" + it.key() + "' (expected " + joined(allowed) + ")");
}

bool is_nested_form(const json& j) {
  for (const char* family : kNestedPerDimension)
    if (j.contains(family)) return true;
  for (const char* family : kNestedOther)
    if (j.contains(family) && std::string(family) != "CMB_RES") return true;
  return false;
}

// Version 1 -> the flat form. The global layer's entries are not parameters: they must hold the only values the
// kernel supports, as they always had to.
json flatten_nested_form(const Mdh& mdh, const json& j) {
  std::vector<std::string> families(std::begin(kNestedPerDimension), std::end(kNestedPerDimension));
  families.insert(families.end(), std::begin(kNestedOther), std::end(kNestedOther));
  reject_unknown_keys(j, families, "top level");
  const auto dims = dim_names(mdh);
  const auto accesses = access_names(mdh);
  json flat = json::object();
  auto per_dimension = [&](const std::string& family, const json& object, const std::string& prefix) {
    if (!object.is_object())
      config_error(family + ": expected an object with one entry per dimension (" + joined(dims) + ")");
    reject_unknown_keys(object, dims, family);
    for (const auto& [key, value] : object.items()) flat[prefix + "_" + key] = value;
  };
  for (const char* family : kNestedPerDimension)
    if (j.contains(family)) per_dimension(family, j[family], family);
  if (j.contains("ORDER_OCL")) {
    const json& order = j["ORDER_OCL"];
    if (order.is_object()) reject_unknown_keys(order, {"G", "L"}, "ORDER_OCL");
    for (Layer l : kOclLayers) {
      const std::string ln = layer_name(l);
      if (order.contains(ln)) per_dimension("ORDER_OCL." + ln, order[ln], "ORDER_OCL_" + ln);
    }
  }
  for (const char* family : {"MEM_INP", "BUF_ORDER", "LOOP_ORDER", "MEM_RES"}) {
    if (!j.contains(family)) continue;
    const json& layers = j[family];
    if (!layers.is_object()) config_error(std::string(family) + ": expected an object with entries G, L, P");
    reject_unknown_keys(layers, {"G", "L", "P"}, family);
    for (Layer l : kLayers) {
      const std::string ln = layer_name(l), where = std::string(family) + "." + ln;
      if (!layers.contains(ln)) continue;
      const json& value = layers[ln];
      if (std::string(family) == "LOOP_ORDER") {
        flat["LOOP_ORDER_" + ln] = value;
        continue;
      }
      if (std::string(family) == "MEM_RES") {
        if (l != Layer::Global)
          flat["MEM_RES_" + ln] = value;
        else if (value != "global")
          config_error("MEM_RES.G: the results of the global layer are in global memory (only \"global\")");
        continue;
      }
      if (!value.is_object())
        config_error(where + ": expected an object with one entry per input access (" + joined(accesses) + ")");
      reject_unknown_keys(value, accesses, where);
      for (size_t a = 0; a < accesses.size(); ++a) {
        if (!value.contains(accesses[a])) continue;
        const json& v = value[accesses[a]];
        const std::string at = where + "." + accesses[a];
        if (std::string(family) == "MEM_INP") {
          if (l == Layer::Global) {
            if (v != "none") config_error(at + ": the global layer reads inputs through (only \"none\" is supported)");
            continue;
          }
          flat["MEM_INP_" + ln + "_" + accesses[a]] = v;
        } else {
          const int rank = input_rank(mdh, static_cast<int>(a));
          json identity = json::array();
          for (int k = 0; k < rank; ++k) identity.push_back(k);
          if (l == Layer::Global || rank < 2) {
            if (v != identity)
              config_error(at + (l == Layer::Global
                                     ? ": the global layer caches nothing, so its order must be the identity"
                                     : ": a buffer of rank 1 has only the order [0]"));
            continue;
          }
          flat["BUF_ORDER_" + ln + "_" + accesses[a]] = v;
        }
      }
    }
  }
  if (j.contains("CMB_RES")) flat["CMB_RES"] = j["CMB_RES"];
  return flat;
}

}  // namespace

nlohmann::json config_to_json(const BoundMdh& bound, const KernelConfig& c) {
  check_config_shape(bound, c);
  const TuningSpace space = config_parameters(bound);
  json j = json::object();
  j[kVersionKey] = kConfigFormatVersion;
  for (const TuningParameter& p : space.parameters) {
    const int64_t value = p.family->get(c, p.ref.index);
    // An integer out of its range is written as it is (the reader names the problem); an enumeration or permutation
    // value outside the kernel's choices (MEM_INP_L = private) has no name to write.
    if (p.kind() != FamilyValueKind::integer && (value < p.lo || value > p.hi))
      config_error(p.name + ": the kernel does not support this value");
    j[p.name] = p.value_to_json(value);
  }
  return j;
}

KernelConfig config_from_json(const BoundMdh& bound, const nlohmann::json& input) {
  const Mdh& mdh = *bound.mdh;
  if (!input.is_object()) config_error("expected a JSON object with one entry per tuning parameter");
  json j = input;
  if (j.contains(kVersionKey)) {
    const json& version = j[kVersionKey];
    if (!json_int64(version) || *json_int64(version) < 1)
      config_error(std::string(kVersionKey) + ": expected a format version number, got " + version.dump());
    if (*json_int64(version) > kConfigFormatVersion)
      config_error("written in format version " + version.dump() + ", newer than this mdh reads (" +
                   std::to_string(kConfigFormatVersion) + ")");
    j.erase(kVersionKey);
  }
  if (is_nested_form(j)) j = flatten_nested_form(mdh, j);
  const TuningSpace space = config_parameters(bound);
  std::vector<std::string> names;
  for (const TuningParameter& p : space.parameters) names.push_back(p.name);
  for (const auto& [key, value] : j.items())
    if (space.find(key) < 0) config_error("unknown parameter '" + key + "' (mdh space lists the parameters)");
  Assignment values;
  for (const TuningParameter& p : space.parameters) {
    auto it = j.find(p.name);
    if (it != j.end()) {
      values.push_back(p.value_from_json(*it));
    } else if (p.neutral) {
      values.push_back(*p.neutral);
    } else {
      config_error("missing '" + p.name + "'");
    }
    // Ranges here do not depend on the device (the largest work-group is the tuning space's to check), so a value
    // outside them is malformed on every device.
    if (values.back() < p.lo || values.back() > p.hi)
      config_error(p.name + ": " + std::to_string(values.back()) + " is outside its range [" + std::to_string(p.lo) +
                   ", " + std::to_string(p.hi) + "]");
  }
  KernelConfig c = config_from_assignment(bound, space, values);
  check_config_shape(bound, c);
  // Normalised, not refused: a value without effect (EDGE_POINTS computed where the tiles leave no edge, as stored
  // results hold) is the neutral value's kernel, which the space holds instead.
  reset_values_without_effect(bound, c);
  return c;
}

}  // namespace mdh
