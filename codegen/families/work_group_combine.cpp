// WG_COMBINE: how a reduction split over work-groups is finished.
#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(work_group_combine, 80);

void add_work_group_combine(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "WG_COMBINE";
  f.sizes_arrays = true;
  f.kind = FamilyValueKind::enumeration;
  f.meaning =
      "how a reduction split over work-groups is finished: by a second kernel (kernel), or in the same kernel by "
      "the last work-group to store its partial results (last), or to add them atomically into an accumulator per "
      "output point (atomic: + on float, int or uint results)";
  f.labels = {"kernel", "last", "atomic"};
  // Where the reductions have a single element (GEMM with K=1) no work-groups can share one: the family would be
  // a choice between names of one kernel, tripling the candidates a sampler rejects.
  f.exists = [](const BoundMdh& b, int) {
    return work_group_combine_applies(*b.mdh) && extent_product(b, b.mdh->reduction_dims()) >= 2;
  };
  f.neutral = neutral_zero;
  access_enum_member<&KernelConfig::work_group_combine>(f);
  // Without work-groups sharing a reduction there is nothing to finish: `last` would be `kernel` again.
  f.family_constraints = [](const FamilyContext& x) {
    std::vector<Condition> conditions{Condition::unless(
        x.is("WG_COMBINE", 0, "kernel"), x.product("NUM_WG", x.bound.mdh->reduction_dims()) >= Expr::constant(2))};
    if (!work_group_combine_atomic_applies(*x.bound.mdh)) conditions.push_back(x.is_not("WG_COMBINE", 0, "atomic"));
    return conditions;
  };
  table.push_back(f);
}

}  // namespace mdh::families
