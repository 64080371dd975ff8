// Benchmark: size, generation time and peak memory of search spaces that ATF users know, and of mdh's own.
// Each case runs in a forked child so that its peak resident memory (wait4's ru_maxrss) is its own.
// Columns: candidates = the trees' product (exact); valid = exact, or estimated from 20,000 uniform candidates with
// a 95% interval when global constraints leave too many candidates to count; groups = trees + global constraints;
// est. s = time of that estimate; sample us = mean time of one uniform valid sample (rejection included).
//   space_generation                 all cases (Xgemm for M = 32, 64, 128, 1024; mdh GEMM 1024^3 and a 7-D
//                                    tensor contraction as the tuner gets them from codegen; a synthetic 7-D space)
//   space_generation xgemm 256 ...   Xgemm only, for the given M
//   space_generation mdh             the mdh spaces only, also for a device with warps of 32, without and with
//                                    the default space's whole-warp constraint (DeviceLimits::warp_size)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "tuner/space/search_space.h"
#ifdef MDH_SPACE_GENERATION_WITH_MDH
#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "mdh/parser.h"
#include "pipeline/tuning_search_space.h"
#endif

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
  p.push_back(
      Parameter::integer("VWM", Range::set({1, 2, 4, 8})).constrain({"MWG", "MDIMC", "MDIMA"}, [](int64_t v, Reads r) {
        return (r[0] / r[1]) % v == 0 && (r[0] / r[2]) % v == 0;
      }));
  p.push_back(
      Parameter::integer("VWN", Range::set({1, 2, 4, 8})).constrain({"NWG", "NDIMC", "NDIMB"}, [](int64_t v, Reads r) {
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
    p.push_back(Parameter::integer("LOCAL_TILE_" + D, Range::interval(1, n))
                    .constrain({"NUM_WG_" + D}, [n](int64_t v, Reads r) {
                      return v * r[0] <= n + r[0] - 1;  // tile <= ceil(extent / work-groups)
                    }));
    p.push_back(Parameter::integer("PRIVATE_TILE_" + D, Range::interval(1, n))
                    .constrain({"LOCAL_TILE_" + D}, [](int64_t v, Reads r) { return v <= r[0]; }));
  }
  return p;
}

// What one case reports; a child process measures it so that its peak resident memory is its own.
struct CaseResult {
  char candidates[64] = "";
  char valid[160] = "";  // exact count, or estimate [95% interval]
  size_t groups = 0, global_constraints = 0;
  double seconds = 0, tree_mb = 0, estimate_seconds = 0, sample_us = 0;
};

void run_case(const std::string& label, const std::function<tuner::SearchSpace()>& generate) {
  std::fflush(stdout);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return;
  pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    CaseResult r;
    auto start = std::chrono::steady_clock::now();
    tuner::SearchSpace space = generate();
    auto since = [](auto t) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); };
    r.seconds = since(start);
    r.groups = space.group_count();
    r.global_constraints = space.global_constraints().size();
    r.tree_mb = static_cast<double>(space.memory_bytes()) / 1e6;
    std::snprintf(r.candidates, sizeof r.candidates, "%s", tuner::to_grouped_decimal(space.size()).c_str());
    if (space.known_valid_size()) {
      std::snprintf(r.valid, sizeof r.valid, "%s", tuner::to_grouped_decimal(*space.known_valid_size()).c_str());
    } else {
      start = std::chrono::steady_clock::now();
      tuner::ValidSizeEstimate e = space.estimate_valid_size(20000, 1);
      r.estimate_seconds = since(start);
      std::snprintf(r.valid, sizeof r.valid, "~%.3g [%.3g, %.3g]", e.valid, e.low, e.high);
    }
    // Uniform valid samples as techniques draw them (rejection of invalid candidates included).
    tuner::Rng rng(1);
    start = std::chrono::steady_clock::now();
    const int samples = 200;
    for (int k = 0; k < samples; ++k) space.sample(rng);
    r.sample_us = since(start) / samples * 1e6;
    if (write(pipe_fds[1], &r, sizeof r) != static_cast<ssize_t>(sizeof r)) _exit(1);
    _exit(0);
  }
  close(pipe_fds[1]);
  CaseResult r;
  const ssize_t got = read(pipe_fds[0], &r, sizeof r);
  close(pipe_fds[0]);
  int status = 0;
  struct rusage usage {};
  wait4(child, &status, 0, &usage);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != static_cast<ssize_t>(sizeof r)) {
    std::printf("%-30s failed (status %d)\n", label.c_str(), status);
    return;
  }
  std::printf("%-30s %22s %32s %4zu+%-2zu %8.3f %8.1f %8.1f %8.3f %9.1f\n", label.c_str(), r.candidates, r.valid,
              r.groups, r.global_constraints, r.seconds, r.tree_mb, usage.ru_maxrss / 1024.0, r.estimate_seconds,
              r.sample_us);
}

#ifdef MDH_SPACE_GENERATION_WITH_MDH
// The real mdh tuning space (codegen/tuning_space.h) of a spec at the given sizes, for the device limits of
// ISSUE4.md, as the tuner sees it (pipeline/tuning_search_space.h: cross-group constraints become global constraints).
// With `warp` > 1, as on a device with warps of that size: the work-item lattices hold its multiples
// (DeviceLimits::simd_width) and, with `whole_warps`, the default space only work-groups of whole warps.
tuner::SearchSpace mdh_space(const std::string& spec, const std::string& sizes, uint64_t warp = 1,
                             bool whole_warps = false) {
  // The space's memory constraints read the bound md_hom (codegen/families/family_support.cpp keeps a pointer to it),
  // so it must outlive the space: every case ran into freed memory (SIGSEGV) while it was a local here.
  static std::deque<mdh::BoundMdh> bounds;
  const mdh::BoundMdh& bound = bounds.emplace_back(
      mdh::bind(mdh::parse_spec_file(std::string(MDH_SOURCE_DIR) + "/" + spec), mdh::parse_size_binding(sizes)));
  mdh::DeviceLimits limits;
  limits.max_work_group_size = 1024;
  limits.max_work_item_sizes = {1024, 1024, 64};
  limits.local_mem_bytes = 49152;
  limits.simd_width = warp;
  limits.warp_size = whole_warps ? warp : 1;
  return mdh::make_search_space(mdh::make_tuning_space(bound, limits));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {32, 64, 128, 1024};
  const bool xgemm_only = argc > 1 && std::strcmp(argv[1], "xgemm") == 0;
  const bool mdh_only = argc > 1 && std::strcmp(argv[1], "mdh") == 0;
  if (xgemm_only && argc > 2) {
    sizes.clear();
    for (int i = 2; i < argc; ++i) sizes.push_back(std::stoll(argv[i]));
  }
  std::printf("%-30s %22s %32s %7s %8s %8s %8s %8s %9s\n", "space", "candidates", "valid configurations", "groups",
              "seconds", "tree MB", "peak MB", "est. s", "sample us");
  for (int64_t M : mdh_only ? std::vector<int64_t>{} : sizes) {
    run_case("xgemm M=" + std::to_string(M), [M] { return tuner::SearchSpace(xgemm_space(M, false)); });
    run_case("xgemm M=" + std::to_string(M) + " (one group)", [M] { return tuner::SearchSpace(xgemm_space(M, true)); });
  }
  if (xgemm_only) return 0;
#ifdef MDH_SPACE_GENERATION_WITH_MDH
  run_case("mdh gemm 1024^3", [] { return mdh_space("apps/gemm.mdh", "I=1024,J=1024,K=1024"); });
  for (const char* sizes : {"I=1024,J=1024,K=1024", "I=96,J=80,K=64"}) {
    const std::string label = std::string("mdh gemm ") + (sizes[2] == '1' ? "1024^3" : "96x80x64");
    if (sizes[2] != '1') run_case(label, [=] { return mdh_space("apps/gemm.mdh", sizes); });
    run_case(label + ", warp 32", [=] { return mdh_space("apps/gemm.mdh", sizes, 32); });
    run_case(label + ", whole warps", [=] { return mdh_space("apps/gemm.mdh", sizes, 32, true); });
  }
  run_case("mdh tc abcdef-gdab-efgc",
           [] { return mdh_space("apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24"); });
#endif
  if (mdh_only) return 0;
  run_case("7-D contraction (synthetic)", [] { return tuner::SearchSpace(contraction_space()); });
  return 0;
}
