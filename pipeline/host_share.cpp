#include "pipeline/host_share.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace mdh {

std::vector<int> host_share(const std::vector<int>& allowed, int local_rank, unsigned processes) {
  const size_t n = allowed.size(), p = processes;
  if (p == 0 || n < p || local_rank < 0 || static_cast<size_t>(local_rank) >= p) return {};
  const size_t k = static_cast<size_t>(local_rank), base = n / p, extra = n % p;
  const size_t begin = k * base + std::min(k, extra), size = base + (k < extra ? 1 : 0);
  return {allowed.begin() + static_cast<std::ptrdiff_t>(begin),
          allowed.begin() + static_cast<std::ptrdiff_t>(begin + size)};
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string text;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(cpus[i]);
    if (j > i) {
      text += '-';
      text += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return text;
}

namespace {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> allowed;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return allowed;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
  return allowed;
}

}  // namespace

std::optional<std::string> single_core_binding_note(int local_rank, unsigned processes_on_host) {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  const std::vector<int> allowed = allowed_cpus();
  if (allowed.size() != 1 || online <= static_cast<long>(std::max(1u, processes_on_host))) return std::nullopt;
  return "rank on host " + std::to_string(local_rank) + " of " + std::to_string(processes_on_host) +
         " may run on core " + std::to_string(allowed[0]) + " only, of the host's " + std::to_string(online) +
         ": mpirun bound it (Open MPI binds each rank to a core when there are at most two), and its compile "
         "workers and worker processes share that core; start mpirun with --bind-to none";
}

std::optional<std::string> keep_to_host_share(int local_rank, unsigned processes_on_host) {
  if (processes_on_host < 2) return std::nullopt;
  const std::vector<int> allowed = allowed_cpus();
  // Bound already (by mpirun, taskset or a batch system): the binding is the user's choice.
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (online <= 0 || allowed.size() != static_cast<size_t>(online)) return std::nullopt;
  const std::vector<int> share = host_share(allowed, local_rank, processes_on_host);
  if (share.empty()) return std::nullopt;  // fewer cores than ranks (an oversubscribed test run): nothing to share
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : share) CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0) return std::nullopt;
  return "rank on host " + std::to_string(local_rank) + " of " + std::to_string(processes_on_host) +
         " keeps to cores " + cpu_list_text(share) + " (mpirun left the ranks unbound)";
}

}  // namespace mdh
