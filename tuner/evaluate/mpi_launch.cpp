// Open MPI's launch environment, read without the MPI library.
#include "tuner/evaluate/mpi_launch.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace mdh::tuner {
namespace {

std::optional<int> environment_number(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<MpiLaunch> mpirun_launch() {
  const auto size = environment_number("OMPI_COMM_WORLD_SIZE");
  const auto rank = environment_number("OMPI_COMM_WORLD_RANK");
  if (!size || !rank || *size <= 1) return std::nullopt;
  return MpiLaunch{*rank, *size, environment_number("OMPI_COMM_WORLD_LOCAL_RANK").value_or(0),
                   std::max(1, environment_number("OMPI_COMM_WORLD_LOCAL_SIZE").value_or(1))};
}

bool mpi_built_in() {
#ifdef MDH_WITH_MPI
  return true;
#else
  return false;
#endif
}

}  // namespace mdh::tuner
