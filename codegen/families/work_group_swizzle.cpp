// WG_SWIZZLE: the order in which work-groups take their tiles.
#include <algorithm>

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// WG_SWIZZLE's range: groups of up to 16 tiles (16 tiles of 128 rows of a 4096-wide float input are 32 MiB, most of
// an H200's L2).
constexpr int64_t kMaxWorkGroupSwizzle = 16;

}  // namespace

void add_work_group_swizzle(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "WG_SWIZZLE";
  f.scope = FamilyScope::dimension;
  f.meaning =
      "work-groups take the dimension's tiles this many at a time, the other dimensions' tiles within each such "
      "group (1: as the OpenCL ids come), so that those running together share input tiles in the L2 cache";
  // With NUM_WG in the dimension's tree: its constraint stays inside the tree (no rejection of whole draws).
  f.grouped_by_dimension = true;
  // On `++` dimensions of md_homs with another dimension to take turns with.
  f.exists = [](const BoundMdh& b, int d) { return b.mdh->dims.size() >= 2 && b.mdh->dims[d].combine.is_concat(); };
  f.max_value = [](const FamilyContext& x, int d) {
    return std::min<int64_t>(kMaxWorkGroupSwizzle, x.bound.dim_extents[d]);
  };
  f.lattice = powers_of_two;
  f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
  f.get = [](const KernelConfig& c, int d) { return c.swizzle(d); };
  f.set = [](KernelConfig& c, int d, int64_t v) { member_slot(c.work_group_swizzle, d) = v; };
  // Groups of more tiles than the dimension's work-groups would order them as groups of all of them do.
  f.member_constraints = [](const FamilyContext& x, int d) {
    return std::vector<Condition>{x.parameter("WG_SWIZZLE", d) <= x.parameter("NUM_WG", d)};
  };
  table.push_back(f);
}

}  // namespace mdh::families
