// How this process was started: alone, or as one rank of an `mpirun` job (Open MPI's environment variables), and
// whether this build can take part in one. Reading the environment needs no MPI library, so a build without MPI can
// still refuse to run N independent copies of a tuning run that was meant to be one.
#pragma once

#include <optional>

namespace mdh::tuner {

struct MpiLaunch {
  int rank = 0;        // OMPI_COMM_WORLD_RANK
  int size = 1;        // OMPI_COMM_WORLD_SIZE
  int local_rank = 0;  // OMPI_COMM_WORLD_LOCAL_RANK: the rank among those on this host (picks the device)
  int local_size = 1;  // OMPI_COMM_WORLD_LOCAL_SIZE: the ranks on this host (they share its cores)
};

/// The launch when started by Open MPI's mpirun with more than one rank; nullopt otherwise.
std::optional<MpiLaunch> mpirun_launch();

/// Whether this build has MPI support (CMake option MDH_WITH_MPI).
bool mpi_built_in();

}  // namespace mdh::tuner
