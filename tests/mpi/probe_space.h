// The search space of the MPI probes (rank_pipeline_probe, seed_marks_probe): three integers of 1..1000, large
// enough that the random search never proposes a configuration twice in a run.
#pragma once

#include "tuner/space/search_space.h"

namespace mdh::testing {

inline tuner::SearchSpace probe_space() {
  std::vector<tuner::Parameter> parameters;
  for (const char* name : {"A", "B", "C"})
    parameters.push_back(tuner::Parameter::integer(name, tuner::Range::interval(1, 1000)));
  return tuner::SearchSpace(std::move(parameters));
}

}  // namespace mdh::testing
