// UNROLL_STEPS and UNROLL_TILES: unrolled loops over private steps and local tiles.
#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(unrolling, 100);

void add_unrolling(std::vector<ParameterFamily>& table) {
  {
    ParameterFamily f;
    f.name = "UNROLL_STEPS";
    f.kind = FamilyValueKind::enumeration;
    f.meaning = "whether the loops over a work-item's private steps within a local tile are unrolled";
    f.labels = {"off", "on"};
    f.neutral = neutral_zero;
    access_enum_member<&KernelConfig::unroll_steps>(f);
    // No constraint: where every dimension has one step, "on" generates the kernel of "off" byte for byte (the
    // binary cache then compiles it once); telling so would read every dimension's tile sizes, a constraint
    // across all their groups.
    table.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "UNROLL_TILES";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "whether the work-group's loop over its local tiles along the innermost reduction tile loop is unrolled, up "
        "to 8 tiles per iteration";
    f.labels = {"off", "on"};
    f.neutral = neutral_zero;
    access_enum_member<&KernelConfig::unroll_tiles>(f);
    // Only where the md_hom reduces (else "on" would name the kernel of "off" a second time). Whether the sizes give
    // a loop of several tiles (TunableGeometry::innermost_reduction_tile_loop) is no constraint, as for
    // DOUBLE_BUFFER: "on" unrolls where they do, so a configuration stays valid at other sizes.
    f.family_constraints = [](const FamilyContext& x) {
      if (!x.bound.mdh->reduction_dims().empty()) return std::vector<Condition>{};
      return std::vector<Condition>{x.is("UNROLL_TILES", 0, "off")};
    };
    table.push_back(f);
  }
}

}  // namespace mdh::families
