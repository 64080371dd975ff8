// WG_SWIZZLE: the order in which work-groups take their tiles. 1 everywhere: as the OpenCL ids come. S > 1 on
// dimension d: in launch order, the work-groups take S consecutive tiles of d (the group's rows), then the next S
// tiles of the other dimensions... (the group's columns), and so on group by group: those that run at the same
// time read S tiles along d and only a few along the others, which then stay in the L2 cache (inputs larger than
// the L2).
#include <algorithm>

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// WG_SWIZZLE's range: groups of up to 16 tiles (16 tiles of 128 rows of a 4096-wide float input are 32 MiB, most of
// an H200's L2).
constexpr int64_t kMaxWorkGroupSwizzle = 16;

// Dimensions without the family (reductions) take their tiles as the ids come.
int64_t swizzle(const KernelConfig& c, int d) {
  return c.value_or("WG_SWIZZLE", d, 1);
}

std::string summary_note(const FamilyEmitContext& x) {
  std::vector<std::string> swizzles;
  for (int d = 0; d < static_cast<int>(x.bound.mdh->dims.size()); ++d)
    if (swizzle(x.config, d) > 1) swizzles.push_back(x.dim(d) + " " + std::to_string(swizzle(x.config, d)));
  if (swizzles.empty()) return "";
  std::string note = "WG_SWIZZLE: tiles at a time along ";
  for (size_t k = 0; k < swizzles.size(); ++k) note += (k ? ", " : "") + swizzles[k];
  return note;
}

void tuning_macros(const FamilyEmitContext& x) {
  for (int d = 0; d < static_cast<int>(x.bound.mdh->dims.size()); ++d)
    if (swizzle(x.config, d) > 1) x.define_tuning(x.macro("WG_SWIZZLE", d), swizzle(x.config, d));
}

// The work-group ids from the launch order (the linear group id, OpenCL dimension 0 fastest). Each swizzled
// dimension d in turn takes WG_SWIZZLE_d ids of d (the last group fewer where they do not divide) for every
// combination of the dimensions not yet assigned, d fastest; the others then split what is left as the OpenCL ids
// would (dimension 0's dimensions fastest, later ones faster). Each step is one to one, so every tile is taken
// exactly once.
bool work_group_ids(const FamilyEmitContext& x) {
  const int dims = static_cast<int>(x.bound.mdh->dims.size());
  bool swizzled = false;
  for (int d = 0; d < dims; ++d) swizzled = swizzled || swizzle(x.config, d) > 1;
  if (!swizzled) return false;
  x.line("// WG_SWIZZLE: work-groups take tiles in groups along the swizzled dimensions, in launch order.");
  x.line(
      "int wg_sw_rest = (int)get_group_id(0) + (int)get_num_groups(0)*((int)get_group_id(1) + "
      "(int)get_num_groups(1)*(int)get_group_id(2));");
  std::vector<int> unassigned;
  for (int o = 0; o < 3; ++o)
    for (int d = dims - 1; d >= 0; --d)
      if (x.config.ocl_dim[0][d] == o) unassigned.push_back(d);  // fastest first
  for (int d = 0; d < dims; ++d) {
    if (swizzle(x.config, d) <= 1) continue;
    unassigned.erase(std::find(unassigned.begin(), unassigned.end(), d));
    const std::string n = x.dim(d), s = x.macro("WG_SWIZZLE", d), span = "wg_sw_span_" + n;
    const std::string groups = x.macro("NUM_WG", d);
    x.line("const int " + span + " = " + s + "*" + x.product("NUM_WG", unassigned) + ";");
    x.line("const int wg_sw_first_" + n + " = (wg_sw_rest / " + span + ")*" + s + ";");
    x.line("const int wg_sw_height_" + n + " = min(" + groups + " - wg_sw_first_" + n + ", " + s + ");");
    x.line("const int wg_sw_in_" + n + " = wg_sw_rest % " + span + ";");
    x.line("const int wg_" + n + " = wg_sw_first_" + n + " + wg_sw_in_" + n + " % wg_sw_height_" + n + ";");
    x.line("wg_sw_rest = wg_sw_in_" + n + " / wg_sw_height_" + n + ";");
  }
  for (int d : unassigned) {
    x.line("const int wg_" + x.dim(d) + " = wg_sw_rest % " + x.macro("NUM_WG", d) + ";");
    x.line("wg_sw_rest /= " + x.macro("NUM_WG", d) + ";");
  }
  return true;
}

}  // namespace

MDH_FAMILY_MODULE(work_group_swizzle, 110);

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
  // Groups of more tiles than the dimension's work-groups would order them as groups of all of them do.
  f.member_constraints = [](const FamilyContext& x, int d) {
    return std::vector<Condition>{x.parameter("WG_SWIZZLE", d) <= x.parameter("NUM_WG", d)};
  };
  f.hooks.summary_note = summary_note;
  f.hooks.tuning_macros = tuning_macros;
  f.hooks.work_group_ids = work_group_ids;
  f.generated_names.identifiers = {"wg_sw_rest"};
  f.generated_names.derived_prefixes = {"wg_sw_first_", "wg_sw_height_", "wg_sw_in_", "wg_sw_span_"};
  table.push_back(f);
}

}  // namespace mdh::families
