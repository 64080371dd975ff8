// The tuning space's counting at the edge of 64 bits: three `+` dimensions of 2^31 - 1 (their extents' product
// does not fit) and twenty dimensions (20! loop orders per layer, a space of about 10^91). Products saturate or count
// in big numbers; nothing wraps (issue 50; the sanitizer build reported the signed overflow).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "codegen/families/family_support.h"
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
  const BoundMdh bound = testing::bind_spec_text(kThreeReductions, "big.mdh", "R=2147483647");
  for (const DeviceLimits& limits : {testing::first_device_limits(), testing::h200_device_limits()}) {
    const TuningSpace space = make_tuning_space(bound, limits);
    // Work-groups can share reductions of 2^93 points: the family that finishes them exists.
    EXPECT_NE(find_parameter(space, "WG_COMBINE"), nullptr);
    const TuningParameter* wg = find_parameter(space, "NUM_WG_a");
    ASSERT_NE(wg, nullptr);
    EXPECT_EQ(wg->hi, 2147483647);
    const tuner::SearchSpace search = make_search_space(space);
    EXPECT_GT(search.size().str().size(), 20u) << "more candidates than 64 bits count: " << search.size().str();
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

}  // namespace
}  // namespace mdh
