// Benchmark: exact size, generation time and peak memory of search spaces that ATF users know.
// Each case runs in a forked child so that its peak resident memory (wait4's ru_maxrss) is its own.
//   space_generation                 all cases (Xgemm for M = 32, 64, 128, 1024; mdh GEMM stand-in; 7-D contraction)
//   space_generation xgemm 256 ...   Xgemm only, for the given M
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tuner/search_space.h"

namespace tuner = mdh::tuner;
using tuner::Parameter;
using tuner::Range;
using Reads = std::span<const int64_t>;

namespace {

// The CLBlast Xgemm space as ATF's OpenCL SGEMM example declares it (M = N = K), with the device limits of
// ISSUE4.md: max work-group size 1024, max work-item sizes (1024, 1024, 64), 48 KiB local memory.
// With `one_group`, STRM and STRN (which no constraint touches) are tied into the big group by a trivially true
// constraint, as ATF has to keep all 14 parameters in one tree; otherwise group detection separates them.
std::vector<Parameter> xgemm_space(int64_t M, bool one_group) {
  const int64_t N = M, K = M;
  const int64_t max_wg = 1024, local_bytes = 49152;
  std::vector<Parameter> p;
  p.push_back(Parameter::integer("MWG", Range::interval(1, M)).constrain([M](int64_t v) { return M % v == 0; }));
  p.push_back(Parameter::integer("NWG", Range::interval(1, N)).constrain([N](int64_t v) { return N % v == 0; }));
  p.push_back(Parameter::integer("KWG", Range::interval(1, K)).constrain([K](int64_t v) { return K % v == 0; }));
  p.push_back(Parameter::integer("MDIMC", Range::interval(1, M)).constrain({"MWG"}, [=](int64_t v, Reads r) {
    return r[0] % v == 0 && v <= max_wg;
  }));
  p.push_back(Parameter::integer("NDIMC", Range::interval(1, N)).constrain({"NWG", "MDIMC"}, [=](int64_t v, Reads r) {
    return r[0] % v == 0 && v <= max_wg && r[1] * v <= max_wg;
  }));
  p.push_back(Parameter::integer("MDIMA", Range::interval(1, M))
                  .constrain({"MWG", "MDIMC", "NDIMC", "KWG"}, [](int64_t v, Reads r) {
                    int64_t threads = r[1] * r[2];
                    return r[0] % v == 0 && threads % v == 0 && r[3] % (threads / v) == 0;
                  }));
  p.push_back(Parameter::integer("NDIMB", Range::interval(1, N))
                  .constrain({"NWG", "MDIMC", "NDIMC", "KWG"}, [](int64_t v, Reads r) {
                    int64_t threads = r[1] * r[2];
                    return r[0] % v == 0 && threads % v == 0 && r[3] % (threads / v) == 0;
                  }));
  p.push_back(Parameter::integer("KWI", Range::interval(1, K)).constrain({"KWG"}, [](int64_t v, Reads r) {
    return r[0] % v == 0;
  }));
  p.push_back(Parameter::integer("VWM", Range::set({1, 2, 4, 8})).constrain({"MWG", "MDIMC", "MDIMA"}, [](int64_t v, Reads r) {
    return (r[0] / r[1]) % v == 0 && (r[0] / r[2]) % v == 0;
  }));
  p.push_back(Parameter::integer("VWN", Range::set({1, 2, 4, 8})).constrain({"NWG", "NDIMC", "NDIMB"}, [](int64_t v, Reads r) {
    return (r[0] / r[1]) % v == 0 && (r[0] / r[2]) % v == 0;
  }));
  p.push_back(Parameter::boolean("STRM"));
  p.push_back(Parameter::boolean("STRN"));
  if (one_group) {
    p[10].constrain({"MWG"}, [](int64_t, Reads) { return true; });
    p[11].constrain({"MWG"}, [](int64_t, Reads) { return true; });
  }
  p.push_back(Parameter::boolean("SA"));
  p.push_back(Parameter::boolean("SB").constrain({"SA", "KWG", "MWG", "VWM", "NWG", "VWN"}, [=](int64_t sb, Reads r) {
    return (r[0] * r[1] * r[2] / r[3] + sb * r[1] * r[4] / r[5]) * 4 <= local_bytes;
  }));
  return p;
}

// Stand-in for the mdh GEMM space at I = J = K = 1024 until the tunable kernel defines it: per dimension the number
// of work-groups, a local tile dividing the work-group's share and a private tile dividing the local tile; the
// work-items of all three dimensions share one work-group (<= 1024), and local-memory caching flags per input.
std::vector<Parameter> mdh_gemm_space(int64_t extent) {
  std::vector<Parameter> p;
  const char* dims[] = {"I", "J", "K"};
  for (const char* d : dims) {
    std::string D = d;
    p.push_back(Parameter::integer("NUM_WI_" + D, Range::powers_of_two(1, 1024)));
  }
  p[1].constrain({"NUM_WI_I"}, [](int64_t v, Reads r) { return r[0] * v <= 1024; });
  p[2].constrain({"NUM_WI_I", "NUM_WI_J"}, [](int64_t v, Reads r) { return r[0] * r[1] * v <= 1024; });
  for (const char* d : dims) {
    std::string D = d;
    p.push_back(Parameter::integer("NUM_WG_" + D, Range::powers_of_two(1, extent)));
    p.push_back(Parameter::integer("LOCAL_TILE_" + D, Range::interval(1, extent))
                    .constrain({"NUM_WG_" + D}, [extent](int64_t v, Reads r) { return (extent / r[0]) % v == 0; }));
    p.push_back(Parameter::integer("PRIVATE_TILE_" + D, Range::interval(1, extent))
                    .constrain({"LOCAL_TILE_" + D}, [](int64_t v, Reads r) { return r[0] % v == 0; }));
  }
  p.push_back(Parameter::boolean("CACHE_A_LOCAL"));
  p.push_back(Parameter::boolean("CACHE_B_LOCAL"));
  p.push_back(Parameter::boolean("CACHE_C_PRIVATE"));
  return p;
}

// A 7-D tensor contraction (extents not powers of two) with divisibility-free constraints: per dimension the
// number of work-groups, a local tile no larger than a work-group's share and a private tile no larger than the
// local tile; work-items per dimension bounded by the extent, all of them together at most 1024.
std::vector<Parameter> contraction_space() {
  const int64_t extents[7] = {24, 16, 40, 12, 20, 24, 36};
  std::vector<Parameter> p;
  std::vector<std::string> earlier_wi;
  for (int d = 0; d < 7; ++d) {
    std::string name = "NUM_WI_" + std::to_string(d);
    Parameter wi = Parameter::integer(name, Range::interval(1, extents[d]));
    if (!earlier_wi.empty())
      wi.constrain(earlier_wi, [](int64_t v, Reads r) {
        int64_t product = v;
        for (int64_t x : r) product *= x;
        return product <= 1024;
      });
    earlier_wi.push_back(name);
    p.push_back(std::move(wi));
  }
  for (int d = 0; d < 7; ++d) {
    const int64_t n = extents[d];
    std::string D = std::to_string(d);
    p.push_back(Parameter::integer("NUM_WG_" + D, Range::interval(1, n)));
    p.push_back(Parameter::integer("LOCAL_TILE_" + D, Range::interval(1, n)).constrain({"NUM_WG_" + D}, [n](int64_t v, Reads r) {
      return v * r[0] <= n + r[0] - 1;  // tile <= ceil(extent / work-groups)
    }));
    p.push_back(Parameter::integer("PRIVATE_TILE_" + D, Range::interval(1, n)).constrain({"LOCAL_TILE_" + D}, [](int64_t v, Reads r) {
      return v <= r[0];
    }));
  }
  return p;
}

void run_case(const std::string& label, const std::function<std::vector<Parameter>()>& declare) {
  std::fflush(stdout);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return;
  pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    auto start = std::chrono::steady_clock::now();
    tuner::SearchSpace space(declare());
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char line[512];
    int n = std::snprintf(line, sizeof line, "%s\t%zu\t%.3f\t%.1f", space.size().to_grouped_decimal().c_str(),
                          space.group_count(), seconds, space.memory_bytes() / 1e6);
    if (write(pipe_fds[1], line, static_cast<size_t>(n)) != n) _exit(1);
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string result;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) result.append(buffer, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  struct rusage usage {};
  wait4(child, &status, 0, &usage);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || result.empty()) {
    std::printf("%-34s failed (status %d)\n", label.c_str(), status);
    return;
  }
  char size[128];
  size_t groups = 0;
  double seconds = 0, tree_mb = 0;
  std::sscanf(result.c_str(), "%127[^\t]\t%zu\t%lf\t%lf", size, &groups, &seconds, &tree_mb);
  std::printf("%-34s %24s %7zu %9.3f %10.1f %10.1f\n", label.c_str(), size, groups, seconds, tree_mb,
              usage.ru_maxrss / 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {32, 64, 128, 1024};
  bool xgemm_only = argc > 1 && std::strcmp(argv[1], "xgemm") == 0;
  if (xgemm_only && argc > 2) {
    sizes.clear();
    for (int i = 2; i < argc; ++i) sizes.push_back(std::stoll(argv[i]));
  }
  std::printf("%-34s %24s %7s %9s %10s %10s\n", "space", "configurations", "groups", "seconds", "tree MB", "peak MB");
  for (int64_t M : sizes) {
    run_case("xgemm M=" + std::to_string(M), [M] { return xgemm_space(M, false); });
    run_case("xgemm M=" + std::to_string(M) + " (one group)", [M] { return xgemm_space(M, true); });
  }
  if (xgemm_only) return 0;
  run_case("mdh gemm stand-in 1024^3", [] { return mdh_gemm_space(1024); });
  run_case("7-D contraction", [] { return contraction_space(); });
  return 0;
}
