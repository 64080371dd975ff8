// An md_hom with as many dimensions as the language allows (mdh/messages.h: kMaxDimensions = 20) gets its tuning
// space in bounded memory: loop and buffer orders (20! each) are ranked, never listed. Before, the space listed
// every order: 4.7 GB at 10 dimensions, out of memory from 11 on.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

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

}  // namespace
}  // namespace mdh
