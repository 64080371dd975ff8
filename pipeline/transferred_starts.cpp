// Finding, re-checking, adapting and ordering the stored tuning results a run starts from.
#include "pipeline/transferred_starts.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "codegen/config_json.h"
#include "pipeline/kernel.h"
#include "pipeline/tuned_store.h"
#include "pipeline/tuning_search_space.h"
#include "support/error.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

// A stored configuration that does not fit this run as it is (tuned for other extents, typically) is adapted:
// 1. NUM_WG of each dimension scaled by the ratio of its extents (the same tiles over a larger extent need
//    proportionally more work-groups);
// 2. each value moved to the nearest value this run searches (integers by log distance; names and permutations
//    are kept when this run has them, else the parameter's first value);
// 3. the nearest valid configuration to those values (tuner::SearchSpace::closest in the rank coordinates).
// Nullopt when the configuration is not one of the stored sizes.
std::optional<tuner::Point> adapted_point(const nlohmann::json& stored_config, const SizeBinding& sizes,
                                          const BoundMdh& bound, const tuner::SearchSpace& space) {
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
      const auto it = config.find(parameter.name());
      if (!parameter.range().enumerated()) {
        // A permutation too long to list: its stored order where it is used, else the first used order.
        try {
          const int64_t value = it != config.end() ? parameter.value_from_json(*it) : -1;
          if (value >= 0 && tree.is_used(k, static_cast<uint64_t>(value)))
            coordinates[p] = tree.coordinate(k, static_cast<uint64_t>(value));
        } catch (const UserError&) {
          // Not a value of this run's parameter: the first order.
        }
        continue;
      }
      const std::vector<int64_t>& values = parameter.range().values();
      const std::vector<uint32_t>& used = tree.used_values(k);  // range indices, ascending
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

TransferredStarts find_transferred_starts(const std::string& store, const BoundMdh& bound, const DeviceLimits& limits,
                                          const tuner::SearchSpace& space, const std::string& device_slug, size_t limit,
                                          const std::vector<tuner::Point>& exclude) {
  TransferredStarts found;
  if (store.empty() || store == kNoTunedStore) return found;
  // Every device's folder of the store (tuned_store.h's layout), in name order.
  std::vector<std::string> folders;
  std::error_code ec;
  for (fs::directory_iterator it(store, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) folders.push_back(it->path().string());
  std::sort(folders.begin(), folders.end());

  std::vector<Candidate> candidates;
  // Results of another version of the md_hom, or with sizes that are not the md_hom's, are passed over with a note.
  const TunedStoreNote passed_over = [&](const std::string& text) { found.skipped.push_back(text); };
  for (const std::string& folder : folders) {
    for (StoredResult& stored : stored_results_in(folder, bound, "", passed_over)) {
      Candidate candidate;
      candidate.start.path = stored.path;
      const nlohmann::json& device = stored.result.device;
      const bool same_device = device.is_object() && device.contains("slug") && device["slug"] == device_slug;
      candidate.other_device = same_device ? 0 : 1;
      candidate.distance = stored.distance;
      // As stored: checked against the md_hom, the device and this run's space.
      std::string reason;
      try {
        const KernelConfig config = config_of_json(stored.result.config, stored.path, bound, limits);
        if (const auto point = point_of_config(space, bound, config))
          candidate.start.point = *point;
        else
          reason = "not in this run's search space (a value outside the searched lattices or --restrict)";
      } catch (const UserError& e) {
        // "PATH: error: config: ..." -> "config: ...": the note names the file.
        reason = e.what();
        for (const std::string& prefix : {stored.path + ": ", std::string("error: ")})
          if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
      }
      if (!reason.empty()) {
        const auto adapted = adapted_point(stored.result.config, stored.sizes, bound, space);
        if (!adapted) {
          found.skipped.push_back("not using " + stored.path + ": " + reason +
                                  "; and it cannot be adapted (its configuration does not fit this md_hom)");
          continue;
        }
        candidate.adapted = 1;
        candidate.start.adapted_because = reason;
        candidate.start.point = *adapted;
      }
      candidates.push_back(std::move(candidate));
    }
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
