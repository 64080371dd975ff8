// EDGE_POINTS: what an edge tile does along the `++` dimensions whose tiles the extent cuts. `guarded`: it runs
// guarded code that computes only the points inside the extent. `computed`: it runs the full tiles' code and also
// computes the points past the extent, which the write-back never stores (TunableGeometry::edge_points_computed says
// where that is safe). Computing them costs the edge tile's missing points; guarding them costs a test per point and
// a second copy of the step code, which on NVIDIA raised GEMM 1000^3's registers into spills (docs/decisions.md).
#include <algorithm>

#include "codegen/families/family_support.h"
#include "codegen/vector_lanes.h"

namespace mdh::families {

namespace {

// Every input and the output hold float or double scalars: f's arithmetic on any of their values, even one read
// from memory that no point of the extent owns, has no effect beyond its own result (no trap, no fault).
bool scalar_types_are_floating(const Mdh& mdh) {
  auto floating = [&](int buffer) {
    const ElementType& t = mdh.buffers.at(static_cast<size_t>(buffer)).type;
    return !t.is_struct() && is_floating(t.scalar);
  };
  for (const auto& input : mdh.inputs)
    if (!floating(input.buffer)) return false;
  return floating(mdh.output.buffer);
}

// The `++` dimensions whose edge tiles `computed` would run whole in this configuration
// (TunableGeometry::edge_points_computed): none where the tiles leave no edge, or none that it applies to.
int64_t dims_computed_whole(const BoundMdh& bound, const KernelConfig& config, int) {
  KernelConfig computed = config;
  set_label(computed, "EDGE_POINTS", "computed");
  const std::vector<bool> dims = tunable_geometry(bound, computed).edge_points_computed;
  return std::count(dims.begin(), dims.end(), true);
}

std::string summary_note(const FamilyEmitContext& x) {
  std::vector<std::string> dims;
  for (size_t d = 0; d < x.geometry.edge_points_computed.size(); ++d)
    if (x.geometry.edge_points_computed[d]) dims.push_back(x.dim(static_cast<int>(d)));
  if (dims.empty()) return "";
  std::string note = "EDGE_POINTS: edge tiles computed whole along ";
  for (size_t k = 0; k < dims.size(); ++k) note += (k ? ", " : "") + dims[k];
  return note;
}

}  // namespace

MDH_FAMILY_MODULE(edge_points, 180);

void add_edge_points(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "EDGE_POINTS";
  f.kind = FamilyValueKind::enumeration;
  f.meaning =
      "whether edge tiles of `++` dimensions compute only their points inside the extent, in guarded code "
      "(guarded), or run the full tiles' code and compute the points past the extent too, never stored (computed)";
  f.labels = {"guarded", "computed"};
  // Where computing a point past the extent is harmless: f an expression of its float arguments alone (no index,
  // table, param or window it could read out of bounds with) and something to cut along.
  f.exists = [](const BoundMdh& b, int) {
    for (const auto& input : b.mdh->inputs)
      if (input.has_window()) return false;  // a window's reads reach past the point it is called for
    return !b.mdh->concat_dims().empty() && scalar_function_is_lanewise(*b.mdh) && scalar_types_are_floating(*b.mdh);
  };
  f.neutral = neutral_zero;
  // Without such a dimension `computed` generates the guarded kernel byte for byte: offered only where it differs,
  // it no longer doubles the space at sizes the tiles divide.
  f.effect = ParameterFamily::Effect{"`++` dimensions whose edge tiles EDGE_POINTS computed runs whole",
                                     {"LT_SIZE", "PT_SIZE", "NUM_WI", "NUM_WG", "MEM_INP_L", "CMB_RES"},
                                     dims_computed_whole};
  f.hooks.summary_note = summary_note;
  table.push_back(f);
}

}  // namespace mdh::families
