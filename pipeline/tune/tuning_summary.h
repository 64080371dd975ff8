// What `mdh tune` prints when the run ends: why it stopped, how many evaluations of which kind at what rate, and
// where the time went (evaluating, waiting for compiles, the compiles' spread, an evaluation's stages, worker
// start-ups), which says what limits the rate.
#pragma once

#include <map>
#include <ostream>

#include "pipeline/tune/tuning_settings.h"

namespace mdh {

/// `under_mpirun`: the ranks compile what they evaluate; `rank_compile_seconds`: each evaluating rank's compile
/// seconds (from the records' measured_on), which say how many compiles it kept in flight.
void print_tuning_summary(std::ostream& out, const TuningOutcome& outcome, bool under_mpirun,
                          const std::map<int, double>& rank_compile_seconds);

}  // namespace mdh
