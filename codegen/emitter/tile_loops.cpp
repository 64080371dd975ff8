// Ids, the loops over local tiles and private steps, peeled tiles, and the private element loop.
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

// ------------------------------------------------------------------ the main kernel
std::string TunableEmitter::f_call() const {
  std::vector<std::string> args;
  for (size_t a = 0; a < m_.inputs.size(); ++a) {
    const Source s = source_of(static_cast<int>(a));
    const auto coords = access_coords(b_.inputs[a]);
    // A window gets the address of its origin; in global memory that is the stored element's, not a converted value
    // (half and bfloat16 are read through load_element, which yields a float).
    const int buffer = m_.inputs[a].buffer;
    if (m_.inputs[a].has_window())
      args.push_back(s == Source::Global ? "&" + buffer_name(buffer) + "[" + flat_offset(buffer, coords) + "]"
                                         : "&" + element_at(static_cast<int>(a), s, coords));
    else
      args.push_back(element_at(static_cast<int>(a), s, coords));
  }
  for (const auto& v : dim_vars_) args.push_back(v);
  const std::string trailing = param_and_table_args(b_);
  if (!trailing.empty()) args.push_back(trailing);
  return "mdh_f(" + join(args, ", ") + ")";
}

int64_t TunableEmitter::vector_lanes() const {
  const int64_t lanes = c_.vector_lanes;
  const int d = lanes > 1 ? vector_lanes_dimension(b_) : -1;
  if (d < 0 || c_.loop_order[2].back() != d || strided(d) || result_memory(Layer::Private) != Memory::Private ||
      g_.concat_dims.back() != d || c_.private_tile_size[d] % lanes != 0)
    return 1;
  for (size_t a = 0; a < m_.inputs.size(); ++a) {
    // One index moves with d (vector_lanes_dimension): the lanes are consecutive where it is innermost, in global
    // memory the buffer's last index, in a cache the last of its BUF_ORDER.
    int moving = -1;
    for (size_t k = 0; k < b_.inputs[a].indices.size(); ++k)
      if (b_.inputs[a].indices[k].coefficient[static_cast<size_t>(d)] != 0) moving = static_cast<int>(k);
    if (moving < 0) continue;
    const Source s = source_of(static_cast<int>(a));
    const Layer l = s == Source::PrivateTile ? Layer::Private : Layer::Local;
    const int innermost = s == Source::Global ? static_cast<int>(b_.inputs[a].indices.size()) - 1
                                              : c_.cache_dim_order[static_cast<int>(l)][a].back();
    if (innermost != moving) return 1;
  }
  return lanes;
}

// f on VECTOR_LANES consecutive elements along vector_lanes_dimension, from the first: inputs that move with it
// are loaded as vectors, the others broadcast; the indices are the first lane's (a lanewise f reads none).
std::string TunableEmitter::f_call_lanes() const {
  const int d = vector_lanes_dimension(b_);
  const std::string lanes = str(vector_lanes());
  std::vector<std::string> args;
  for (size_t a = 0; a < m_.inputs.size(); ++a) {
    const std::string element =
        element_at(static_cast<int>(a), source_of(static_cast<int>(a)), access_coords(b_.inputs[a]));
    args.push_back(moves_with(b_.inputs[a], d) ? "vload" + lanes + "(0, &" + element + ")"
                                               : "(" + buffer_type(m_.inputs[a].buffer) + lanes + ")(" + element + ")");
  }
  for (const auto& v : dim_vars_) args.push_back(v);
  const std::string trailing = param_and_table_args(b_);
  if (!trailing.empty()) args.push_back(trailing);
  return "mdh_f_lanes(" + join(args, ", ") + ")";
}

// `const int x = <linear index of ids over dims>` (row-major, later dims fastest).
void TunableEmitter::linear_index(const std::string& name, const std::vector<int>& dims, const char* id_prefix,
                                  const char* count_family) {
  std::string s = "0";
  for (size_t n = 0; n < dims.size(); ++n)
    s = n == 0 ? id_prefix + dim(dims[n])
               : "(" + s + ")*" + macro(count_family, dims[n]) + " + " + id_prefix + dim(dims[n]);
  line("const int " + name + " = " + s + ";");
}

// Work-group and work-item ids per md_hom dimension, decoded from the OpenCL ids per ORDER_OCL.
void TunableEmitter::emit_ids(int ocl_layer, const char* getter, const char* prefix, const char* count_family) {
  if (ocl_layer == 0)
    for (const FamilyEmitterHooks* hooks : family_hooks())
      if (hooks->work_group_ids && hooks->work_group_ids(family_context())) return;
  for (int o = 0; o < 3; ++o) {
    std::vector<int> mapped;
    for (size_t d = 0; d < m_.dims.size(); ++d)
      if (c_.ocl_dim[ocl_layer][d] == o) mapped.push_back(static_cast<int>(d));
    if (mapped.empty()) continue;
    const std::string rest = std::string(prefix) + "rest_" + str(o);
    line("int " + rest + " = (int)" + getter + "(" + str(o) + ");");
    for (int n = static_cast<int>(mapped.size()) - 1; n >= 0; --n) {
      const std::string id = prefix + dim(mapped[n]);
      if (n > 0) {
        line("const int " + id + " = " + rest + " % " + macro(count_family, mapped[n]) + ";");
        line(rest + " /= " + macro(count_family, mapped[n]) + ";");
      } else {
        line("const int " + id + " = " + rest + ";");
      }
    }
  }
}

// The index of the work-group's t-th local tile along d (WG_OWNERSHIP): in its block of TILES_PER_WG tiles, or
// every NUM_WG-th from its own. Either way the work-groups visit the tiles 0 .. NUM_WG*TILES_PER_WG - 1 once, so
// which tiles are full (TunableGeometry) does not depend on it; tiles past the end are empty.
std::string TunableEmitter::local_tile(int d, const std::string& t) const {
  const std::string n = dim(d);
  if (strided_tiles(d)) return t == "0" ? "wg_" + n : "(" + t + "*" + macro("NUM_WG", d) + " + wg_" + n + ")";
  return "(wg_" + n + "*" + macro("TILES_PER_WG", d) + (t == "0" ? std::string() : " + " + t) + ")";
}

// The begin of the work-group's local tile after the one that begins at tile_begin_<d>.
std::string TunableEmitter::next_tile_begin(int d) const {
  const std::string n = dim(d);
  return "tile_begin_" + n + " + " + (strided_tiles(d) ? macro("NUM_WG", d) + "*" : std::string()) +
         macro("LT_SIZE", d);
}

// A constant trip count (the work-group's block of TILES_PER_WG tiles) rather than bounds that depend on the
// group id: PoCL 3.1's optimised builds miscompile barrier-carrying loops with group-dependent bounds (wild
// indices, endless loops). Tiles past the end are empty (tile_end <= tile_begin): every guard below skips them.
// UNROLL_TILES: the loop along the unrolled dimension counts groups of TunableGeometry::tile_loop_unroll tiles, and
// its body holds one block per tile of the group (close() repeats the first), so that the compiler schedules one
// tile's loads during the previous tile's arithmetic. The generator unrolls rather than asking `#pragma unroll`:
// NVIDIA's OpenCL compiler ignored that request (plain, with a count, or opencl_unroll_hint) on this loop, whose body
// holds barriers (docs/decisions.md).
void TunableEmitter::open_tile_loop(int d) {
  const std::string n = dim(d);
  if (d == unrolled_tile_loop()) {
    const std::string u = str(g_.tile_loop_unroll);
    open("for (int tu_" + n + " = 0; tu_" + n + " < " + macro("TILES_PER_WG", d) + " / " + u + "; ++tu_" + n + ")");
    line("{");
    ++indent_;
    unrolled_ = {indent_, static_cast<size_t>(out_.tellp()), "tu_" + n + "*" + u};
    line("const " + index_type() + " t_" + n + " = " + unrolled_.counter + " + 0;");
  } else {
    open("for (" + index_type() + " t_" + n + " = 0; t_" + n + " < " + macro("TILES_PER_WG", d) + "; ++t_" + n + ")");
  }
  emit_tile_bounds(d);
}

void TunableEmitter::emit_tile_bounds(int d) {
  const std::string n = dim(d);
  line("const " + index_type() + " tile_begin_" + n + " = " + local_tile(d, "t_" + n) + "*" + macro("LT_SIZE", d) +
       ";");
  line("const " + index_type() + " tile_end_" + n + " = min(tile_begin_" + n + " + " + macro("LT_SIZE", d) + ", " +
       macro("EXTENT", d) + ");");
}

// The unrolled tile loop along TunableGeometry::peeled_tile_loop: every group of tiles but the last in a loop whose
// copies of `tile_body` know their tiles full (no tests, no guards), then the last group, whose last tile alone
// chooses between full and guarded code. Where some tiles are short or empty, unrolling with a test in every copy
// was slower than not unrolling, and peeled it is faster (docs/decisions.md).
void TunableEmitter::emit_peeled_tile_loop(int d, const std::function<void()>& tile_body) {
  const std::string n = dim(d), u = str(g_.tile_loop_unroll), groups = macro("TILES_PER_WG", d) + " / " + u;
  const std::string counter = "tu_" + n + "*" + u;
  const TunableGeometry tested = g_;
  g_ = tunable_geometry(b_, c_, d);
  std::ostringstream text;  // the body of a tile known to be full, at the indentation of the loop's copies
  std::swap(out_, text);
  indent_ += 2;
  line("const " + index_type() + " t_" + n + " = " + counter + " + 0;");
  emit_tile_bounds(d);
  tile_body();
  indent_ -= 2;
  std::swap(out_, text);
  const std::string full = text.str();
  if (g_.tiles_per_wg[d] > g_.tile_loop_unroll) {
    line("// Along " + n + " a work-group's tiles are full but for its last one: the groups of " + u +
         " tiles before the last without tests.");
    open("for (int tu_" + n + " = 0; tu_" + n + " < " + groups + " - 1; ++tu_" + n + ")");
    for (int64_t k = 0; k < g_.tile_loop_unroll; ++k) emit_tile_copy(full, counter, k);
    close();
  }
  g_ = tested;
  line("// The last group of tiles: its last tile may be short or empty.");
  line("{");
  ++indent_;
  line("const int tu_" + n + " = " + groups + " - 1;");
  for (int64_t k = 0; k + 1 < g_.tile_loop_unroll; ++k) emit_tile_copy(full, counter, k);
  line("{");
  ++indent_;
  line("const " + index_type() + " t_" + n + " = " + counter + " + " + str(g_.tile_loop_unroll - 1) + ";");
  emit_tile_bounds(d);
  tile_body();
  close();
  close();
}

std::string TunableEmitter::output_offset() const {
  const BoundAccess& out = b_.output;
  std::vector<std::string> coords;
  for (const auto& index : out.indices) coords.push_back(affine(index.coefficient, dim_vars_, index.offset));
  return flat_offset(out.buffer, coords);
}

std::string TunableEmitter::point_index() const {
  std::string s = "0";
  for (size_t n = 0; n < g_.concat_dims.size(); ++n) {
    const int d = g_.concat_dims[n];
    s = n == 0 ? dim(d) : "(" + s + ")*" + macro("EXTENT", d) + " + " + dim(d);
  }
  return s;
}

// 5. Private layer: f on every element of this work-item's private tile, in loops of constant trip count (not
// work-item dependent bounds: unrollable, and PoCL's vectorising work-group method, loopvec, compiles them
// correctly). `guarded`: in a step that may not be full, each element is tested against the clipped private tile
// along the dimensions whose steps are not always full.
void TunableEmitter::emit_private_elements(bool guarded) {
  // VECTOR_LANES: full steps compute the innermost loop's elements a vector at a time (vector_lanes says where).
  const int64_t lanes = guarded ? 1 : vector_lanes();
  line(lanes > 1 ? "// Private layer: f on every element of the private tile, " + str(lanes) + " lanes at a time."
                 : "// Private layer: f on every element of the private tile.");
  std::vector<CountedLoop> loops;
  for (int d : c_.loop_order[2]) loops.push_back({"e_" + dim(d), macro("PT_SIZE", d), c_.private_tile_size[d]});
  loops.back().step = lanes;
  open_counted_loops(loops);
  std::vector<std::string> in_tile;
  for (size_t d = 0; d < m_.dims.size(); ++d) {
    const std::string n = dim(static_cast<int>(d));
    line("const " + index_type() + " " + n + " = pt_begin_" + n + " + " + owned_offset(static_cast<int>(d), "e_" + n) +
         ";");
    if (guarded && g_.step_fullness[d] != Fullness::Always) in_tile.push_back(n + " < pt_end_" + n);
  }
  if (!in_tile.empty()) open("if (" + join(in_tile, " && ") + ")");
  std::vector<std::string> per_dim;
  for (int d : g_.concat_dims) per_dim.push_back("ps_" + dim(d) + "*" + macro("PT_SIZE", d) + " + e_" + dim(d));
  line("const int slot = " + slot_of(per_dim) + ";");
  if (lanes > 1) {
    const std::string vector = "res_pv[slot / " + str(lanes) + "]";
    line(vector + " = " +
         (has_reduction() ? lanewise_combine(m_, g_.reduction_dims.front(), vector, f_call_lanes()) : f_call_lanes()) +
         ";");
  } else if (has_reduction())
    line(res_p("slot") + " = " + combine(res_p("slot"), f_call()) + ";");
  else
    line(res_p("slot") + " = " + f_call() + ";");
  if (!in_tile.empty()) close();
  close_loops(loops.size());
}

// The body of the innermost reduction tile loop: the local tile's caches (`prefetch`: the dimension DOUBLE_BUFFER
// pipelines, -1 for none), its private steps and (CMB_RES L) the work-items' combine.
void TunableEmitter::emit_local_tile(int prefetch) {
  if (prefetch >= 0)
    emit_prefetched_local_tile_loads(prefetch);
  else
    emit_local_tile_loads();

  // 4. Local layer: private steps.
  // A step is full when all of it lies in the tile; then so does every work-item's private tile in it, and the
  // private caches and the elements need no guard. Where a full tile has full steps only (tiles_decide_steps), the
  // test is whether the tile is full, made once outside all step loops. Elsewhere it depends on the tile and on the
  // step counters of the dimensions that are sometimes full, so it is made once inside their loops and outside the
  // loops of the other dimensions (whose steps are all full or all guarded), unless a work-item combine after each
  // step puts barriers in those loops.
  const std::vector<int>& step_order = c_.loop_order[1];
  const bool combine_per_step = g_.combines_work_items() && c_.combine_layer == Layer::Private;
  size_t split = combine_per_step ? step_order.size() : 0;
  for (size_t n = 0; n < step_order.size(); ++n)
    if (g_.step_fullness[step_order[n]] == Fullness::Sometimes) split = std::max(split, n + 1);
  auto open_step_loops = [&](size_t from, size_t to) {
    for (size_t n = from; n < to; ++n) {
      const std::string ps = "ps_" + dim(step_order[n]);
      if (c_.unroll_steps == UnrollSteps::on && g_.private_steps[step_order[n]] > 1) line("#pragma unroll");
      open("for (int " + ps + " = 0; " + ps + " < " + macro("PRIVATE_STEPS", step_order[n]) + "; ++" + ps + ")");
    }
  };
  // The private tiles of the steps in loops from `from` on: unguarded, or guarded where steps are not always full.
  auto emit_steps = [&](size_t from, bool guarded) {
    open_step_loops(from, step_order.size());
    for (size_t d = 0; d < m_.dims.size(); ++d) {
      const std::string n = dim(static_cast<int>(d));
      // A block: [pt_begin, pt_end). Strided: pt_begin + e*NUM_WI for e < PT_SIZE, all before pt_end (the step's
      // end, or the tile's where that comes first).
      const int di = static_cast<int>(d);
      const std::string step_begin = "tile_begin_" + n + " + ps_" + n + "*" + macro("STEP", di);
      line("const " + index_type() + " pt_begin_" + n + " = " + step_begin + " + wi_" + n +
           (!strided(di)         ? "*" + macro("PT_SIZE", di)
            : run_length(di) > 1 ? "*" + str(run_length(di))
                                 : "") +
           ";");
      const std::string end =
          strided(di) ? step_begin + " + " + macro("STEP", di) : "pt_begin_" + n + " + " + macro("PT_SIZE", di);
      line("const " + index_type() + " pt_end_" + n + " = " + (guarded ? "min(" + end + ", tile_end_" + n + ")" : end) +
           ";");
    }
    emit_private_tile_loads(guarded);
    emit_private_elements(guarded);
    close_loops(step_order.size() - from);
  };
  line("// Local layer: this work-item's private tiles of the local tile.");
  if (g_.tiles_decide_steps) {
    // Where a step divides the local tile, a full tile has only full steps. One test per tile (uniform in the
    // work-group) then chooses between all steps unguarded and all steps guarded: the full tiles' steps run as
    // one stretch of code without branches, whose loads the compiler can issue together (docs/decisions.md).
    // Along dimensions whose edge points are computed (TunableGeometry::edge_points_computed), an edge tile runs
    // the full tiles' code too; only the write-back tests its points.
    std::vector<std::string> full;
    for (size_t d = 0; d < m_.dims.size(); ++d)
      if (g_.step_fullness[d] == Fullness::Sometimes && !g_.edge_points_computed[d])
        full.push_back(local_tile_is_full(static_cast<int>(d)));
    if (full.empty())
      emit_steps(0, false);
    else
      peel({{Fullness::Sometimes, join(full, " && ")}}, [&](bool guarded) { emit_steps(0, guarded); });
    split = 0;  // no step loop outside the test
  } else {
    open_step_loops(0, split);
    std::vector<FullTest> step_tests;
    for (size_t d = 0; d < m_.dims.size(); ++d) {
      const std::string n = dim(static_cast<int>(d));
      step_tests.push_back({g_.step_fullness[d], "tile_begin_" + n + " + (ps_" + n + " + 1)*" +
                                                     macro("STEP", static_cast<int>(d)) + " <= tile_end_" + n});
    }
    peel(step_tests, [&](bool guarded) { emit_steps(split, guarded); });
  }
  if (combine_per_step) emit_work_item_combine(true);
  close_loops(split);  // private steps
  if (g_.combines_work_items() && c_.combine_layer == Layer::Local) emit_work_item_combine(false);
}

}  // namespace mdh::emitter
