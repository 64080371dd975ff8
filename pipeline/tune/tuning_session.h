// One `mdh tune` process from its parsed options to its exit status: under mpirun one rank of the run
// (tuning_ranks.h), progress on stderr, SIGINT, SIGTERM and SIGHUP ending the run early with the best so far, the run
// (pipeline/tune.h), where its time went, and the result file.
#pragma once

#include <functional>
#include <string>

#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tuning_progress.h"
#include "pipeline/tuning_request.h"

namespace mdh {

struct TuningSessionOptions {
  std::string out_path;  // where the result file goes
  /// Writes a file (the result; "-": stdout).
  std::function<void(const std::string& path, const std::string& text)> write_text;
  TuningHorizon horizon;        // what the progress line counts towards
  bool rank0_evaluates = true;  // under mpirun (TuningSettings::rank0_evaluates)
};

/// Returns the exit status: 0 with a result (or as a rank other than 0), 1 where no configuration was valid.
int run_tuning_session(const TuningRequest& request, TuningSettings settings, const TuningSessionOptions& session);

}  // namespace mdh
