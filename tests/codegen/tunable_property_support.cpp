#include "tests/codegen/tunable_property_support.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "codegen/config_json.h"
#include "codegen/kernel_config.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "pipeline/tuning_search_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh::testing {

namespace {

const char* const kMaxReduction = R"(md_hom max1d
size   N
input  x : int[N]
output r : int[1]
view   (k < N) : x[k] -> r[0]
scalar (a) = a * 3 - 7
combine (max)
)";

const char* const kMinPlus = R"(md_hom minplus
size   I J K
input  A : float[I][K]
input  B : float[K][J]
output C : float[I][J]
view   (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]
scalar (a, b) = a + b
combine (++, ++, min)
)";

const char* const kContraction4 = R"(md_hom contraction4
size   A B C D
input  X : float[A][C][D]
input  Y : float[D][B][C]
output Z : float[A][B]
view   (a < A, b < B, c < C, d < D) : X[a][c][d], Y[d][b][c] -> Z[a][b]
scalar (x, y) = x * y
combine (++, ++, +, +)
)";

const char* const kStrided = R"(md_hom strided
size   I J R S
input  X : float[2*I+R][2*J+S]
output Y : float[I][J]
view   (i < I, j < J, r < R, s < S) : X[2*i + r][2*j + s] -> Y[i][j]
scalar (x) = x * (1 + r) - s
combine (++, ++, +, +)
)";

// 2x2 matrix product: associative, not commutative; a wrong operand order changes the result.
const char* const kMatrixChain = R"(md_hom matrix_chain
size   N M
type   mat2 { float a; float b; float c; float d; }
input  X : mat2[N][M]
output Y : mat2[N]
operator matmul(mat2 p, mat2 q) = (mat2){p.a*q.a + p.b*q.c, p.a*q.b + p.b*q.d, p.c*q.a + p.d*q.c, p.c*q.b + p.d*q.d} identity (mat2){1.0f, 0.0f, 0.0f, 1.0f}
view   (i < N, j < M) : X[i][j] -> Y[i]
scalar (x) = x
combine (++, matmul)
)";

// Storage types: buffers of half and bfloat16, float in every computation (docs/spec-language.md).
const char* const kGemmHalf = R"(md_hom gemm_half
size   I J K
input  A : half[I][K]
input  B : half[K][J]
output C : half[I][J]
view   (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]
scalar (a, b) = a * b
combine (++, ++, +)
)";

const char* const kGemmBfloat16 = R"(md_hom gemm_bfloat16
size   I J K
input  A : bfloat16[I][K]
input  B : bfloat16[K][J]
output C : float[I][J]
view   (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]
scalar (a, b) = a * b
combine (++, ++, +)
)";

// A long reduction into one bfloat16 value: the work-groups' partial results (float) and their combine.
const char* const kDotBfloat16 = R"(md_hom dot_bfloat16
size   K
input  x : bfloat16[K]
input  y : bfloat16[K]
output r : bfloat16[1]
view   (k < K) : x[k], y[k] -> r[0]
scalar (a, b) = a * b
combine (+)
)";

// A window over half elements, read from global memory or from caches of floats.
const char* const kStencilHalf = R"(md_hom stencil_half
size   I J
input  X : half[I+2][J+2]
output Y : half[I][J]
view   (i < I, j < J) : X[i + 0..2][j + 0..2] -> Y[i][j]
scalar (w) = 0.25f * (w(0, 1) + w(2, 1) + w(1, 0) + w(1, 2)) - w(1, 1)
combine (++, ++)
)";

std::string contraction_sizes(int a, int b, int c, int d, int e, int f, int g) {
  return "A=" + std::to_string(a) + ",B=" + std::to_string(b) + ",C=" + std::to_string(c) + ",D=" + std::to_string(d) +
         ",E=" + std::to_string(e) + ",F=" + std::to_string(f) + ",G=" + std::to_string(g);
}

uint64_t seed_from_environment(uint64_t fallback) {
  const char* s = std::getenv("MDH_TUNABLE_SEED");
  return s ? std::strtoull(s, nullptr, 10) : fallback;
}

// MDH_TUNABLE_SHARD=k/n runs only the configurations whose index is k modulo n, so that n processes share a soak
// run: each configuration comes from (seed, index) alone, so the union of the shards is the unsharded run.
struct Shard {
  int index = 0, count = 1;
};
Shard shard_from_environment() {
  Shard shard;
  if (const char* s = std::getenv("MDH_TUNABLE_SHARD")) {
    if (std::sscanf(s, "%d/%d", &shard.index, &shard.count) != 2 || shard.count < 1 || shard.index < 0 ||
        shard.index >= shard.count)
      throw std::runtime_error(std::string("MDH_TUNABLE_SHARD must be k/n with 0 <= k < n, not ") + s);
  }
  return shard;
}

}  // namespace

void PrintTo(const PropertyCase& c, std::ostream* out) {
  *out << c.file;  // the sizes would make ctest's list lines hundreds of characters long; failures name them
}

std::vector<PropertyCase> property_cases() {
  std::vector<PropertyCase> cases = {
      {"dot", "apps/dot.mdh", "", {"K=1", "K=13", "K=32"}},
      {"gemv", "apps/gemv.mdh", "", {"I=7,K=5", "I=1,K=11", "I=12,K=8"}},
      {"gemm", "apps/gemm.mdh", "", {"I=5,J=7,K=3", "I=2,J=11,K=9", "I=8,J=1,K=13"}},
      {"gemm_nt", "apps/gemm_nt.mdh", "", {"I=5,J=7,K=3", "I=11,J=4,K=6"}},
      {"gaussian", "apps/gaussian.mdh", "", {"I=7,J=5", "I=1,J=13", "I=9,J=8"}},
      {"jacobi3d", "apps/jacobi3d.mdh", "", {"I=3,J=5,K=7", "I=4,J=1,K=6"}},
      {"mcc", "apps/mcc.mdh", "", {"N=1,P=3,Q=2,K=5,C=3,R=2,S=3", "N=2,P=2,Q=3,K=2,C=2,R=3,S=1"}},
      {"prl", "apps/prl.mdh", "", {"N=5,M=7", "N=3,M=17", "N=8,M=1"}},
      {"max1d", "max1d.mdh", kMaxReduction, {"N=1", "N=17", "N=40"}},
      {"minplus", "minplus.mdh", kMinPlus, {"I=3,J=5,K=7", "I=6,J=2,K=11"}},
      {"contraction4", "contraction4.mdh", kContraction4, {"A=3,B=5,C=2,D=7", "A=2,B=2,C=5,D=3"}},
      {"strided", "strided.mdh", kStrided, {"I=3,J=5,R=2,S=3", "I=4,J=2,R=3,S=1"}},
      {"matrix_chain", "matrix_chain.mdh", kMatrixChain, {"N=3,M=7", "N=2,M=16", "N=5,M=1"}},
      {"gemm_half", "gemm_half.mdh", kGemmHalf, {"I=5,J=7,K=3", "I=8,J=11,K=13"}},
      {"dot_bfloat16", "dot_bfloat16.mdh", kDotBfloat16, {"K=1", "K=37", "K=64"}},
      {"stencil_half", "stencil_half.mdh", kStencilHalf, {"I=7,J=5", "I=3,J=13"}},
  };
  for (const char* tc :
       {"abcdef-gdab-efgc", "abcdef-gdac-efgb", "abcdef-gdbc-efga", "abcdef-geab-dfgc", "abcdef-geac-dfgb",
        "abcdef-gebc-dfga", "abcdef-gfab-degc", "abcdef-gfac-degb", "abcdef-gfbc-dega"}) {
    std::string name = std::string("tc_") + tc;
    for (char& ch : name)
      if (ch == '-') ch = '_';
    cases.push_back({name,
                     std::string("apps/tc/") + tc + ".mdh",
                     "",
                     {contraction_sizes(2, 3, 1, 2, 3, 2, 5), contraction_sizes(3, 1, 2, 2, 1, 3, 2)}});
  }
  return cases;
}

// C[b][i][j] = sum_k A[b][i][k] * B[b][k][j]: a batch dimension that both inputs read.
const char* const kBatchedGemm = R"(md_hom batched_gemm
size   N I J K
input  A : float[N][I][K]
input  B : float[N][K][J]
output C : float[N][I][J]
view   (n < N, i < I, j < J, k < K) : A[n][i][k], B[n][k][j] -> C[n][i][j]
scalar (x, y) = x * y
combine (++, ++, ++, +)
)";

std::vector<PropertyCase> tensor_core_property_cases() {
  const ComputePrecision tf32 = ComputePrecision::tf32;
  return {
      {"gemm", "apps/gemm.mdh", "", {"I=5,J=7,K=3", "I=32,J=16,K=16", "I=37,J=19,K=29"}, tf32},
      {"gemm_nt", "apps/gemm_nt.mdh", "", {"I=16,J=24,K=8", "I=21,J=9,K=13"}, tf32},
      {"batched_gemm", "batched_gemm.mdh", kBatchedGemm, {"N=3,I=17,J=10,K=9", "N=2,I=16,J=8,K=16"}, tf32},
      {"mcc", "apps/mcc.mdh", "", {"N=1,P=3,Q=5,K=9,C=3,R=2,S=3", "N=2,P=4,Q=4,K=8,C=2,R=2,S=2"}, tf32},
      {"contraction4", "contraction4.mdh", kContraction4, {"A=17,B=9,C=2,D=7", "A=16,B=8,C=4,D=2"}, tf32},
      {"gemm_half", "gemm_half.mdh", kGemmHalf, {"I=21,J=9,K=13", "I=32,J=16,K=40"}, tf32},
      {"gemm_bfloat16", "gemm_bfloat16.mdh", kGemmBfloat16, {"I=16,J=24,K=8", "I=37,J=19,K=29"}, tf32},
      {"tc_abcdef_gdab_efgc", "apps/tc/abcdef-gdab-efgc.mdh", "", {contraction_sizes(2, 3, 3, 2, 3, 2, 5)}, tf32},
      {"tc_abcdef_gfbc_dega", "apps/tc/abcdef-gfbc-dega.mdh", "", {contraction_sizes(3, 2, 2, 3, 2, 3, 9)}, tf32},
  };
}

void for_each_property_configuration(
    const PropertyCase& c, int configurations, uint64_t seed,
    const std::function<void(const BoundMdh& bound, size_t size_index, int index, const KernelConfig& config)>& visit) {
  seed = seed_from_environment(seed);
  const Shard shard = shard_from_environment();
  const DeviceLimits limits = first_device_limits();
  const std::string text = c.text.empty() ? read_source_file(c.file) : c.text;
  int drawn = 0;
  for (size_t s = 0; s < c.sizes.size(); ++s) {
    BoundMdh bound = bind_spec_text(text, c.file, c.sizes[s]);
    bound.precision = c.precision;
    // Every valid configuration must be right, not only those of the lattices the tuner searches by default:
    // `--full-ranges` and `mdh run --config` accept them all.
    TuningSpace space = make_tuning_space(bound, limits);
    space.full_ranges = true;
    // Uniform over the valid configurations of the whole ranges (the tuner's engine samples;
    // pipeline/tuning_search_space.h).
    const tuner::SearchSpace search = make_search_space(space, 1);
    const int here = (configurations - drawn) / static_cast<int>(c.sizes.size() - s);
    for (int k = 0; k < here; ++k, ++drawn) {
      // One generator per configuration, so that a failing one is reproduced from (seed, index) alone.
      if (drawn % shard.count != shard.index) continue;
      tuner::Rng rng(seed * 1'000'003 + static_cast<uint64_t>(drawn));
      visit(bound, s, drawn, config_from_assignment(bound, space, search.configuration(search.sample(rng)).values()));
    }
  }
}

void run_property_case(const PropertyCase& c, int configurations, uint64_t seed, const std::string& extra_build_options,
                       const PreambleOptions& kernel_options) {
  const DeviceLimits limits = first_device_limits();
  const uint64_t used_seed = seed_from_environment(seed);
  // Inputs and the reference's output per size binding, made when its first configuration comes.
  size_t prepared = c.sizes.size();
  std::map<std::string, Bytes> buffers;
  Bytes expected;
  for_each_property_configuration(
      c, configurations, seed, [&](const BoundMdh& bound, size_t s, int drawn, const KernelConfig& config) {
        if (prepared != s) {
          buffers = seeded_buffers(bound, used_seed + s);
          expected = reference_output(bound, buffers);
          prepared = s;
        }
        const std::string where = c.name + " sizes " + c.sizes[s] + ", seed " + std::to_string(used_seed) +
                                  " (MDH_TUNABLE_SEED), configuration #" + std::to_string(drawn) + ":\n  config " +
                                  config_to_json(bound, config).dump();
        // A crash of the device compiler or of a kernel leaves no failure message: MDH_TUNABLE_VERBOSE=1 names each
        // configuration before it runs.
        if (std::getenv("MDH_TUNABLE_VERBOSE")) std::cerr << where << std::endl;
        LaunchPlan plan;
        try {
          plan = generate_tunable_kernel(bound, config, limits, kernel_options);
        } catch (const std::exception& e) {
          ADD_FAILURE() << where << "\n  generation failed: " << e.what();
          return;
        }
        // MDH_TUNABLE_DUMP=PREFIX writes each kernel to PREFIX.<configuration index>.cl before it runs.
        if (const char* dump = std::getenv("MDH_TUNABLE_DUMP"))
          std::ofstream(std::string(dump) + "." + std::to_string(drawn) + ".cl") << plan.source;
        const RunResult run = run_plan_with_scratch(bound, plan, buffers, extra_build_options);
        if (!run.error.empty()) {
          ADD_FAILURE() << where << "\n  " << run.error;
          return;
        }
        if (auto why = compare_outputs(bound, expected, run.output)) ADD_FAILURE() << where << "\n  " << *why;
      });
}

}  // namespace mdh::testing
