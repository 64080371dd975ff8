// OWNERSHIP and WG_OWNERSHIP: which elements a work-item owns, and which tiles a work-group owns.
#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(ownership, 60);

void add_ownership(std::vector<ParameterFamily>& table) {
  {
    ParameterFamily f;
    f.name = "OWNERSHIP";
    f.scope = FamilyScope::dimension;
    // With the sizes and STRIDED_RUN in the dimension's tree: its constraints on them stay inside the tree.
    f.grouped_by_dimension = true;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = "which elements of a private step a work-item owns: a consecutive block, or every NUM_WI-th";
    f.labels = {"block", "strided"};
    f.neutral = neutral_zero;
    f.get = [](const KernelConfig& c, int d) { return static_cast<int64_t>(c.ownership_of(d)); };
    f.set = [](KernelConfig& c, int d, int64_t v) {
      member_slot(c.ownership, d) = v == 1 ? Ownership::strided : Ownership::block;
    };
    f.member_constraints = [](const FamilyContext& x, int d) {
      const Mdh& mdh = *x.bound.mdh;
      const std::string n = mdh.dims[d].name;
      // Strided ownership differs from block ownership only with several work-items owning several runs
      // (STRIDED_RUN elements where runs exist; else single elements) each; block ownership has no runs.
      const bool runs = has_strided_runs(x.bound, d);
      const Expr run = runs ? x.parameter("STRIDED_RUN", d) : Expr::constant(1);
      std::vector<Condition> out{Condition::unless(
          x.is("OWNERSHIP", d, "block"),
          x.parameter("NUM_WI", d) >= Expr::constant(2) && x.parameter("PT_SIZE", d) >= Expr::constant(2) * run)};
      if (runs) out.push_back(Condition::unless(run == Expr::constant(1), x.is("OWNERSHIP", d, "strided")));
      // A work-item's partial result must be the fold of consecutive indices where the operator does not commute.
      if (!mdh.dims[d].combine.is_concat() && !mdh.dims[d].combine.is_commutative())
        out.push_back(x.is("OWNERSHIP", d, "block"));
      // A private cache holds the elements a work-item owns. Where a buffer index is the dimension itself (plus a
      // constant), the cache holds one element per owned index, in ownership order; along any other index (a
      // window, a sum of dimensions) a strided private tile's footprint is no box.
      for (size_t a = 0; a < x.bound.inputs.size(); ++a)
        if (moves_with(x.bound.inputs[a], d) && !indexed_plainly(x.bound.inputs[a], d))
          out.push_back(
              Condition::unless(x.is("MEM_INP_P", static_cast<int>(a), "none"), x.is("OWNERSHIP", d, "block")));
      return out;
    };
    table.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "WG_OWNERSHIP";
    f.scope = FamilyScope::dimension;
    // With the dimension's sizes in its tree: its constraint reads them.
    f.grouped_by_dimension = true;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = "which local tiles a work-group owns: a consecutive block of TILES_PER_WG, or every NUM_WG-th";
    f.labels = {"block", "strided"};
    f.neutral = neutral_zero;
    // A work-group's partial result is then no fold of consecutive tiles: only where the operator commutes. On `++`
    // dimensions WG_SWIZZLE orders the work-groups' tiles.
    f.exists = [](const BoundMdh& b, int d) {
      return !b.mdh->dims[d].combine.is_concat() && b.mdh->dims[d].combine.is_commutative();
    };
    f.get = [](const KernelConfig& c, int d) { return static_cast<int64_t>(c.work_group_ownership_of(d)); };
    f.set = [](KernelConfig& c, int d, int64_t v) {
      member_slot(c.work_group_ownership, d) = v == 1 ? Ownership::strided : Ownership::block;
    };
    // Strided differs from block only with several work-groups owning several tiles each.
    f.member_constraints = [](const FamilyContext& x, int d) {
      const Expr tiles = ceil_div(Expr::constant(x.bound.dim_extents[d]), x.parameter("LT_SIZE", d));
      return std::vector<Condition>{Condition::unless(
          x.is("WG_OWNERSHIP", d, "block"), x.parameter("NUM_WG", d) >= Expr::constant(2) &&
                                                ceil_div(tiles, x.parameter("NUM_WG", d)) >= Expr::constant(2))};
    };
    table.push_back(f);
  }
}

}  // namespace mdh::families
