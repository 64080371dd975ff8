// Which process searches, and the worker pools' options the settings give.
#include "pipeline/tune/tuning_settings.h"

#include <algorithm>

#ifdef MDH_WITH_MPI
#include "tuner/evaluate/mpi_evaluators.h"
#endif

namespace mdh {

bool TuningSettings::searches() const {
#ifdef MDH_WITH_MPI
  return mpi == nullptr || mpi->rank() == 0;
#else
  return true;
#endif
}

tuner::WorkerPoolOptions worker_pool_options(const TuningSettings& settings) {
  tuner::WorkerPoolOptions options;
  options.timeout_floor_seconds = settings.timeout_floor_seconds;
  if (settings.budget_seconds)
    options.initial_timeout_seconds =
        std::max(options.timeout_floor_seconds, std::min(options.initial_timeout_seconds, *settings.budget_seconds));
  return options;
}

}  // namespace mdh
