// The technique registry.
#include "tuner/technique.h"

#include "support/error.h"
#include "tuner/techniques.h"

namespace mdh::tuner {

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool model_guided_built_in() {
#ifdef MDH_WITH_XGBOOST
  return true;
#else
  return false;
#endif
}

std::vector<std::string> technique_names() {
  std::vector<std::string> names = {"local",          "auc_bandit",    "exhaustive",
                                    "random",         "annealing",     "differential_evolution",
                                    "pattern_search", "particle_swarm"};
  if (model_guided_built_in()) names.push_back("model");
  return names;
}

std::unique_ptr<SearchTechnique> make_technique(const std::string& name) {
  if (name == "auc_bandit") {
    // The guided techniques only: pure random search never won a share worth its asks in tuning_quality.
    // Particle swarm first, as it is the strongest single member early on (it gets the first asks).
    std::vector<std::unique_ptr<SearchTechnique>> members;
    members.push_back(make_particle_swarm());
    members.push_back(make_differential_evolution());
    members.push_back(make_simulated_annealing());
    members.push_back(make_pattern_search());
    return make_auc_bandit(std::move(members));
  }
  if (name == "exhaustive") return make_exhaustive();
  if (name == "random") return make_random_search();
  if (name == "annealing") return make_simulated_annealing();
  if (name == "differential_evolution") return make_differential_evolution();
  if (name == "pattern_search") return make_pattern_search();
  if (name == "particle_swarm") return make_particle_swarm();
  if (name == "local") return make_local_search();
  if (name == "model") {
#ifdef MDH_WITH_XGBOOST
    return make_model_guided();
#else
    throw UserError(
        "search technique 'model' needs XGBoost, and this mdh was built without it (Debian: apt-get install "
        "libxgboost-dev, then build again)");
#endif
  }
  std::string known;
  for (const std::string& n : technique_names()) known += (known.empty() ? "" : ", ") + n;
  throw UserError("unknown search technique '" + name + "' (known: " + known + ")");
}

}  // namespace mdh::tuner
