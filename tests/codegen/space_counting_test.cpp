// The tuning space's counting at the edge of 64 bits: three `+` dimensions of 2^31 - 1 (their extents' product
// does not fit) and twenty dimensions (20! loop orders per layer, a space of about 10^91). Products saturate or count
// in big numbers; nothing wraps (issue 50; the sanitizer build reported the signed overflow).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "codegen/default_config.h"
#include "codegen/families/family_support.h"
#include "codegen/index_range.h"
#include "codegen/tunable_kernel.h"
#include "codegen/tuning_space.h"
#include "pipeline/tuning_search_space.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

const char* const kThreeReductions = R"(md_hom big
size R
input A : float[R]
output B : float[1]
view (a < R, b < R, c < R) : A[a] -> B[0]
scalar (x) = x
combine (+, +, +)
)";

std::string twenty_dimensions() {
  std::string dims, combine = "++";
  for (int d = 0; d < 20; ++d) dims += (d ? ", d" : "d") + std::to_string(d) + " < N";
  for (int d = 1; d < 20; ++d) combine += ", +";
  return "md_hom deep\nsize N\ninput A : float[N]\noutput B : float[N]\nview (" + dims +
         ") : A[d0] -> B[d0]\nscalar (a) = a\ncombine (" + combine + ")\n";
}

const TuningParameter* find_parameter(const TuningSpace& space, const std::string& name) {
  for (const TuningParameter& p : space.parameters)
    if (p.name == name) return &p;
  return nullptr;
}

TEST(SpaceCounting, ExtentProductsSaturate) {
  const BoundMdh bound = testing::bind_spec_text(kThreeReductions, "big.mdh", "R=2147483647");
  EXPECT_EQ(families::extent_product(bound, {0, 1}), int64_t{2147483647} * 2147483647);
  EXPECT_EQ(families::extent_product(bound, bound.mdh->reduction_dims()), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(families::extent_product(bound, {}), 1);
}

TEST(SpaceCounting, ThreeReductionsOfTwoToThe31) {
  // At 2^28 - 57, a prime (few tile sizes divide it), and at 2^31 - 1, a prime whose kernels compute in `long`
  // (IndicesNearTwoToThe31AreWide).
  for (const int64_t extent : {int64_t{268435399}, int64_t{2147483647}}) {
    const BoundMdh bound = testing::bind_spec_text(kThreeReductions, "big.mdh", "R=" + std::to_string(extent));
    for (const DeviceLimits& limits : {testing::first_device_limits(), testing::h200_device_limits()}) {
      const TuningSpace space = make_tuning_space(bound, limits);
      // Work-groups can share reductions of 2^84 or 2^93 points: the family that finishes them exists.
      EXPECT_NE(find_parameter(space, "WG_COMBINE"), nullptr);
      const TuningParameter* wg = find_parameter(space, "NUM_WG_a");
      ASSERT_NE(wg, nullptr);
      EXPECT_EQ(wg->hi, extent);
      const tuner::SearchSpace search = make_search_space(space);
      if (extent < 2147483647)
        EXPECT_GT(search.size().str().size(), 20u) << "more candidates than 64 bits count: " << search.size().str();
      else
        EXPECT_NE(search.size().str(), "0");
    }
  }
}

TEST(SpaceCounting, TwentyDimensions) {
  const BoundMdh bound = testing::bind_spec_text(twenty_dimensions(), "deep.mdh", "N=2");
  const TuningSpace space = make_tuning_space(bound, testing::first_device_limits());
  const TuningParameter* order = find_parameter(space, "LOOP_ORDER_G");
  ASSERT_NE(order, nullptr);
  EXPECT_EQ(order->hi, int64_t{2432902008176640000} - 1);  // 20! - 1
  for (const TuningParameter& p : space.parameters) EXPECT_LE(p.lo, p.hi) << p.name;
  const tuner::SearchSpace search = make_search_space(space);
  // Three loop orders of 20! each alone make 1.4e55 candidates: a count in 64 bits would have wrapped.
  EXPECT_GE(search.size().str().size(), 56u) << search.size().str();
}

// Near 2^31 a kernel's positions pass the end of `int`: a reduction of 2^31 - 647 split over 1024 work-groups of
// 2^21 made EXTENT + LT_SIZE - 1 wrap, and the kernel summed to 0. Such a kernel computes them in `long`, so the space
// keeps every split and the default splits a reduction of 2^31 - 1 as it splits shorter ones; smaller extents keep
// `int` (and their kernels' bytes).
TEST(SpaceCounting, IndicesNearTwoToThe31AreWide) {
  const char* const broadcast =
      "md_hom broadcast\nsize I R\ninput A : float[I]\noutput B : float[I]\nview (i < I, r < R) : A[i] -> B[i]\n"
      "scalar (a) = a\ncombine (++, +)\n";
  EXPECT_EQ(tunable_index_reach(2147483001, 2097152, 1024, 1, 4), int64_t{2147483001} + 2097152 - 1);
  EXPECT_EQ(tunable_index_reach(2147483001, 1, 2147483001, 1, 1), 2147483001);
  EXPECT_GT(tunable_index_reach(2147483647, 2147483647, 2147483647, 2147483647, 2147483647), int64_t{1} << 62);
  for (const int64_t extent : {int64_t{2147483001}, int64_t{2147483647}}) {
    const BoundMdh bound = testing::bind_spec_text(broadcast, "broadcast.mdh", "I=1,R=" + std::to_string(extent));
    for (const DeviceLimits& limits : {testing::first_device_limits(), testing::h200_device_limits()}) {
      const TuningSpace space = make_tuning_space(bound, limits);
      KernelConfig config = default_config(bound, limits);  // checked valid inside
      EXPECT_GE(config.num_wg[1], 512) << "the long reduction is split at " << extent;
      EXPECT_TRUE(needs_wide_indices(bound, config));
      const LaunchPlan plan = generate_tunable_kernel(bound, config, limits);
      EXPECT_NE(plan.source.find("#define EXTENT_r " + std::to_string(extent) + "L\n"), std::string::npos);
      EXPECT_NE(plan.source.find("const long tile_begin_r = "), std::string::npos);
      // Tiles of 2^21 over 1024 work-groups, whose last positions pass 2^31, are valid.
      config.local_tile_size[1] = 2097152;
      config.num_wg[1] = 1024;
      EXPECT_EQ(first_violation(space, assignment_from_config(space, config)), std::nullopt);
      EXPECT_TRUE(needs_wide_indices(bound, config));
      // (The scratch buffers of partial results keep their bound: their index stays `int`.)
      for (const TuningConstraint& c : space.constraints) {
        EXPECT_EQ(c.description().find("largest int index"), std::string::npos) << c.description();
        EXPECT_EQ(c.description().find("past the kernel's int"), std::string::npos) << c.description();
      }
    }
  }
  // Below 2^31 / 6 no configuration passes the end: `int`, unless a test asks for `long`.
  const BoundMdh small = testing::bind_spec_text(broadcast, "broadcast.mdh", "I=1,R=357913941");
  const KernelConfig config = default_config(small, testing::first_device_limits());
  EXPECT_FALSE(needs_wide_indices(small, config));
  const std::string narrow = generate_tunable_kernel(small, config, testing::first_device_limits()).source;
  EXPECT_NE(narrow.find("#define EXTENT_r 357913941\n"), std::string::npos);
  EXPECT_NE(narrow.find("const int tile_begin_r = "), std::string::npos);
  EXPECT_EQ(narrow.find("const long"), std::string::npos);
  PreambleOptions wide;
  wide.wide_indices = true;
  const std::string forced = generate_tunable_kernel(small, config, testing::first_device_limits(), wide).source;
  EXPECT_NE(forced.find("#define EXTENT_r 357913941L\n"), std::string::npos);
  EXPECT_NE(forced.find("const long tile_begin_r = "), std::string::npos);
}

}  // namespace
}  // namespace mdh
