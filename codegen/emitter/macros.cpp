// The `#ifndef`-guarded tuning macros and the counts, sizes and strides derived from them.
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "codegen/vector_lanes.h"
#include "support/error.h"

namespace mdh::emitter {

// ------------------------------------------------------------------ macros
void TunableEmitter::define_tuning(const std::string& name, const std::string& value) {
  out_ << "#ifndef " << name << "\n#define " << name << ' ' << value << "\n#endif\n";
}

std::string TunableEmitter::product_of(const char* family, const std::vector<int>& dims) const {
  std::vector<std::string> f;
  for (int d : dims) f.push_back(macro(family, d));
  return f.empty() ? "1" : "(" + join(f, " * ") + ")";
}

void TunableEmitter::emit_macros() {
  const int dims = static_cast<int>(m_.dims.size());
  out_ << "// Tuning parameters (override with -D; the launch sizes must then be changed to match).\n";
  for (int d = 0; d < dims; ++d) {
    define_tuning(macro("NUM_WG", d), str(c_.num_wg[d]));
    define_tuning(macro("NUM_WI", d), str(c_.num_wi[d]));
    define_tuning(macro("LT_SIZE", d), size_literal(c_.local_tile_size[d]));
    define_tuning(macro("PT_SIZE", d), size_literal(c_.private_tile_size[d]));
  }
  for (const FamilyEmitterHooks* hooks : family_hooks())
    if (hooks->tuning_macros) hooks->tuning_macros(family_context());
  out_ << "\n// Extents, and what the tuning parameters imply (see codegen/tunable_geometry.h).\n";
  for (int d = 0; d < dims; ++d) {
    define(macro("EXTENT", d), size_literal(b_.dim_extents[d]));
    define(macro("LOCAL_TILES", d),
           "((" + macro("EXTENT", d) + " + " + macro("LT_SIZE", d) + " - 1) / " + macro("LT_SIZE", d) + ")");
    define(macro("TILES_PER_WG", d),
           "((" + macro("LOCAL_TILES", d) + " + " + macro("NUM_WG", d) + " - 1) / " + macro("NUM_WG", d) + ")");
    define(macro("STEP", d), "(" + macro("NUM_WI", d) + " * " + macro("PT_SIZE", d) + ")");
    define(macro("PRIVATE_STEPS", d),
           "((" + macro("LT_SIZE", d) + " + " + macro("STEP", d) + " - 1) / " + macro("STEP", d) + ")");
    if (m_.dims[d].combine.is_concat())
      define(macro("SLOTS", d), "(" + macro("PRIVATE_STEPS", d) + " * " + macro("PT_SIZE", d) + ")");
  }
  std::vector<std::string> slots;
  for (int d : g_.concat_dims) slots.push_back(macro("SLOTS", d));
  define("RESULT_SLOTS", slots.empty() ? "1" : "(" + join(slots, " * ") + ")");
  std::vector<int> all(dims);
  for (int d = 0; d < dims; ++d) all[d] = d;
  define("WG_SIZE", product_of("NUM_WI", all));
  define("CONCAT_WI", product_of("NUM_WI", g_.concat_dims));
  define("REDUCTION_WI", product_of("NUM_WI", g_.reduction_dims));
  define("REDUCTION_WG", product_of("NUM_WG", g_.reduction_dims));
  define("OUTPUT_POINTS", str(g_.output_points));
  if (g_.folds_in_last_group()) {
    define("FOLD_SHARES", str(g_.fold_shares));
    define("FOLD_POINT_GROUPS", str(g_.fold_point_groups));
  }
  for (int o = 0; o < 3; ++o) {
    std::vector<int> mapped;
    for (int d = 0; d < dims; ++d)
      if (c_.ocl_dim[1][d] == o) mapped.push_back(d);
    define("LOCAL_SIZE_" + str(o), product_of("NUM_WI", mapped));
  }
  // Cached tiles: the footprint of a full tile through the view, halo included; strides follow BUF_ORDER.
  for (const CachedTile& t : g_.cached_tiles) {
    const char* size_family = t.layer == Layer::Local ? "LT_SIZE" : "PT_SIZE";
    const BoundAccess& access = b_.inputs[t.access];
    for (size_t k = 0; k < access.indices.size(); ++k) {
      const BoundIndex& index = access.indices[k];
      std::vector<std::string> terms;
      for (int d = 0; d < dims; ++d) {
        const int64_t c = index.coefficient[d] < 0 ? -index.coefficient[d] : index.coefficient[d];
        if (c == 0) continue;
        terms.push_back((c == 1 ? "" : str(c) + "*") + "(" + macro(size_family, d) + " - 1)");
      }
      terms.push_back(str(index.has_window ? index.window_extent : 1));
      define(cache_macro(t.layer, t.access, "EXTENT_" + str(k)), std::string("(") + join(terms, " + ") + ")");
    }
    emit_cache_layout(t);
  }
  // Code for tiles known to be full has no guards; other values given with -D could leave such tiles short.
  std::vector<std::string> breaks_full_tiles;
  for (int d = 0; d < dims; ++d) {
    if (g_.local_tile_fullness[d] != Fullness::Always) continue;
    breaks_full_tiles.push_back(macro("EXTENT", d) + " % " + macro("LT_SIZE", d) + " != 0 || " +
                                macro("LOCAL_TILES", d) + " % " + macro("NUM_WG", d) + " != 0" +
                                (g_.step_fullness[d] == Fullness::Always
                                     ? " || " + macro("LT_SIZE", d) + " % " + macro("STEP", d) + " != 0"
                                     : std::string()));
  }
  // Private caches copied whole in steps that may not be full (private_copy_unguarded): the steps divide the tile.
  for (int d = 0; d < dims; ++d) {
    if (g_.step_fullness[d] == Fullness::Always) continue;
    bool relied_on = false;
    for (size_t a = 0; a < m_.inputs.size(); ++a)
      relied_on = relied_on || (moves_with(b_.inputs[a], d) && cached(Layer::Private, a) != Memory::None &&
                                private_copy_unguarded(b_, c_, static_cast<int>(a)));
    if (relied_on) breaks_full_tiles.push_back(macro("LT_SIZE", d) + " % " + macro("STEP", d) + " != 0");
  }
  for (const std::string& condition : breaks_full_tiles)
    out_ << "#if " << condition
         << "\n#error \"generated for full tiles: generate the kernel again for other tuning values\"\n#endif\n";
  // Local caches copied in SIZE / WG_SIZE steps per work-item (emit_local_tile_loads).
  for (const CachedTile& t : g_.cached_tiles)
    if (t.layer == Layer::Local && t.elements() % g_.work_group_size == 0)
      out_ << "#if " << cache_macro(t.layer, t.access, "SIZE") << " % WG_SIZE != 0\n#error \"cache copy generated for "
           << t.elements() / g_.work_group_size
           << " elements per work-item: generate the kernel again for other tuning values\"\n#endif\n";
  // Vector copies: whole vectors per row of a full box, whole vectors per work-item where the copy loop counts
  // them, and aligned loads only where the tile sizes keep every vector's start at a multiple of the width.
  for (size_t a = 0; a < m_.inputs.size(); ++a) {
    const int ai = static_cast<int>(a);
    std::vector<std::string> assumptions;
    for (Layer l : {Layer::Local, Layer::Private}) {
      if (!vector_copy(l, ai)) continue;
      assumptions.push_back(cache_macro(l, ai, "EXTENT_" + str(vector_dimension(l, ai))) + " % " +
                            str(vector_width(ai)) + " != 0");
      if (l == Layer::Local && even_vector_copy(ai))
        assumptions.push_back("(" + cache_macro(l, ai, "SIZE") + " / " + str(vector_width(ai)) + ") % WG_SIZE != 0");
      vector_source_aligned(l, ai, &assumptions);
    }
    if (assumptions.empty()) continue;
    std::sort(assumptions.begin(), assumptions.end());
    assumptions.erase(std::unique(assumptions.begin(), assumptions.end()), assumptions.end());
    out_ << "#if " << join(assumptions, " || ") << "\n#error \"vector copies generated for VECTOR_WIDTH_"
         << access_id(ai) << " = " << vector_width(ai)
         << ": generate the kernel again for other tuning values\"\n#endif\n";
  }
  // Result stores in vectors: whole vectors per private tile along the store dimension.
  if (const int64_t width = store_width(); width > 1)
    out_ << "#if " << macro("PT_SIZE", store_dimension(b_)) << " % " << width
         << " != 0\n#error \"result stores generated for STORE_WIDTH = " << width
         << ": generate the kernel again for other tuning values\"\n#endif\n";
  // VECTOR_LANES: whole vectors per private tile along the lanes dimension (res_pv holds RESULT_SLOTS / lanes).
  if (const int64_t lanes = vector_lanes(); lanes > 1)
    out_ << "#if " << macro("PT_SIZE", vector_lanes_dimension(b_)) << " % " << lanes
         << " != 0\n#error \"element loop generated for VECTOR_LANES = " << lanes
         << ": generate the kernel again for other tuning values\"\n#endif\n";
  // The tree combine's rounds are unrolled for this many work-items.
  if (c_.work_item_combine == WorkItemCombine::tree && g_.combines_work_items())
    out_ << "#if REDUCTION_WI != " << g_.reduction_work_items << "\n#error \"tree combine generated for "
         << g_.reduction_work_items << " work-items: generate the kernel again for other tuning values\"\n#endif\n";
  // The shuffle's levels and segments are fixed by the work-items per point and per work-group.
  if (c_.work_item_combine == WorkItemCombine::shuffle && g_.combines_work_items())
    out_ << "#if REDUCTION_WI != " << g_.reduction_work_items << " || WG_SIZE != " << g_.work_group_size
         << "\n#error \"shuffle combine generated for " << g_.reduction_work_items << " of " << g_.work_group_size
         << " work-items: generate the kernel again for other tuning values\"\n#endif\n";
  if (unrolled_tile_loop() >= 0)
    out_ << "#if " << macro("TILES_PER_WG", unrolled_tile_loop()) << " % " << g_.tile_loop_unroll
         << " != 0\n#error \"tile loop unrolled by " << g_.tile_loop_unroll
         << ": generate the kernel again for other tuning values\"\n#endif\n";
  out_ << '\n';
}

}  // namespace mdh::emitter
