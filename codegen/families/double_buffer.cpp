// DOUBLE_BUFFER: the next local tile loaded while the current one is computed.
#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(double_buffer, 90);

void add_double_buffer(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "DOUBLE_BUFFER";
  f.sizes_arrays = true;
  f.kind = FamilyValueKind::enumeration;
  f.meaning =
      "whether the work-group loads its next local tile of cached inputs into registers while it computes the "
      "current one (on), and stores them into a second local tile (local: one barrier per tile)";
  f.labels = {"off", "on", "local"};
  f.neutral = neutral_zero;
  access_enum_member<&KernelConfig::double_buffer>(f);
  // Only with an input cached in local memory and a reduction (else "on" would name the kernel of "off" a second
  // time). Whether the sizes give a tile loop to pipeline (TunableGeometry::prefetch_dimension) is not a
  // constraint: "on" pipelines where they do, so a configuration stays valid at other sizes (the tuned-results
  // store takes configurations tuned for the nearest size).
  f.family_constraints = [](const FamilyContext& x) {
    if (x.bound.mdh->reduction_dims().empty() || x.bound.inputs.empty())
      return std::vector<Condition>{x.is("DOUBLE_BUFFER", 0, "off")};
    Expr cached = x.parameter("MEM_INP_L", 0);
    for (size_t a = 1; a < x.bound.inputs.size(); ++a) cached = cached + x.parameter("MEM_INP_L", static_cast<int>(a));
    return std::vector<Condition>{Condition::unless(x.is("DOUBLE_BUFFER", 0, "off"), cached >= Expr::constant(1))};
  };
  table.push_back(f);
}

}  // namespace mdh::families
