// Full and edge tiles, and the copies of input tiles into local and private caches (MEM_INP, DOUBLE_BUFFER).
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "support/error.h"

namespace mdh::emitter {

// Emits `body(false)` (unguarded) where every test holds and `body(true)` (guarded along the dimensions whose test
// is not Always) elsewhere: one of them alone where that is known now, else both as the branches of one `if`.
// `body` must not contain a barrier: barriers stay outside branches, so every work-item meets the same barriers
// in the same loops of constant trip count (PoCL 3.1's optimised builds miscompile other shapes: open_tile_loop,
// codegen/DESIGN.md).
void TunableEmitter::peel(const std::vector<FullTest>& tests, const std::function<void(bool guarded)>& body) {
  std::vector<std::string> runtime;
  for (const FullTest& t : tests) {
    if (t.fullness == Fullness::Never) {
      body(true);
      return;
    }
    if (t.fullness == Fullness::Sometimes) runtime.push_back(t.runtime);
  }
  if (runtime.empty()) {
    body(false);
    return;
  }
  open("if (" + join(runtime, " && ") + ")");
  body(false);
  --indent_;
  line("} else {");
  ++indent_;
  body(true);
  close();
}

// The work-group-uniform test that the current local tile along d holds all LT_SIZE indices.
std::string TunableEmitter::local_tile_is_full(int d) const {
  return "tile_end_" + dim(d) + " - tile_begin_" + dim(d) + " == " + macro("LT_SIZE", d);
}

// The fullness of a cached box of access `a` along buffer dimension k: the least full of the md_hom dimensions
// its index moves with (`per_dim`: local tiles for local caches, private steps for private caches).
Fullness TunableEmitter::box_fullness(int a, size_t k, const std::vector<Fullness>& per_dim) const {
  Fullness f = Fullness::Always;
  for (size_t d = 0; d < m_.dims.size(); ++d) {
    if (b_.inputs[a].indices[k].coefficient[d] == 0) continue;
    if (per_dim[d] == Fullness::Never) return Fullness::Never;
    if (per_dim[d] == Fullness::Sometimes) f = Fullness::Sometimes;
  }
  return f;
}

void TunableEmitter::open_counted_loops(const std::vector<CountedLoop>& loops) {
  std::vector<bool> unrolled(loops.size(), false);
  int64_t iterations = 1;
  for (size_t n = loops.size(); n-- > 0;) {
    iterations *= loops[n].count / loops[n].step;
    if (iterations > kMaxUnrolled) break;
    unrolled[n] = true;
  }
  for (size_t n = 0; n < loops.size(); ++n) {
    if (unrolled[n]) line("#pragma unroll");
    const std::string& v = loops[n].var;
    open("for (int " + v + " = 0; " + v + " < " + loops[n].count_macro + "; " +
         (loops[n].step == 1 ? "++" + v : v + " += " + str(loops[n].step)) + ")");
  }
}

// ------------------------------------------------------------------ caches
// Lowest corner and extent of access `a` over the box [begin_d, end_d) of every dimension (clipped tile).
// `nonempty`: an expression that is false when the box is empty; the extents are then 0. `with_extents` false:
// the lowest corner only (a full box has the cache's extents).
// `lo_name`: the corner variables are cache_var(l, a, lo_name, k) (the next tile's: "next_lo"), the extents'
// likewise with "ext" for its "lo" ("next_ext").
void TunableEmitter::emit_box(Layer l, int a, const std::string& begin_prefix, const std::string& end_prefix,
                              const std::string& nonempty, bool with_extents, const std::string& lo_name) {
  const BoundAccess& access = b_.inputs[a];
  for (size_t k = 0; k < access.indices.size(); ++k) {
    const BoundIndex& index = access.indices[k];
    std::string lo = str(index.offset + (index.has_window ? index.window_lo : 0));
    std::string ext = str(index.has_window ? index.window_extent : 1);
    for (size_t d = 0; d < m_.dims.size(); ++d) {
      const int64_t c = index.coefficient[d];
      if (c == 0) continue;
      const std::string begin = begin_prefix + dim(static_cast<int>(d));
      const std::string last = "(" + end_prefix + dim(static_cast<int>(d)) + " - 1)";
      lo += " + " + str(c) + "*" + (c > 0 ? begin : last);
      ext += " + " + str(c < 0 ? -c : c) + "*(" + last + " - " + begin + ")";
    }
    line("const " + index_type() + " " + cache_var(l, a, lo_name, static_cast<int>(k)) + " = " + lo + ";");
    if (!with_extents) continue;
    if (!nonempty.empty()) ext = nonempty + " ? " + ext + " : 0";
    const std::string ext_name = lo_name.substr(0, lo_name.size() - 2) + "ext";
    line("const " + index_type() + " " + cache_var(l, a, ext_name, static_cast<int>(k)) + " = " + ext + ";");
  }
}

// The buffer coordinates of a cache element: `relative` to the box's lowest corner (its `lo` variables, or the
// next tile's `next_lo` while prefetching).
std::vector<std::string> TunableEmitter::box_coordinates(Layer l, int a, const std::vector<std::string>& relative,
                                                         const std::string& lo) const {
  std::vector<std::string> absolute;
  for (size_t k = 0; k < relative.size(); ++k) {
    const int d = l == Layer::Private ? strided_dimension_of(a, k) : -1;  // a private cache in ownership order
    absolute.push_back(cache_var(l, a, lo, static_cast<int>(k)) + " + " +
                       (d >= 0 ? owned_offset(d, relative[k]) : relative[k]));
  }
  return absolute;
}

// Copies the box of access `a` from its next outer source into the cache of layer `l`.
// `cache[relative] = element;`, or with a guard `cache[relative] = (guard) ? element : otherwise;` (the element is
// read only where the guard holds).
void TunableEmitter::emit_copy_body(Layer l, int a, const std::vector<std::string>& relative, const std::string& guard,
                                    const std::string& otherwise) {
  const std::vector<std::string> absolute = box_coordinates(l, a, relative);
  const Source outer =
      (l == Layer::Private && cached(Layer::Local, a) != Memory::None) ? Source::LocalTile : Source::Global;
  const std::string element = element_at(a, outer, absolute);
  line(cache_array(l, a) + "[" + cache_offset(l, a, relative) +
       "] = " + (guard.empty() ? element : "(" + guard + ") ? " + element + " : " + otherwise) + ";");
}

void TunableEmitter::emit_local_tile_loads() {
  std::vector<int> accesses;
  for (size_t a = 0; a < m_.inputs.size(); ++a)
    if (cached(Layer::Local, a) != Memory::None) accesses.push_back(static_cast<int>(a));
  if (accesses.empty()) return;
  line(
      "// Cache the local tile's inputs (all work-items copy; the barriers keep the previous tile until all are "
      "done).");
  line("barrier(CLK_LOCAL_MEM_FENCE);");
  // Per access and buffer dimension: whether the clipped box has the full tile's extent.
  std::vector<std::vector<FullTest>> tests(m_.inputs.size());
  bool some_edge = false;
  for (int a : accesses)
    for (size_t k = 0; k < b_.inputs[a].indices.size(); ++k) {
      tests[a].push_back(
          {box_fullness(a, k, g_.local_tile_fullness), cache_var(Layer::Local, a, "ext", static_cast<int>(k)) +
                                                           " == " + cache_macro(Layer::Local, a, "EXTENT_" + str(k))});
      some_edge = some_edge || tests[a].back().fullness != Fullness::Always;
    }
  if (some_edge) {
    std::vector<std::string> nonempty;
    for (size_t d = 0; d < m_.dims.size(); ++d)
      nonempty.push_back("tile_end_" + dim(static_cast<int>(d)) + " > tile_begin_" + dim(static_cast<int>(d)));
    line("const int tile_nonempty = " + join(nonempty, " && ") + ";");
  }
  for (int a : accesses) {
    const size_t rank = b_.inputs[a].indices.size();
    bool all_full = true;
    for (const FullTest& t : tests[a]) all_full = all_full && t.fullness == Fullness::Always;
    emit_box(Layer::Local, a, "tile_begin_", "tile_end_", "tile_nonempty", !all_full);
    // Over the full tile's box (constant trip count); in edge tiles skipping what lies outside the clipped tile.
    // Where the work-group's work-items divide the cached tile evenly (known here; emit_macros refuses other
    // values), each copies SIZE / WG_SIZE elements in a loop of constant trip count, unrolled: the compiler can
    // issue all of a work-item's global loads before its local stores, and the / and % below are by constants.
    const int64_t elements = cached_tile(Layer::Local, a).elements();
    const bool even = elements % g_.work_group_size == 0;
    peel(tests[a], [&](bool guarded) {
      if (!guarded && vector_copy(Layer::Local, a)) {
        emit_vector_local_copy(a);
        return;
      }
      if (even) {
        open_counted_loops(
            {{"n", "(" + cache_macro(Layer::Local, a, "SIZE") + " / WG_SIZE)", elements / g_.work_group_size}});
        line("const int c = wi_lin + n*WG_SIZE;");
      } else {
        open("for (int c = wi_lin; c < " + cache_macro(Layer::Local, a, "SIZE") + "; c += WG_SIZE)");
      }
      const std::vector<std::string> relative = emit_copy_coordinates(a);
      std::vector<std::string> guard;
      for (size_t k = 0; k < rank; ++k)
        if (guarded && tests[a][k].fullness != Fullness::Always)
          guard.push_back("b_" + str(k) + " < " + cache_var(Layer::Local, a, "ext", static_cast<int>(k)));
      if (!guard.empty()) open("if (" + join(guard, " && ") + ")");
      emit_copy_body(Layer::Local, a, relative);
      if (!guard.empty()) close();
      close();
    });
  }
  line("barrier(CLK_LOCAL_MEM_FENCE);");
}

// The coordinates b_k, relative to the box's lowest corner, of element `c` of access `a`'s local cache, counted
// in the buffer's own row-major order (consecutive work-items read consecutive addresses, whatever BUF_ORDER).
// `width` > 1: `c` counts vectors of that many elements along the unit-stride (last) buffer dimension.
std::vector<std::string> TunableEmitter::emit_copy_coordinates(int a, int64_t width) {
  const size_t rank = b_.inputs[a].indices.size();
  auto extent = [&](size_t k) {
    const std::string e = cache_macro(Layer::Local, a, "EXTENT_" + str(k));
    return width > 1 && k + 1 == rank ? "(" + e + " / " + str(width) + ")" : e;
  };
  std::vector<std::string> relative(rank);
  for (int k = static_cast<int>(rank) - 1; k >= 0; --k) {
    relative[k] = "b_" + str(k);
    std::vector<std::string> inner_extents;
    for (size_t later = k + 1; later < rank; ++later) inner_extents.push_back(extent(later));
    const std::string divisor = join(inner_extents, "*");
    std::string value = divisor.empty() ? "c" : "c / (" + divisor + ")";
    if (k > 0) value = "(" + value + ") % " + extent(k);
    if (width > 1 && static_cast<size_t>(k) + 1 == rank) value = "(" + value + ")*" + str(width);
    line("const int b_" + str(k) + " = " + value + ";");
  }
  return relative;
}

std::vector<int> TunableEmitter::locally_cached() const {
  std::vector<int> accesses;
  for (size_t a = 0; a < m_.inputs.size(); ++a)
    if (cached(Layer::Local, a) == Memory::Local) accesses.push_back(static_cast<int>(a));
  return accesses;
}

void TunableEmitter::open_copy_rounds(int a) {
  const std::string size = cache_macro(Layer::Local, a, "SIZE");
  open_counted_loops({{"n", "((" + size + " + WG_SIZE - 1) / WG_SIZE)",
                       (cached_tile(Layer::Local, a).elements() + g_.work_group_size - 1) / g_.work_group_size}});
  line("const int c = wi_lin + n*WG_SIZE;");
  if (uneven_copy(a)) open("if (c < " + size + ")");
}

void TunableEmitter::close_copy_rounds(int a) {
  if (uneven_copy(a)) close();
  close();
}

// DOUBLE_BUFFER, before the tile loop of dimension r (the prefetch dimension) or inside it (`first` false): the
// registers pf_<access> receive the local tile that comes next along r, the work-group's first one or the one
// after the current one. The next tile's box is the cache's box moved by LT_SIZE along r. Where tiles are
// sometimes full (TunableGeometry::prefetch_dimension), a box that is not full is loaded element by element,
// zero past the tile's end (never read: the edge tiles' code is guarded).
void TunableEmitter::emit_prefetch(int r, bool first, const std::vector<bool>& loop_open) {
  std::vector<bool> read(m_.dims.size(), false), read_backwards(m_.dims.size(), false);
  bool edges = false;
  for (int a : locally_cached())
    for (size_t k = 0; k < b_.inputs[a].indices.size(); ++k) {
      edges = edges || box_fullness(a, k, g_.local_tile_fullness) != Fullness::Always;
      for (size_t d = 0; d < m_.dims.size(); ++d) {
        const int64_t coefficient = b_.inputs[a].indices[k].coefficient[d];
        read[d] = read[d] || coefficient != 0;
        read_backwards[d] = read_backwards[d] || coefficient < 0;  // the box starts at the tile's end
      }
    }
  std::vector<std::string> nonempty;
  for (size_t d = 0; d < m_.dims.size(); ++d) {
    if (!read[d]) continue;
    const int di = static_cast<int>(d);
    const std::string n = dim(di);
    std::string begin = "tile_begin_" + n;
    if (di == r)
      begin = first ? local_tile(r, "0") + "*" + macro("LT_SIZE", r) : next_tile_begin(r);
    else if (!loop_open[d])  // a reduction tile loop inside r's, of one tile per work-group
      begin = local_tile(di, "0") + "*" + macro("LT_SIZE", di);
    line("const " + index_type() + " next_begin_" + n + " = " + begin + ";");
    if (edges) {  // the next tile's end, clipped as open_tile_loop clips it
      line("const " + index_type() + " next_end_" + n + " = " +
           (di != r && loop_open[d]
                ? "tile_end_" + n
                : "min(next_begin_" + n + " + " + macro("LT_SIZE", di) + ", " + macro("EXTENT", di) + ")") +
           ";");
      nonempty.push_back("next_end_" + n + " > next_begin_" + n);
    } else if (read_backwards[d]) {
      line("const " + index_type() + " next_end_" + n + " = next_begin_" + n + " + " + macro("LT_SIZE", di) + ";");
    }
  }
  if (edges) line("const int next_nonempty = " + join(nonempty, " && ") + ";");
  for (int a : locally_cached()) {
    std::vector<FullTest> tests;
    for (size_t k = 0; k < b_.inputs[a].indices.size(); ++k)
      tests.push_back(
          {box_fullness(a, k, g_.local_tile_fullness), cache_var(Layer::Local, a, "next_ext", static_cast<int>(k)) +
                                                           " == " + cache_macro(Layer::Local, a, "EXTENT_" + str(k))});
    const bool all_full =
        std::all_of(tests.begin(), tests.end(), [](const FullTest& t) { return t.fullness == Fullness::Always; });
    if (all_full) {
      emit_box(Layer::Local, a, "next_begin_", "next_end_", "", false, "next_lo");
      emit_prefetch_loads(a);
      continue;
    }
    emit_box(Layer::Local, a, "next_begin_", "next_end_", "next_nonempty", true, "next_lo");
    peel(tests, [&](bool guarded) {
      if (guarded)
        emit_guarded_prefetch_loads(a, tests);
      else
        emit_prefetch_loads(a);
    });
  }
}

// The registers of access `a`'s next local tile, a full box (emit_prefetch).
void TunableEmitter::emit_prefetch_loads(int a) {
  const int64_t width = vector_prefetch(a) ? vector_width(a) : 1;
  if (width > 1)
    open_vector_copy_rounds(a);
  else
    open_copy_rounds(a);
  const std::vector<std::string> relative = emit_copy_coordinates(a, width);
  const std::vector<std::string> absolute = box_coordinates(Layer::Local, a, relative, "next_lo");
  line(prefetch_array(a) +
       "[n] = " + (width > 1 ? vector_load(Layer::Local, a, absolute) : element_at(a, Source::Global, absolute)) + ";");
  if (width > 1)
    close();
  else
    close_copy_rounds(a);
}

// The registers of access `a`'s next local tile where its box may be clipped: element by element (vector registers
// component by component), each read only inside the box and zero outside it.
void TunableEmitter::emit_guarded_prefetch_loads(int a, const std::vector<FullTest>& tests) {
  const int64_t width = vector_prefetch(a) ? vector_width(a) : 1;
  const std::string zero = "zero_" + prefetch_array(a);
  line("const " + buffer_type(m_.inputs[a].buffer) + " " + zero + " = {0};");
  if (width > 1)
    open_vector_copy_rounds(a);
  else
    open_copy_rounds(a);
  const std::vector<std::string> relative = emit_copy_coordinates(a, width);
  const size_t vk = relative.size() - 1;  // the vectors run along the unit-stride (last) buffer dimension
  for (int64_t j = 0; j < width; ++j) {
    std::vector<std::string> at = relative;
    if (j > 0) at[vk] = relative[vk] + " + " + str(j);
    std::vector<std::string> guard;
    for (size_t k = 0; k < at.size(); ++k)
      if (tests[k].fullness != Fullness::Always)
        guard.push_back(at[k] + " < " + cache_var(Layer::Local, a, "next_ext", static_cast<int>(k)));
    const std::string element = element_at(a, Source::Global, box_coordinates(Layer::Local, a, at, "next_lo"));
    line(prefetch_array(a) + "[n]" + (width > 1 ? component(j) : std::string()) + " = (" + join(guard, " && ") +
         ") ? " + element + " : " + zero + ";");
  }
  if (width > 1)
    close();
  else
    close_copy_rounds(a);
}

// The tile loop that UNROLL_TILES unrolls, -1 for none.
int TunableEmitter::unrolled_tile_loop() const {
  return c_.unroll_tiles == UnrollTiles::on && g_.tile_loop_unroll > 1 ? g_.innermost_reduction_tile_loop : -1;
}

// DOUBLE_BUFFER, at the start of each tile along r: the registers into the caches, then the next tile's loads.
// With two local tiles the registers of a tile were stored before (emit_first_tile_stores, emit_second_tile_stores):
// only the next tile's loads are left here.
void TunableEmitter::emit_prefetched_local_tile_loads(int r) {
  const std::string t = "t_" + dim(r);
  if (two_local_tiles()) {
    for (int a : locally_cached()) emit_box(Layer::Local, a, "tile_begin_", "tile_end_", "", false);
  } else {
    line("// Double buffering: store the registers loaded ahead into the caches (the barrier before keeps the");
    line("// previous tile until all work-items are done with it).");
    line("barrier(CLK_LOCAL_MEM_FENCE);");
    emit_prefetch_stores(true);
    line("barrier(CLK_LOCAL_MEM_FENCE);");
  }
  open("if (" + t + " + 1 < " + macro("TILES_PER_WG", r) + ")");
  line("// The next tile's loads, in flight while this one is computed.");
  emit_prefetch(r, false, std::vector<bool>(m_.dims.size(), true));
  close();
}

// DOUBLE_BUFFER local, before the tile loop along r: the first tile's registers into the first local tiles (the
// barrier before keeps the previous tiles of the outer loops until all work-items are done with them). Barriers
// stay out of conditionals: PoCL 3.1 crashed on a kernel with them inside `if (t == 0)`.
void TunableEmitter::emit_first_tile_stores() {
  line("// Double buffering: the first tile into the first local tiles.");
  line("barrier(CLK_LOCAL_MEM_FENCE);");
  for (int a : locally_cached()) line(cache_array(Layer::Local, a) + " = " + second_tile_array(a) + ";");
  emit_prefetch_stores(false);
  line("barrier(CLK_LOCAL_MEM_FENCE);");
}

// DOUBLE_BUFFER local, at the end of each tile along r: the next tile's registers into the local tiles not read by
// this one, then one barrier, after which every work-item may read them (and none reads this tile any more).
void TunableEmitter::emit_second_tile_stores(int r) {
  const std::string t = "t_" + dim(r);
  open("if (" + t + " + 1 < " + macro("TILES_PER_WG", r) + ")");
  line("// Double buffering: the next tile into the other local tiles.");
  for (int a : locally_cached())
    line(cache_array(Layer::Local, a) + " = " + second_tile_array(a) + " + ((" + t + " + 1) & 1)*" +
         allocated_size(Layer::Local, a) + ";");
  emit_prefetch_stores(false);
  close();
  line("barrier(CLK_LOCAL_MEM_FENCE);");
}

// The prefetch registers into the local caches (at their current tiles), each cache's box first where `boxes`
// (the copies address the caches relative to the box; the private caches read its corner).
void TunableEmitter::emit_prefetch_stores(bool boxes) {
  for (int a : locally_cached()) {
    if (boxes) emit_box(Layer::Local, a, "tile_begin_", "tile_end_", "", false);
    if (vector_prefetch(a)) {
      open_vector_copy_rounds(a);
      vector_store(Layer::Local, a, emit_copy_coordinates(a, vector_width(a)), prefetch_array(a) + "[n]");
      close();
      continue;
    }
    open_copy_rounds(a);
    const std::vector<std::string> relative = emit_copy_coordinates(a);
    line(cache_array(Layer::Local, a) + "[" + cache_offset(Layer::Local, a, relative) + "] = " + prefetch_array(a) +
         "[n];");
    close_copy_rounds(a);
  }
}

// The private caches of this work-item's private tile; `guarded`: in a step that may not be full. There, caches
// filled from a local cache that holds every work-item's whole box (private_copy_unguarded) are copied as in full
// steps: the guarded copy is the shape that NVIDIA's ptxas miscompiled (nvidia_build_options), and the unguarded one
// keeps the edge work-groups as fast as the others.
void TunableEmitter::emit_private_tile_loads(bool guarded) {
  std::vector<int> whole, clipped;
  for (size_t a = 0; a < m_.inputs.size(); ++a)
    if (cached(Layer::Private, a) != Memory::None)
      (guarded && !private_copy_unguarded(b_, c_, static_cast<int>(a)) ? clipped : whole)
          .push_back(static_cast<int>(a));
  if (!whole.empty()) {
    line(guarded
             ? "// Cache this work-item's private tile of inputs, whole (what lies past the tile's end is not used)."
             : "// Cache this work-item's private tile of inputs.");
    for (int a : whole) {
      emit_box(Layer::Private, a, "pt_begin_", "pt_end_", "", false);
      if (vector_copy(Layer::Private, a)) {
        emit_vector_private_copy(a);
        continue;
      }
      std::vector<CountedLoop> loops;
      std::vector<std::string> relative;
      for (size_t k = 0; k < b_.inputs[a].indices.size(); ++k) {
        const CachedTile& t = cached_tile(Layer::Private, a);
        loops.push_back({"b_" + str(k), cache_macro(Layer::Private, a, "EXTENT_" + str(k)), t.extents[k]});
        relative.push_back("b_" + str(k));
      }
      open_counted_loops(loops);
      emit_copy_body(Layer::Private, a, relative);
      close_loops(loops.size());
    }
  }
  if (clipped.empty()) return;
  std::vector<std::string> nonempty;
  for (size_t d = 0; d < m_.dims.size(); ++d)
    nonempty.push_back("pt_end_" + dim(static_cast<int>(d)) + " > pt_begin_" + dim(static_cast<int>(d)));
  line("// Cache this work-item's private tile of inputs (nothing where it has no elements in this step).");
  line("const int pt_nonempty = " + join(nonempty, " && ") + ";");
  for (int a : clipped) {
    // Every element of the private cache is written once per step, unconditionally: the loaded value inside the
    // private tile, zero outside it (never read). A copy guarded by `if` was miscompiled by NVIDIA's ptxas in 4 of
    // 22,000 soak configurations; this shape in 1 of them (nvidia_build_options below has the workaround).
    emit_box(Layer::Private, a, "pt_begin_", "pt_end_", "pt_nonempty");
    const std::string zero = "zero_" + cache_array(Layer::Private, a);
    line("const " + buffer_type(m_.inputs[a].buffer) + " " + zero + " = {0};");
    const size_t rank = b_.inputs[a].indices.size();
    std::vector<CountedLoop> loops;
    std::vector<std::string> relative, guard;
    for (size_t k = 0; k < rank; ++k) {
      const std::string v = "b_" + str(k);
      loops.push_back(
          {v, cache_macro(Layer::Private, a, "EXTENT_" + str(k)), cached_tile(Layer::Private, a).extents[k]});
      relative.push_back(v);
      if (box_fullness(a, k, g_.step_fullness) != Fullness::Always) {
        const int d = strided_dimension_of(a, k);
        guard.push_back((d >= 0 ? owned_offset(d, v) : v) + " < " +
                        cache_var(Layer::Private, a, "ext", static_cast<int>(k)));
      }
    }
    open_counted_loops(loops);
    emit_copy_body(Layer::Private, a, relative, join(guard, " && "), zero);
    close_loops(rank);
  }
}

}  // namespace mdh::emitter
