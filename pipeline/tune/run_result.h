// The end of a tuning run: the final timing's choice (where it made one) becomes the best configuration, written as
// the result file `mdh tune --out` saves.
#pragma once

#include <string>

#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tune/tuning_target.h"
#include "tuner/abort.h"
#include "tuner/space/search_space.h"

namespace mdh {

/// Sets outcome.best and outcome.result_file where the run found a valid configuration; leaves them empty otherwise.
void record_result(TuningOutcome& outcome, const TuningTarget& target, const tuner::SearchSpace& search_space,
                   const std::string& technique, const TuningSettings& settings, const tuner::Abort& abort);

}  // namespace mdh
