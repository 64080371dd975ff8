// The cores of a host shared by the mpirun ranks on it: each rank's process, and with it its compile threads and
// worker processes, keeps to a share of its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mdh {

/// The local_rank-th of `processes` contiguous, near-equal shares of `allowed` (CPU numbers, ascending): the first
/// `allowed.size() % processes` shares have one core more. Empty where there are fewer cores than processes (they
/// could not each have one) or local_rank is not one of them.
std::vector<int> host_share(const std::vector<int>& allowed, int local_rank, unsigned processes);

/// Under mpirun with several ranks on a host that left them unbound (`--bind-to none`: each may run on every online
/// core), this rank's process keeps to its host_share, and so do the threads and processes it starts afterwards.
/// Unpinned, the ranks' compile workers and evaluating workers move between all the host's cores and compile more
/// slowly than runs held to shares of their own (docs/decisions.md). A rank whose affinity is already narrower than the
/// host (mpirun's own --bind-to or --map-by PE=, taskset, a batch system's core set) is left as it is. Returns what it
/// did, for the run's notes, or nullopt.
std::optional<std::string> keep_to_host_share(int local_rank, unsigned processes_on_host);

/// A rank that mpirun bound to a single core while its host has more cores than ranks (Open MPI's default with at most
/// two ranks): its compile workers and worker processes would all share that core. What to tell the user, or nullopt.
std::optional<std::string> single_core_binding_note(int local_rank, unsigned processes_on_host);

/// "0-15", "0-3,8,10-11": a CPU list as taskset and /proc show it.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace mdh
