// The search techniques by name: one table from which `mdh tune --technique`, its help text and the AUC bandit's
// members are derived. Adding a technique is one entry in technique_registry.cpp.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tuner/search/technique.h"

namespace mdh::tuner {

/// The technique of a run that names none: iterated local search climbs from the default start and the other seeds,
/// which the bandit's members never hear of (docs/decisions.md). A resumed journal keeps the technique it was
/// recorded with (pipeline/tune/tuning_settings.h, TuningSettings::technique).
inline constexpr const char* kDefaultTechnique = "local";

struct TechniqueEntry {
  const char* name;
  const char* help;  // one line: what the technique does
  /// Makes the technique; nullptr where this build lacks what it needs (make_technique then says what).
  std::unique_ptr<SearchTechnique> (*make)();
  /// 0: not a member of the AUC bandit; otherwise its place among the members (the first gets the first asks).
  int bandit_position;
};

/// Every technique, in the order `mdh tune --help` lists them (the default first).
std::span<const TechniqueEntry> technique_registry();

/// Names accepted by make_technique, the default (kDefaultTechnique) first: the entries this build can make.
std::vector<std::string> technique_names();
/// Throws mdh::UserError for an unknown name, listing the known ones.
std::unique_ptr<SearchTechnique> make_technique(const std::string& name);

}  // namespace mdh::tuner
