// Parallel compilation: upcoming configurations are built ahead into the binary cache while the device runs the
// current one, and the evaluating process loads them instead of compiling. In compile worker processes (killed at
// the run's compile deadline, when the run ends or is interrupted), or with --in-process on threads of this process.
#pragma once

#include <memory>

#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tune/tuning_target.h"
#include "pipeline/tune/tuning_workspace.h"
#include "tuner/evaluate/compile_deadline.h"
#include "tuner/evaluate/evaluation.h"

namespace mdh {

/// Compile workers for one tuning process when the user names none: one per core this process may run on (its CPU
/// affinity, so `taskset` and batch systems' core sets count), shared among the `processes_on_host` tuning processes
/// of one host (the mpirun ranks there), at least one. Where the device is these cores (a CPU through PoCL) the timed
/// kernels compete with the compiles for them: one per two cores there (docs/decisions.md).
unsigned default_compile_threads(unsigned processes_on_host = 1, bool device_on_these_cores = false);

/// The compile threads of the run: TuningSettings::compile_threads, else default_compile_threads.
unsigned compile_threads_of_run(const TuningSettings& settings, const DeviceLimits& limits);

/// What builds one configuration ahead; empty where compile_threads is 0. `seeds` keep the first build's deadline.
tuner::Prepare compile_ahead(const TuningTarget& target, const TuningWorkspace& workspace,
                             const TuningSettings& settings, unsigned compile_threads,
                             std::shared_ptr<const tuner::SeedConfigurations> seeds);

}  // namespace mdh
