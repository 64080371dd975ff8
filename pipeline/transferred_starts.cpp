// Finding, re-checking and ordering the stored tuning results a run starts from.
#include "pipeline/transferred_starts.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "pipeline/kernel.h"
#include "pipeline/tuning_result.h"
#include "pipeline/tuning_search_space.h"
#include "support/error.h"
#include "support/input_file.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

// How far a stored result's sizes are from this run's: sum over the size names of |log2(stored / now)|; a name
// only one side has counts as far as a factor of 2^20.
double size_distance(const nlohmann::json& stored, const SizeBinding& now) {
  constexpr double kMissing = 20;
  double distance = 0;
  for (const auto& [name, value] : now) {
    const auto it = stored.find(name);
    if (it == stored.end() || !it->is_number_integer() || it->get<int64_t>() <= 0 || value <= 0) {
      distance += kMissing;
      continue;
    }
    distance += std::abs(std::log2(static_cast<double>(it->get<int64_t>()) / static_cast<double>(value)));
  }
  for (const auto& [name, value] : stored.items())
    if (now.count(name) == 0) distance += kMissing;
  return distance;
}

// A stored configuration that does not fit this run as it is (tuned for other extents, typically) is adapted:
// 1. NUM_WG of each dimension scaled by the ratio of its extents (the same tiles over a larger extent need
//    proportionally more work-groups);
// 2. each value moved to the nearest value this run searches (integers by log distance; names and permutations
//    are kept when this run has them, else the parameter's first value);
// 3. the nearest valid configuration to those values (tuner::SearchSpace::closest in the rank coordinates).
// Nullopt when the stored sizes do not bind this md_hom.
std::optional<tuner::Point> adapted_point(const nlohmann::json& stored_config, const nlohmann::json& stored_sizes,
                                          const BoundMdh& bound, const tuner::SearchSpace& space) {
  SizeBinding sizes;
  for (const auto& [name, value] : stored_sizes.items()) {
    if (!value.is_number_integer()) return std::nullopt;
    sizes[name] = value.get<int64_t>();
  }
  std::vector<int64_t> stored_extents;
  // The configuration read as what it was, a configuration of the stored sizes, in the current (flat) form.
  nlohmann::json config;
  try {
    const BoundMdh stored = bind(bound.mdh, sizes);
    stored_extents = stored.dim_extents;
    config = config_to_json(stored, config_from_json(stored, stored_config));
  } catch (const UserError&) {
    return std::nullopt;
  }
  std::vector<double> coordinates(space.parameter_count(), 0.0);
  for (size_t g = 0; g < space.group_count(); ++g) {
    const tuner::GroupTree& tree = space.group(g);
    for (size_t k = 0; k < space.group_parameters(g).size(); ++k) {
      const size_t p = space.group_parameters(g)[k];
      const tuner::Parameter& parameter = space.parameter(p);
      const std::vector<int64_t>& values = parameter.range().values();
      const std::vector<uint32_t>& used = tree.used_values(k);  // range indices, ascending
      const auto it = config.find(parameter.name());
      uint32_t chosen = used.front();
      if (it != config.end() && parameter.kind() == tuner::ValueKind::integer && it->is_number_integer() &&
          it->get<int64_t>() > 0) {
        double wanted = static_cast<double>(it->get<int64_t>());
        for (size_t d = 0; d < bound.mdh->dims.size(); ++d)
          if (parameter.name() == "NUM_WG_" + bound.mdh->dims[d].name && stored_extents[d] > 0)
            wanted *= static_cast<double>(bound.dim_extents[d]) / static_cast<double>(stored_extents[d]);
        double nearest = INFINITY;
        for (uint32_t index : used) {
          const double value = static_cast<double>(values[index]);
          const double distance = value > 0 ? std::abs(std::log2(value / wanted)) : INFINITY;
          if (distance < nearest) nearest = distance, chosen = index;
        }
      } else if (it != config.end()) {
        try {
          const int64_t value = parameter.value_from_json(*it);
          for (uint32_t index : used)
            if (values[index] == value) chosen = index;
        } catch (const UserError&) {
          // Not a value of this run's parameter: its first value.
        }
      }
      coordinates[p] = tree.coordinate(k, chosen);
    }
  }
  return space.closest(coordinates);
}

struct Candidate {
  int adapted = 0;       // 0: fits as stored
  int other_device = 0;  // 0: tuned on this run's device
  double distance = 0;
  TransferredStart start;
};

}  // namespace

std::optional<std::string> default_results_folder(const std::string& spec_path) {
  std::error_code ec;
  fs::path folder = fs::absolute(spec_path, ec).parent_path();
  if (ec) return std::nullopt;
  for (; !folder.empty(); folder = folder.parent_path()) {
    if (fs::is_directory(folder / "results", ec)) return (folder / "results").string();
    if (folder == folder.root_path()) break;
  }
  return std::nullopt;
}

TransferredStarts find_transferred_starts(const std::string& folder, const BoundMdh& bound, const DeviceLimits& limits,
                                          const tuner::SearchSpace& space, const std::string& device_name, size_t limit,
                                          const std::vector<tuner::Point>& exclude) {
  TransferredStarts found;
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json" && it->is_regular_file(ec)) paths.push_back(it->path().string());
  std::sort(paths.begin(), paths.end());

  const std::string& md_hom = bound.mdh->name;
  std::vector<Candidate> candidates;
  for (const std::string& path : paths) {
    const InputFile file = read_input_file(path, kMaxConfigBytes);
    // Most files under results/ are benchmark records and other md_homs: skipped before parsing.
    if (!file.ok || file.bytes.find("\"" + md_hom + "\"") == std::string::npos) continue;
    const nlohmann::json json = nlohmann::json::parse(file.bytes, nullptr, false);
    if (json.is_discarded() || !TuningResultFile::is_result(json) || !json.contains("md_hom") ||
        json["md_hom"] != md_hom)
      continue;
    Candidate candidate;
    candidate.start.path = path;
    std::string reason;
    try {
      const TuningResultFile result = TuningResultFile::from_json(json);
      const bool same_device =
          result.device.is_object() && result.device.contains("name") && result.device["name"] == device_name;
      candidate.other_device = same_device ? 0 : 1;
      candidate.distance = size_distance(result.sizes, bound.sizes);
      // As stored: checked against the md_hom, the device and this run's space.
      try {
        const auto point = point_of_config(space, bound, config_of_json(json, path, bound, limits));
        if (point)
          candidate.start.point = *point;
        else
          reason = "not in this run's search space (a value outside the searched lattices or --restrict)";
      } catch (const UserError& e) {
        // "PATH: error: config: ..." -> "config: ...": the note names the file.
        reason = e.what();
        for (const std::string& prefix : {path + ": ", std::string("error: ")})
          if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
      }
      if (!reason.empty()) {
        const auto adapted = adapted_point(result.config, result.sizes, bound, space);
        if (!adapted) {
          found.skipped.push_back({path, reason + "; and it cannot be adapted (its sizes or its configuration do "
                                                  "not fit this md_hom)"});
          continue;
        }
        candidate.adapted = 1;
        candidate.start.adapted_because = reason;
        candidate.start.point = *adapted;
      }
    } catch (const UserError& e) {
      found.skipped.push_back({path, e.what()});
      continue;
    }
    candidates.push_back(std::move(candidate));
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.adapted, a.other_device, a.distance, a.start.path) <
           std::tie(b.adapted, b.other_device, b.distance, b.start.path);
  });
  std::vector<tuner::Point> chosen = exclude;
  for (Candidate& candidate : candidates) {
    const bool repeated = std::find(chosen.begin(), chosen.end(), candidate.start.point) != chosen.end();
    if (repeated || found.taken.size() == limit) {
      ++found.left_out;
      continue;
    }
    chosen.push_back(candidate.start.point);
    found.taken.push_back(std::move(candidate.start));
  }
  return found;
}

}  // namespace mdh
