// STRIDED_RUN: runs of consecutive elements under strided ownership.
#include <algorithm>

#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(strided_run, 130);

void add_strided_run(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "STRIDED_RUN";
  f.scope = FamilyScope::dimension;
  f.meaning =
      "with strided ownership: consecutive elements a work-item owns in each run, every NUM_WI-th run its own (a "
      "vector per run)";
  // With PT_SIZE in the dimension's tree: its divisibility constraint stays inside the tree.
  f.grouped_by_dimension = true;
  f.exists = has_strided_runs;
  f.max_value = [](const FamilyContext& x, int d) { return std::min<int64_t>(kMaxStridedRun, x.bound.dim_extents[d]); };
  f.lattice = powers_of_two;
  f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
  f.get = [](const KernelConfig& c, int d) { return c.strided_run_of(d); };
  f.set = [](KernelConfig& c, int d, int64_t v) { member_slot(c.strided_run, d) = v; };
  // Whole runs in a private tile.
  f.member_constraints = [](const FamilyContext& x, int d) {
    const Expr run = x.parameter("STRIDED_RUN", d);
    return std::vector<Condition>{ceil_div(x.parameter("PT_SIZE", d), run) * run == x.parameter("PT_SIZE", d)};
  };
  table.push_back(f);
}

}  // namespace mdh::families
