// The journal of a tuning run: what its header records (spec, sizes, device, generator, seeds), when a recorded
// journal may be resumed, and the technique a resumed run continues with.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/tune/tuning_seeds.h"
#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tune/tuning_target.h"
#include "tuner/tuner.h"

namespace mdh {

/// The journal header's record, on NVIDIA's driver only, of what the run does with candidates that ptxas reports
/// spilling: "rejected" (the default) or "timed" (--allow-spills). A journal resumes only with the same.
inline constexpr const char* kSpillingCandidatesKey = "spilling_candidates";

/// FNV-1a of the spec file's bytes, as journals and results record it.
std::string spec_hash(const std::string& spec_path);

/// Throws UserError when the journal at `path` may not be resumed with this run's metadata (see
/// TuningSettings::resume); does nothing when there is no such file.
void check_journal_resumable(const std::string& path, const nlohmann::json& metadata);

/// The technique settings.technique names, else the one a resumed journal was recorded with (its header names the
/// technique as the tuner ran it: "<name>+seeded" where seeds came first), else the default. Only the searching
/// process reads the journal; an evaluating rank under mpirun never asks its technique.
std::string technique_of_run(const TuningSettings& settings);

/// The tuner's options for the run: seed, journal (its header's metadata, checked where the run resumes one),
/// interrupt, the caller's on_evaluation, and as many leaders as the final timing takes.
tuner::TunerOptions journal_options(const TuningTarget& target, const TuningSeeds& seeds,
                                    const TuningSettings& settings);

}  // namespace mdh
