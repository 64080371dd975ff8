// The four sizes of each dimension (PACT'19 §V): local tiles, private tiles, work-items, work-groups.
#include <algorithm>
#include <set>

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// Work-item counts up to this many SIMD widths are searched in steps of one width (CLBlast's tuned GEMM work-groups
// hold 64-256 work-items, 2-8 warps); beyond it powers of two and divisors of the extent suffice.
constexpr int64_t kSimdMultiples = 8;

}  // namespace

MDH_FAMILY_MODULE(tile_sizes, 10);

void add_tile_sizes(std::vector<ParameterFamily>& table) {
  // 1. The four sizes of each dimension (PACT'19 §V): local tiles, private tiles, work-items, work-groups.
  {
    ParameterFamily f;
    f.name = "LT_SIZE";
    f.sizes_arrays = true;
    f.scope = FamilyScope::dimension;
    f.meaning = "local tile size: consecutive indices of the dimension a work-group processes at a time";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) { return x.bound.dim_extents[d]; };
    f.lattice = tile_lattice;
    f.neutral = no_neutral;
    f.get = [](const KernelConfig& c, int d) { return c.local_tile_size.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.local_tile_size.at(d) = v; };
    table.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "PT_SIZE";
    f.sizes_arrays = true;
    f.scope = FamilyScope::dimension;
    f.meaning = "private tile size: consecutive indices a work-item owns in one step";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) { return x.bound.dim_extents[d]; };
    f.lattice = tile_lattice;
    f.neutral = no_neutral;
    f.get = [](const KernelConfig& c, int d) { return c.private_tile_size.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.private_tile_size.at(d) = v; };
    f.member_constraints = [](const FamilyContext& x, int d) {
      return std::vector<Condition>{x.parameter("PT_SIZE", d) <= x.parameter("LT_SIZE", d)};
    };
    table.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "NUM_WI";
    f.sizes_arrays = true;
    f.scope = FamilyScope::dimension;
    f.meaning = "work-items of a work-group along the dimension";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) {
      return std::min<int64_t>(x.bound.dim_extents[d], static_cast<int64_t>(x.limits.max_work_group_size));
    };
    // Besides the tile sizes: multiples of the SIMD width (a work-group's work-items fill whole warps or vector
    // registers when the dimension is on OpenCL dimension 0, or when the others' counts are powers of two), and the
    // values that make one step cover a local tile exactly, ceil(LT / PT).
    f.lattice = [](const LatticeContext& x) {
      std::set<int64_t> s = tile_sizes(x);
      for (int64_t k = 1; k <= kSimdMultiples; ++k)
        if (const int64_t v = k * x.simd_width; v >= x.lo && v <= x.hi) s.insert(v);
      for (int64_t lt : x.lattice_of("LT_SIZE"))
        for (int64_t pt : x.lattice_of("PT_SIZE"))
          if (int64_t v = ceil_div(lt, pt); v >= x.lo && v <= x.hi) s.insert(v);
      return std::vector<int64_t>(s.begin(), s.end());
    };
    f.neutral = no_neutral;
    f.get = [](const KernelConfig& c, int d) { return c.num_wi.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.num_wi.at(d) = v; };
    // A work-item beyond these would never own an element: allowed by the kernel, but pure waste.
    f.member_constraints = [](const FamilyContext& x, int d) {
      return std::vector<Condition>{x.parameter("NUM_WI", d) <=
                                    ceil_div(x.parameter("LT_SIZE", d), x.parameter("PT_SIZE", d))};
    };
    f.family_constraints = [](const FamilyContext& x) {
      return std::vector<Condition>{
          x.product("NUM_WI", all_dims(*x.bound.mdh)) <=
          Expr::named_constant(static_cast<int64_t>(x.limits.max_work_group_size),
                               std::to_string(x.limits.max_work_group_size) + " (work-group size limit)")};
    };
    // Whole warps (DeviceLimits::warp_size), in the default space only (whole_warps_apply says where): tuning runs
    // spent most candidates on small work-groups that no tuned configuration had (docs/decisions.md). Stored results
    // with part warps stay valid; the default search no longer tries them.
    f.lattice_constraints = [](const FamilyContext& x) {
      if (!whole_warps_apply(x.bound, x.limits)) return std::vector<Condition>{};
      const int64_t warp = static_cast<int64_t>(x.limits.warp_size);
      return std::vector<Condition>{
          Condition::multiple_of(x.product("NUM_WI", all_dims(*x.bound.mdh)),
                                 Expr::named_constant(warp, std::to_string(warp) + " (warp size)"))};
    };
    table.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "NUM_WG";
    f.sizes_arrays = true;
    f.scope = FamilyScope::dimension;
    f.meaning = "work-groups along the dimension (on a reduction dimension: a split combined by a second kernel)";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) { return x.bound.dim_extents[d]; };
    // The values that make one pass cover the dimension exactly, ceil(extent / LT), besides the tile sizes.
    f.lattice = [](const LatticeContext& x) {
      std::set<int64_t> s = tile_sizes(x);
      for (int64_t lt : x.lattice_of("LT_SIZE"))
        if (int64_t v = ceil_div(x.hi, lt); v >= x.lo && v <= x.hi) s.insert(v);
      return std::vector<int64_t>(s.begin(), s.end());
    };
    f.neutral = no_neutral;
    f.get = [](const KernelConfig& c, int d) { return c.num_wg.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.num_wg.at(d) = v; };
    // A work-group beyond these would have no tile. Positions past 2^31 near the end of an extent are no constraint:
    // the kernel then computes them in `long` (needs_wide_indices in codegen/index_range.h).
    f.member_constraints = [](const FamilyContext& x, int d) {
      return std::vector<Condition>{x.parameter("NUM_WG", d) <=
                                    ceil_div(Expr::constant(x.bound.dim_extents[d]), x.parameter("LT_SIZE", d))};
    };
    table.push_back(f);
  }
}

}  // namespace mdh::families
