// Joining an mpirun job: the launch environment, the host's share of cores, the MPI session.
#include "pipeline/tune/tuning_ranks.h"

#include <string>

#include "pipeline/host_share.h"
#include "pipeline/tune.h"
#include "tuner/evaluate/mpi_launch.h"
#ifdef MDH_WITH_MPI
#include "tuner/evaluate/mpi_evaluators.h"
#else
namespace mdh::tuner {
class MpiSession {};  // never made in builds without MPI
}  // namespace mdh::tuner
#endif

namespace mdh {

bool writes_tuning_outputs() {
  const std::optional<tuner::MpiLaunch> launch = tuner::mpirun_launch();
  return !launch || launch->rank == 0;
}

TuningRanks::TuningRanks(TuningSettings& settings, bool rank0_evaluates) {
  const std::optional<tuner::MpiLaunch> launch = tuner::mpirun_launch();
  if (!launch) return;
  under_mpirun_ = true;
  if (!tuner::mpi_built_in())
    throw UserError(SourceLoc{},
                    "mdh tune was started by mpirun as one of " + std::to_string(launch->size) +
                        " ranks, but this mdh was built without MPI, so the ranks would be independent tuning runs "
                        "writing the same journal; install libopenmpi-dev and build again (cmake -DMDH_WITH_MPI=ON)");
  if (settings.in_process)
    throw UserError(SourceLoc{},
                    "--in-process cannot be used under mpirun: each rank evaluates in its worker processes");
#ifdef MDH_WITH_MPI
  const std::optional<std::string> pinned = keep_to_host_share(launch->local_rank, launch->local_size);
  mpi_ = std::make_unique<tuner::MpiSession>();
  settings.mpi = mpi_.get();
  settings.local_rank = launch->local_rank;
  // A rank held to its share of the host counts only its own cores for its compile threads.
  settings.processes_on_host = pinned ? 1 : launch->local_size;
  if (pinned && settings.note) settings.note(*pinned);
  if (auto bound = single_core_binding_note(launch->local_rank, launch->local_size); bound && settings.note)
    settings.note(*bound);
  settings.rank0_evaluates = rank0_evaluates;
  if (mpi_->rank() != 0) {
    quiet_ = true;
    settings.note = nullptr;
    settings.on_evaluation = nullptr;
    settings.interrupt = nullptr;
  }
#else
  (void)rank0_evaluates;
#endif
}

TuningRanks::~TuningRanks() = default;

std::optional<TuningOutcome> TuningRanks::tune(const TuningRequest& request, const TuningSettings& settings) {
  try {
    return tune_md_hom(request, settings);
  } catch (const UserError& e) {
#ifdef MDH_WITH_MPI
    if (mpi_) {
      mpi_->fail(e.what());
      if (mpi_->rank() != 0) return std::nullopt;
    }
#endif
    throw;
  }
}

}  // namespace mdh
