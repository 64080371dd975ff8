// Tuning one md_hom for one device and size binding: the tuning request -> space -> search with the tuner,
// evaluating in worker processes (or in this process) -> the best configuration as a result file.
// The stages are in pipeline/tune/; this header also gives their parts that callers use.
#pragma once

#include "pipeline/tune/compile_ahead.h"    // default_compile_threads
#include "pipeline/tune/tuning_journal.h"   // spec_hash, check_journal_resumable, kSpillingCandidatesKey
#include "pipeline/tune/tuning_settings.h"  // TuningSettings, TuningOutcome
#include "pipeline/tune/tuning_worker.h"    // serve_tuning_worker
#include "pipeline/tuning_request.h"

namespace mdh {

TuningOutcome tune_md_hom(const TuningRequest& request, const TuningSettings& settings);

}  // namespace mdh
