// CMB_WI: how the work-items sharing a reduction combine their partial results.
#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(work_item_combine, 70);

void add_work_item_combine(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "CMB_WI";
  f.kind = FamilyValueKind::enumeration;
  f.meaning =
      "how work-items sharing a reduction combine: the leader folds them in turn (serial), pairwise rounds (tree), "
      "or rounds within sub-groups without barriers, then across the sub-groups (shuffle)";
  f.labels = {"serial", "tree", "shuffle"};
  f.neutral = neutral_zero;
  access_enum_member<&KernelConfig::work_item_combine>(f);
  f.family_constraints = [](const FamilyContext& x) {
    if (x.bound.mdh->reduction_dims().empty()) return std::vector<Condition>{x.is("CMB_WI", 0, "serial")};
    std::vector<Condition> out{
        Condition::unless(x.is("CMB_WI", 0, "serial"), reduction_sharing(x) >= Expr::constant(2))};
    // Shuffle: whole sub-groups (shfl.sync needs every lane of a warp), and each point's work-items in whole
    // aligned segments of power-of-two size: within one sub-group (the width a multiple of their count), or whole
    // sub-groups whose results then fit one sub-group's segment (their count divides the width).
    const int64_t width = static_cast<int64_t>(x.limits.subgroup_width);
    const int64_t reduced = extent_product(x.bound, x.bound.mdh->reduction_dims());  // most work-items sharing a point
    // Without sub-groups or a reduction to share, no shuffle: a constraint on CMB_WI alone, since one that reads
    // every dimension's work-items as well ties their groups to CMB_WI's for nothing (GEMM with K = 1 on a warp
    // device then drew too few whole-warp candidates to sample).
    if (width < 2 || reduced < 2) {
      out.push_back(x.is_not("CMB_WI", 0, "shuffle"));
    } else {
      const Expr w = Expr::named_constant(width, std::to_string(width) + " (sub-group width)");
      const Expr w_squared = Expr::named_constant(width * width, std::to_string(width * width) + " (its square)");
      const Expr sharing = reduction_sharing(x);
      out.push_back(
          Condition::unless(x.is_not("CMB_WI", 0, "shuffle"),
                            Condition::multiple_of(x.product("NUM_WI", all_dims(*x.bound.mdh)), w) &&
                                (Condition::multiple_of(w, sharing) ||
                                 (Condition::multiple_of(sharing, w) && Condition::multiple_of(w_squared, sharing)))));
    }
    return out;
  };
  table.push_back(f);
}

}  // namespace mdh::families
