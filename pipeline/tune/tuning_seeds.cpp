// The default start, the given starts and the transferred ones, with the notes that say what was taken.
#include "pipeline/tune/tuning_seeds.h"

#include <unistd.h>

#include <filesystem>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "pipeline/kernel.h"
#include "pipeline/transferred_starts.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/device.h"
#include "tuner/search/seeded_technique.h"

namespace mdh {
namespace {

// "a, b, c and 2 more" of the first `shown` items.
std::string listed(const std::vector<std::string>& items, size_t shown) {
  std::string text;
  for (size_t k = 0; k < items.size() && k < shown; ++k) text += (k ? "; " : "") + items[k];
  if (items.size() > shown) text += "; and " + std::to_string(items.size() - shown) + " more";
  return text;
}

// The transferred starts recorded in the journal a run resumes, re-checked against this run's search space.
std::vector<TransferredStart> recorded_transferred_starts(const std::string& journal_path,
                                                          const tuner::SearchSpace& search_space) {
  std::vector<TransferredStart> taken;
  const nlohmann::json metadata = tuner::read_journal(journal_path).header.metadata;
  for (const nlohmann::json& entry : metadata.value("transferred", nlohmann::json::array())) {
    const std::string path = entry.value("path", std::string("?"));
    std::optional<tuner::Point> point;
    try {
      point = search_space.point_of(search_space.configuration_from_json(entry.value("config", nlohmann::json())));
    } catch (const UserError&) {
    }
    if (!point)
      throw UserError(SourceLoc{}, "cannot resume journal '" + journal_path + "': its transferred start from " + path +
                                       " is not in this run's search space");
    taken.push_back({path, *point, entry.value("adapted", std::string())});
  }
  return taken;
}

// The best stored results of the md_hom in the store (pipeline/transferred_starts.h), with notes on what was taken
// and what could not be used.
std::vector<TransferredStart> stored_transferred_starts(const std::string& store, const TuningTarget& target,
                                                        const tuner::SearchSpace& search_space,
                                                        const TuningSettings& settings,
                                                        const std::vector<tuner::Point>& seeds) {
  TransferredStarts found = find_transferred_starts(store, target.bound, target.limits, search_space,
                                                    device_slug(target.devices[0]), kMaxTransferredStarts, seeds);
  // Paths relative to the store, which the notes name once.
  auto shown = [&](std::string text) {
    const std::string prefix = (std::filesystem::path(store) / "").string();
    for (size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
    return text;
  };
  const std::string what = "stored results of " + target.bound.mdh->name + " in " + store;
  if (settings.note && !found.skipped.empty()) {
    std::vector<std::string> reasons;
    for (const std::string& skipped : found.skipped) reasons.push_back(shown(skipped));
    settings.note("transfer: " + std::to_string(found.skipped.size()) + " " + what +
                  " cannot be used: " + listed(reasons, 3));
  }
  if (settings.note && !found.taken.empty()) {
    std::vector<std::string> paths;
    for (const TransferredStart& start : found.taken)
      paths.push_back(shown(start.path) + (start.adapted_because.empty() ? "" : " (adapted)"));
    settings.note("transfer: starting from " + std::to_string(found.taken.size()) + " " + what +
                  " (re-checked; adapted: tuned for other sizes or limits, moved to the nearest valid configuration "
                  "of this run; --no-transfer: without them): " +
                  listed(paths, paths.size()));
  }
  return std::move(found.taken);
}

// Appends the transferred starts to the seeds and records them as the journal does.
void add_transferred_starts(const TuningTarget& target, const tuner::SearchSpace& search_space,
                            const TuningSettings& settings, TuningSeeds& seeds) {
  std::vector<TransferredStart> taken;
  if (settings.resume && ::access(settings.journal_path.c_str(), F_OK) == 0)
    taken = recorded_transferred_starts(settings.journal_path, search_space);
  else if (settings.transfer_folder)
    taken = stored_transferred_starts(*settings.transfer_folder, target, search_space, settings, seeds.points);
  for (TransferredStart& start : taken) {
    nlohmann::json entry = {{"path", start.path}, {"config", search_space.configuration(start.point).to_json()}};
    if (!start.adapted_because.empty()) entry["adapted"] = start.adapted_because;
    seeds.transferred.push_back(std::move(entry));
    seeds.transferred_from.push_back(start.path);
    seeds.points.push_back(std::move(start.point));
  }
}

}  // namespace

TuningSeeds choose_seeds(const TuningTarget& target, const tuner::SearchSpace& search_space,
                         const TuningSettings& settings) {
  TuningSeeds seeds;
  const BoundMdh& bound = target.bound;
  if (settings.default_start) {
    // The default configuration first: in a large space (seven-dimensional contractions) a short search can
    // otherwise end worse than what `mdh run` gives without tuning.
    if (auto point = point_of_config(search_space, bound, default_config(bound, target.limits))) {
      seeds.points.push_back(*point);
      seeds.default_configuration = search_space.configuration(*point);
    } else if (settings.note) {
      settings.note("the default configuration is not in the search space; the search starts without it");
    }
  }
  // Then the given starts (load_config checks each against the md_hom, the sizes and the device).
  for (const std::string& path : settings.searches() ? settings.start_config_paths : std::vector<std::string>{}) {
    const KernelConfig config = load_config(path, bound, target.limits);
    const auto point = point_of_config(search_space, bound, config);
    if (!point) {
      if (auto violation =
              target.request.full_ranges ? std::nullopt : lattice_only_violation(bound, config, target.limits))
        throw UserError(SourceLoc{}, "--start " + path + ": the configuration is not in the search space: " +
                                         *violation + " (--full-ranges searches it)");
      throw UserError(SourceLoc{}, "--start " + path +
                                       ": the configuration is not in the search space (a value outside the searched "
                                       "lattices or --restrict; --full-ranges searches every size)");
    }
    seeds.points.push_back(*point);
    seeds.starts.push_back(config_to_json(bound, config));
  }
  if (settings.searches()) add_transferred_starts(target, search_space, settings, seeds);
  for (const tuner::Point& point : seeds.points) seeds.configurations->add(search_space.configuration(point));
  return seeds;
}

std::unique_ptr<tuner::SearchTechnique> seeded(std::unique_ptr<tuner::SearchTechnique> technique,
                                               const TuningSeeds& seeds) {
  if (seeds.points.empty()) return technique;
  return std::make_unique<tuner::SeededTechnique>(std::move(technique), seeds.points);
}

}  // namespace mdh
