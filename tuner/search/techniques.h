// Constructors of the individual techniques; use make_technique(name) unless a tuned variant is needed.
#pragma once

#include <memory>
#include <vector>

#include "tuner/search/technique_registry.h"

namespace mdh::tuner {

/// Every configuration once, in index order (then again from the start).
std::unique_ptr<SearchTechnique> make_exhaustive();
/// Uniform samples of valid configurations, avoiding repeats while that is cheap.
std::unique_ptr<SearchTechnique> make_random_search();
/// Metropolis walk over one-parameter neighbourhoods with a cooling temperature and random restarts.
std::unique_ptr<SearchTechnique> make_simulated_annealing();
/// DE/rand/1/bin in the continuous coordinates of the parameters, snapped to the closest valid configuration.
std::unique_ptr<SearchTechnique> make_differential_evolution();
/// Torczon's multi-directional search (reflect, expand, contract a simplex) in parameter coordinates.
std::unique_ptr<SearchTechnique> make_pattern_search();
/// Particle swarm optimisation in parameter coordinates.
std::unique_ptr<SearchTechnique> make_particle_swarm();
/// Iterated local search: first-improvement hill climbing over the one-parameter changes of the current
/// configuration, from the best seed it observes, and a kick near it where every change has been tried.
std::unique_ptr<SearchTechnique> make_local_search();
/// Whether this build has the model-guided technique (it needs XGBoost: Debian libxgboost-dev).
bool model_guided_built_in();
/// Proposals by expected improvement under a cost model (boosted trees) fitted to every measurement, from random
/// configurations and the neighbourhoods of the best; `batch` proposals per fit. Requires model_guided_built_in().
std::unique_ptr<SearchTechnique> make_model_guided(size_t batch = 4);
/// OpenTuner's AUC bandit: each ask goes to the technique whose recent asks improved the best most often, plus an
/// exploration bonus. Owns its members.
std::unique_ptr<SearchTechnique> make_auc_bandit(std::vector<std::unique_ptr<SearchTechnique>> members);

}  // namespace mdh::tuner
