// An md_hom with as many dimensions as the language allows (mdh/messages.h: kMaxDimensions = 20) gets its tuning
// space in bounded memory: loop and buffer orders (20! each) are ranked, never listed. Before, the space listed
// every order: 4.7 GB at 10 dimensions, out of memory from 11 on.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "mdh/messages.h"
#include "pipeline/tuning_search_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

// `dims` dimensions of extent 2, the last `reductions` of them `+`: A[d0]..[d19] -> B[d0]..[d9].
std::string many_dimension_spec(size_t dims, size_t reductions) {
  std::ostringstream view, input_extents, input_index, output_extents, output_index, combine;
  for (size_t d = 0; d < dims; ++d) {
    const bool reduction = d >= dims - reductions;
    view << (d ? ", " : "") << 'd' << d << " < 2";
    input_extents << "[2]";
    input_index << "[d" << d << ']';
    combine << (d ? ", " : "") << (reduction ? "+" : "++");
    if (reduction) continue;
    output_extents << "[2]";
    output_index << "[d" << d << ']';
  }
  std::ostringstream spec;
  spec << "md_hom many\ninput A : float" << input_extents.str() << "\noutput B : float" << output_extents.str()
       << "\nview (" << view.str() << ") : A" << input_index.str() << " -> B" << output_index.str()
       << "\nscalar (a) = a\ncombine (" << combine.str() << ")\n";
  return spec.str();
}

const tuner::GroupTree& group_of(const tuner::SearchSpace& space, const std::string& parameter) {
  for (size_t g = 0; g < space.group_count(); ++g)
    for (size_t i : space.group_parameters(g))
      if (space.parameter(i).name() == parameter) return space.group(g);
  throw std::runtime_error("no parameter " + parameter);
}

// Run in a child process (EXPECT_EXIT): exits 0 once the space is built within 1 GiB of address space.
void build_under_memory_limit(const BoundMdh& bound) {
  const rlimit limit{rlim_t{1} << 30, rlim_t{1} << 30};
  setrlimit(RLIMIT_AS, &limit);
  const tuner::SearchSpace space = make_search_space(make_tuning_space(bound, testing::roomy_device_limits()), 2);
  std::cerr << "built " << space.group_count() << " groups\n";
  std::exit(0);
}

constexpr uint64_t kFactorial10 = 3628800, kFactorial20 = 2432902008176640000;

TEST(ManyDimensions, TheSpaceOfTwentyDimensionsIsBuiltUnderAMemoryLimit) {
  const size_t dims = msg::kMaxDimensions;
  const BoundMdh bound = testing::bind_spec_text(many_dimension_spec(dims, dims / 2), "many.mdh", "");
  // 1. In a child limited to 1 GiB of address space: listing the orders ran out of memory, ranking them does not.
  EXPECT_EXIT(build_under_memory_limit(bound), ::testing::ExitedWithCode(0), "built [0-9]+ groups");
  if (HasFailure()) return;  // do not run out of memory in the test process itself

  // 2. Exact sizes, and trees that hold no node per order.
  const TuningSpace space = make_tuning_space(bound, testing::roomy_device_limits());
  const tuner::SearchSpace search = make_search_space(space, 2);
  EXPECT_EQ(group_of(search, "LOOP_ORDER_G").leaf_count(), kFactorial10 * kFactorial10);  // `++` before `+`
  EXPECT_EQ(group_of(search, "LOOP_ORDER_L").leaf_count(), kFactorial20);
  // Pinned to the identity while MEM_INP is none: a constraint across groups, checked per configuration.
  EXPECT_EQ(group_of(search, "BUF_ORDER_L_A").leaf_count(), kFactorial20);
  size_t stored = 0;
  for (size_t g = 0; g < search.group_count(); ++g) stored += search.group(g).stored_nodes();
  EXPECT_LT(stored, 2000u);
  EXPECT_LT(search.memory_bytes(), size_t{1} << 20);

  // 3. The default configuration is a point of the space, and its neighbours are valid configurations.
  const KernelConfig config = default_config(bound, testing::roomy_device_limits());
  const auto point = point_of_config(search, bound, config);
  ASSERT_TRUE(point.has_value());
  EXPECT_EQ(kernel_config_of(bound, space, search.configuration(*point)).loop_order, config.loop_order);
  const std::vector<tuner::Point> neighbours = search.neighbours(*point);
  EXPECT_GT(neighbours.size(), 100u);
  EXPECT_LT(neighbours.size(), 10000u);  // orders move by one swap: at most 190 per order, not 20!
  for (size_t k = 0; k < neighbours.size(); k += 37)
    EXPECT_FALSE(first_violation(space, search.configuration(neighbours[k]).values()).has_value());
  EXPECT_EQ(search.closest(search.coordinates(*point)), *point);
}

// 20 `++` dimensions of extent 2: each dimension's OWNERSHIP constraint excludes half of the candidates. While
// OWNERSHIP was a group of its own, that constraint crossed groups, one uniform candidate in about 10^6 was valid
// and `mdh tune` gave up after 10^6 rejections (88 s); sampling blocks (tuner/space/sampling_blocks.h) tied the groups.
// OWNERSHIP is now in its dimension's tree (with STRIDED_RUN, which its constraints read too), so the trees hold
// only valid combinations and plain rejection samples without rejecting almost every candidate.
TEST(ManyDimensions, TwentyConcatDimensionsSampleValidConfigurations) {
  const BoundMdh bound = testing::bind_spec_text(many_dimension_spec(msg::kMaxDimensions, 0), "many.mdh", "");
  const TuningSpace space = make_tuning_space(bound, testing::roomy_device_limits());
  const tuner::SearchSpace search = make_search_space(space, 2);
  const tuner::SamplingBlocks& blocks = search.sampling_blocks();
  EXPECT_FALSE(blocks.active());
  EXPECT_GT(blocks.internal_fraction(), 0.01);
  tuner::Rng rng(1);
  for (int s = 0; s < 100; ++s) {
    const tuner::Point point = search.sample(rng);
    ASSERT_FALSE(first_violation(space, search.configuration(point).values()).has_value());
  }
  // Through the blocks a good share of draws is valid: the estimate rests on thousands of valid draws, not 0.
  const tuner::ValidSizeEstimate estimate = search.estimate_valid_size(2000, 1);
  EXPECT_GT(estimate.valid_samples, 200u);
}

// The default configuration of 16 or more `++` dimensions of extent 2 was invalid: a private tile of 2 per
// dimension left a work-item 2^14 or more partial results, past the 16 KiB of private memory, and `mdh generate`
// and `mdh tune` refused their own default. The outermost private tiles now shrink until it is valid.
TEST(ManyDimensions, TheDefaultConfigurationOfManyConcatDimensionsIsValid) {
  for (size_t dims : {size_t{16}, msg::kMaxDimensions}) {
    const BoundMdh bound = testing::bind_spec_text(many_dimension_spec(dims, 0), "many.mdh", "");
    KernelConfig config;
    ASSERT_NO_THROW(config = default_config(bound, testing::roomy_device_limits())) << dims << " dimensions";
    // Only as many private tiles shrink as needed: the innermost dimensions keep theirs.
    EXPECT_EQ(config.private_tile_size.front(), 1) << dims << " dimensions";
    EXPECT_EQ(config.private_tile_size[dims - 3], 2) << dims << " dimensions";
  }
}

// Spaces that sampled by plain rejection before sampling blocks existed keep doing so, so that their draws, and
// the journals recorded from them, stay the same: every app in apps/ at every size its experiments use.
TEST(ManyDimensions, AppsKeepPlainRejectionSampling) {
  const std::pair<const char*, const char*> cases[] = {
      {"apps/dot.mdh", "K=16777216"},
      {"apps/gaussian.mdh", "I=224,J=224"},
      {"apps/gemm.mdh", "I=10,J=500,K=64"},
      {"apps/gemm.mdh", "I=1024,J=1024,K=1024"},
      {"apps/gemm_nt.mdh", "I=128,J=128,K=128"},
      {"apps/gemv.mdh", "I=1000,K=2048"},
      {"apps/jacobi3d.mdh", "I=64,J=64,K=64"},
      {"apps/mcc.mdh", "N=1,P=7,Q=7,K=64,C=64,R=3,S=3"},
      {"apps/prl.mdh", "N=2048,M=1024"},
      {"apps/tc/abcdef-gdab-efgc.mdh", "A=12,B=8,C=8,D=8,E=12,F=8,G=12"},
      {"apps/tc/abcdef-gfbc-dega.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24"},
  };
  for (const DeviceLimits& limits : {testing::roomy_device_limits(), testing::h200_device_limits()})
    for (const auto& [app, sizes] : cases) {
      const BoundMdh bound = testing::bind_app(app, sizes);
      const tuner::SearchSpace search = make_search_space(make_tuning_space(bound, limits), 2);
      EXPECT_FALSE(search.sampling_blocks().active()) << app << " " << sizes;
      // With a margin: the contractions, the closest, satisfy their blocks' constraints 5x as often as the floor.
      EXPECT_GT(search.sampling_blocks().internal_fraction(), 4 * tuner::SamplingBlocks::kPlainRejectionFloor)
          << app << " " << sizes << " " << search.sampling_blocks().internal_fraction();
      // And uniform candidates are valid often enough under every constraint, the H200's whole warps included
      // (20,000 samples under the H200's limits: 0.72% valid for the gfbc-dega contraction, the fewest; Gaussian
      // 224^2 1.3%, 16x fewer than without the warp constraint).
      const tuner::ValidSizeEstimate estimate = search.estimate_valid_size(4000, 1);
      EXPECT_GT(static_cast<double>(estimate.valid_samples) / estimate.samples,
                4 * tuner::SamplingBlocks::kPlainRejectionFloor)
          << app << " " << sizes << " " << estimate.valid_samples << " of " << estimate.samples;
    }
}

}  // namespace
}  // namespace mdh
