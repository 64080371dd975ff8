// The technique table and the AUC bandit assembled from its members.
#include "tuner/search/technique_registry.h"

#include <algorithm>

#include "support/error.h"
#include "tuner/search/techniques.h"

namespace mdh::tuner {
namespace {

// The guided techniques only: pure random search never won a share worth its asks in tuning_quality. Particle swarm
// first, as it is the strongest single member early on.
std::unique_ptr<SearchTechnique> make_bandit_of_members() {
  std::vector<const TechniqueEntry*> members;
  for (const TechniqueEntry& entry : technique_registry())
    if (entry.bandit_position > 0) members.push_back(&entry);
  std::sort(members.begin(), members.end(),
            [](const TechniqueEntry* a, const TechniqueEntry* b) { return a->bandit_position < b->bandit_position; });
  std::vector<std::unique_ptr<SearchTechnique>> made;
  for (const TechniqueEntry* member : members) made.push_back(member->make());
  return make_auc_bandit(std::move(made));
}

// The model-guided technique with its default batch; none in builds without XGBoost.
constexpr std::unique_ptr<SearchTechnique> (*kMakeModelGuided)() =
#ifdef MDH_WITH_XGBOOST
    [] { return make_model_guided(); };
#else
    nullptr;
#endif

constexpr TechniqueEntry kTechniques[] = {
    {"local", "iterated local search from the best seed: one-parameter changes, a kick where all were tried",
     make_local_search, 0},
    {"auc_bandit", "OpenTuner's AUC bandit over the guided techniques", make_bandit_of_members, 0},
    {"exhaustive", "every configuration once, in index order", make_exhaustive, 0},
    {"random", "uniform samples of valid configurations", make_random_search, 0},
    {"annealing", "simulated annealing over one-parameter neighbourhoods", make_simulated_annealing, 3},
    {"differential_evolution", "DE/rand/1/bin in parameter coordinates", make_differential_evolution, 2},
    {"pattern_search", "Torczon's multi-directional search in parameter coordinates", make_pattern_search, 4},
    {"particle_swarm", "particle swarm optimisation in parameter coordinates", make_particle_swarm, 1},
    {"model", "expected improvement under boosted trees fitted to every measurement (needs XGBoost)", kMakeModelGuided,
     0},
};

}  // namespace

bool model_guided_built_in() {
#ifdef MDH_WITH_XGBOOST
  return true;
#else
  return false;
#endif
}

std::span<const TechniqueEntry> technique_registry() {
  return kTechniques;
}

std::vector<std::string> technique_names() {
  std::vector<std::string> names;
  for (const TechniqueEntry& entry : technique_registry())
    if (entry.make) names.push_back(entry.name);
  return names;
}

std::unique_ptr<SearchTechnique> make_technique(const std::string& name) {
  for (const TechniqueEntry& entry : technique_registry()) {
    if (name != entry.name) continue;
    if (entry.make) return entry.make();
    MDH_INTERNAL_ASSERT(name == "model", "technique '" + name + "' has no factory in this build");
    throw UserError(
        "search technique 'model' needs XGBoost, and this mdh was built without it (Debian: apt-get install "
        "libxgboost-dev, then build again)");
  }
  std::string known;
  for (const std::string& n : technique_names()) known += (known.empty() ? "" : ", ") + n;
  throw UserError("unknown search technique '" + name + "' (known: " + known + ")");
}

}  // namespace mdh::tuner
