// The tunable kernel's tuning space (codegen/tuning_space.h) as the generic tuner's search space (tuner/): the one
// place where the two meet. tuner/ knows nothing about MDH; codegen/ knows nothing about the tuner.
#pragma once

#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "tuner/space/configuration.h"
#include "tuner/space/search_space.h"

namespace mdh {

/// One tuner parameter per TuningParameter, with the same names, order and value encodings: integers searched over
/// search_values (the families' lattices), enumerations by name (reading the old ordinals too), loop orders as lists
/// of dimension names, cache orders as lists of positions. Each constraint within one parameter group is attached
/// to the last parameter it reads; the others are checked per configuration (tuner::GlobalConstraint). A tuner
/// configuration's JSON form is therefore the config JSON form (codegen/kernel_config.h) without its version key.
tuner::SearchSpace make_search_space(const TuningSpace& space, unsigned threads = 0);

/// A tuner configuration of make_search_space(space) as the kernel's typed configuration.
KernelConfig kernel_config_of(const BoundMdh& bound, const TuningSpace& space,
                              const tuner::Configuration& configuration);

/// The tuner's point of a typed configuration; nullopt when the configuration is outside the searched values (a
/// size off the lattice, a --restrict) or invalid.
std::optional<tuner::Point> point_of_config(const tuner::SearchSpace& search_space, const BoundMdh& bound,
                                            const KernelConfig& config);

}  // namespace mdh
