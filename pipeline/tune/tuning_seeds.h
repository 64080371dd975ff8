// The configurations a tuning run evaluates before its technique's own: the default configuration, the given starts
// (--start) and the best stored results of the same md_hom (transferred starts), in that order.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tune/tuning_target.h"
#include "tuner/evaluate/compile_deadline.h"
#include "tuner/search/technique.h"
#include "tuner/space/search_space.h"

namespace mdh {

struct TuningSeeds {
  std::vector<tuner::Point> points;  // in the order they are evaluated
  /// The default configuration, where it is a seed (TuningSettings::default_start and in the space).
  std::optional<tuner::Configuration> default_configuration;
  nlohmann::json starts = nlohmann::json::array();       // the given starts, as the journal records them
  nlohmann::json transferred = nlohmann::json::array();  // [{"path", "config", "adapted"?}], as the journal does
  std::vector<std::string> transferred_from;             // the stored results taken (their paths)
  /// The seeds as configurations: the run's baseline, whose compiles get the compile worker's own deadline rather
  /// than one from the run's median compile. Under mpirun another rank learns rank 0's seeds from its requests.
  std::shared_ptr<tuner::SeedConfigurations> configurations = std::make_shared<tuner::SeedConfigurations>();
};

/// The seeds of the run. Only the searching process reads given and transferred starts (under mpirun: rank 0); a
/// resumed run takes the transferred starts its journal recorded, so that it replays the recorded sequence
/// whatever the store holds now. UserError for a given start outside the search space.
TuningSeeds choose_seeds(const TuningTarget& target, const tuner::SearchSpace& search_space,
                         const TuningSettings& settings);

/// `technique`, evaluating the seeds first where there are any (tuner::SeededTechnique).
std::unique_ptr<tuner::SearchTechnique> seeded(std::unique_ptr<tuner::SearchTechnique> technique,
                                               const TuningSeeds& seeds);

}  // namespace mdh
