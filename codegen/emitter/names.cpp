// The emitter's names (macros, caches, slots) and its text helpers (indentation, offsets, the summary).
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/input_packing.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "codegen/vector_lanes.h"
#include "support/error.h"

namespace mdh::emitter {

std::string TunableEmitter::access_id(int a) const {
  std::string s = input_access_name(m_, a);
  for (char& ch : s)
    if (ch == '@') ch = '_';
  return s;
}

std::string TunableEmitter::cache_macro(Layer l, int a, const std::string& what) const {
  return std::string("CACHE_") + layer_name(l) + "_" + access_id(a) + "_" + what;
}

// A cache's layout (after its EXTENT macros): the strides that BUF_ORDER gives, its SIZE in elements, and with
// LOCAL_PAD the padded ROW and the ALLOCATED elements of its array.
void TunableEmitter::emit_cache_layout(const CachedTile& t) {
  const std::string name = cache_macro(t.layer, t.access, "");
  if (t.row_pad > 0) {
    define(name + "PAD", str(t.row_pad));
    define(name + "ROW", "(" + name + "EXTENT_" + str(t.dim_order.back()) + " + " + name + "PAD)");
  }
  for (size_t pos = 0; pos < t.dim_order.size(); ++pos) {
    std::vector<std::string> inner;
    for (size_t later = pos + 1; later < t.dim_order.size(); ++later)
      inner.push_back(padded_extent(t, t.dim_order[later]));
    define(name + "STRIDE_" + str(t.dim_order[pos]), inner.empty() ? "1" : "(" + join(inner, " * ") + ")");
  }
  std::vector<std::string> extents, allocated;
  for (size_t k = 0; k < t.extents.size(); ++k) {
    extents.push_back(name + "EXTENT_" + str(k));
    allocated.push_back(padded_extent(t, static_cast<int>(k)));
  }
  define(name + "SIZE", extents.empty() ? "1" : "(" + join(extents, " * ") + ")");
  if (t.row_pad > 0) define(name + "ALLOCATED", "(" + join(allocated, " * ") + ")");
}

// A cache's extent along buffer dimension k as laid out: its innermost row padded by LOCAL_PAD.
std::string TunableEmitter::padded_extent(const CachedTile& t, int k) const {
  return t.row_pad > 0 && k == t.dim_order.back() ? cache_macro(t.layer, t.access, "ROW")
                                                  : cache_macro(t.layer, t.access, "EXTENT_" + str(k));
}

// The elements a cache's array holds: SIZE, or with LOCAL_PAD its padded rows.
std::string TunableEmitter::allocated_size(Layer l, int a) const {
  return cache_macro(l, a, cached_tile(l, a).row_pad > 0 ? "ALLOCATED" : "SIZE");
}

std::string TunableEmitter::cache_array(Layer l, int a) const {
  return std::string(l == Layer::Local ? "cache_l_" : "cache_p_") + access_id(a);
}

std::string TunableEmitter::cache_var(Layer l, int a, const std::string& what, int k) const {
  return std::string(l == Layer::Local ? "cl_" : "cp_") + access_id(a) + "_" + what + "_" + str(k);
}

// STORE_WIDTH where it applies (TunableGeometry::store_run) and divides the work-item's run of consecutive results;
// else 1.
int64_t TunableEmitter::store_width() const {
  const int64_t width = c_.store_width;
  return width > 1 && g_.store_run > 0 && g_.store_run % width == 0 ? width : 1;
}

// The offset from pt_begin_<d> of element `e` (0 .. PT_SIZE - 1) of this work-item's private tile along d: e in
// a block; e*NUM_WI strided; run by run (e / RUN)*(RUN*NUM_WI) + e % RUN in runs of RUN elements.
std::string TunableEmitter::owned_offset(int d, const std::string& e) const {
  const bool plain = e.find_first_of(" */%+-()") == std::string::npos;
  const std::string x = plain ? e : "(" + e + ")";
  if (!strided(d)) return e;
  const int64_t run = c_.strided_run_of(d);
  if (run == 1) return x + "*" + macro("NUM_WI", d);
  return "(" + x + " / " + str(run) + ")*(" + str(run) + "*" + macro("NUM_WI", d) + ") + " + x + " % " + str(run);
}

// The md_hom dimension that moves buffer index k of access a under strided ownership (-1: none). The space keeps
// private caches along strided dimensions to plain indices (indexed_plainly): the cache holds one element per
// owned index, so its coordinate along k is the element's number e_<d>, not its distance from pt_begin.
int TunableEmitter::strided_dimension_of(int a, size_t k) const {
  for (size_t d = 0; d < m_.dims.size(); ++d)
    if (b_.inputs[a].indices[k].coefficient[d] != 0 && strided(static_cast<int>(d))) return static_cast<int>(d);
  return -1;
}

Source TunableEmitter::source_of(int a) const {
  if (cached(Layer::Private, a) != Memory::None) return Source::PrivateTile;
  if (cached(Layer::Local, a) != Memory::None) return Source::LocalTile;
  return Source::Global;
}

void TunableEmitter::open(const std::string& text) {
  line(text + " {");
  ++indent_;
}

void TunableEmitter::close() {
  --indent_;
  // UNROLL_TILES: the first copy of the unrolled tile loop's body ends here; the others follow, each its own block
  // (its own t_ constant and tile bounds), and then the loop over groups of tiles, which the caller closes as one
  // loop with its body.
  const bool copies_follow = unrolled_.indent >= 0 && indent_ == unrolled_.indent - 1;
  const std::string body = copies_follow ? out_.str().substr(unrolled_.body_start) : "";
  line("}");
  if (!copies_follow) return;
  for (int64_t k = 1; k < g_.tile_loop_unroll; ++k) emit_tile_copy(body, unrolled_.counter, k);
  unrolled_.indent = -1;
  --indent_;
  line("}");
}

// Tile k of a group of UNROLL_TILES tiles as a block of its own: `body`, the code of the group's first tile, whose
// tile index is `counter + 0`.
void TunableEmitter::emit_tile_copy(const std::string& body, const std::string& counter, int64_t k) {
  const std::string first = counter + " + 0;";
  std::string copy = body;
  copy.replace(copy.find(first), first.size(), counter + " + " + str(k) + ";");
  line("{");
  out_ << copy;
  line("}");
}

std::string TunableEmitter::summary() {
  std::ostringstream s;
  auto dims_of = [&](const std::vector<int>& order) {
    std::vector<std::string> names;
    for (int d : order) names.push_back(dim(d));
    return join(names, ",");
  };
  s << "//   LOOP_ORDER G: " << dims_of(c_.loop_order[0]) << "  L: " << dims_of(c_.loop_order[1])
    << "  P: " << dims_of(c_.loop_order[2]) << '\n';
  s << "//   ORDER_OCL  G:";
  for (size_t d = 0; d < m_.dims.size(); ++d) s << ' ' << dim(d) << "->" << c_.ocl_dim[0][d];
  s << "  L:";
  for (size_t d = 0; d < m_.dims.size(); ++d) s << ' ' << dim(d) << "->" << c_.ocl_dim[1][d];
  s << '\n';
  for (size_t a = 0; a < m_.inputs.size(); ++a) {
    s << "//   MEM_INP " << input_access_name(m_, static_cast<int>(a)) << ": L " << memory_name(cached(Layer::Local, a))
      << ", P " << memory_name(cached(Layer::Private, a)) << "; BUF_ORDER L " << join_ints(c_.cache_dim_order[1][a])
      << ", P " << join_ints(c_.cache_dim_order[2][a]) << '\n';
  }
  s << "//   MEM_RES P: " << memory_name(result_memory(Layer::Private))
    << "  L: " << memory_name(result_memory(Layer::Local)) << "  G: global;  CMB_RES: " << layer_name(c_.combine_layer);
  if (c_.work_item_combine == WorkItemCombine::tree) s << "  CMB_WI: tree";
  if (const int64_t lanes = vector_lanes(); lanes > 1)
    s << "\n//   VECTOR_LANES: " << lanes << " results of " << dim(vector_lanes_dimension(b_)) << " at a time";
  if (c_.work_item_combine == WorkItemCombine::shuffle)
    s << "  CMB_WI: shuffle in sub-groups of " << subgroup_width_
      << (nvidia_driver_ ? " (shfl.sync)" : " (through memory)");
  if (g_.accumulates_atomically())
    s << "\n//   WG_COMBINE atomic: the work-groups add their partial results into accumulators, which the last "
         "work-group of each `++` tile set copies";
  else if (g_.folds_in_last_group())
    s << "\n//   WG_COMBINE last: the last work-group of each `++` tile set folds the partial results ("
      << g_.fold_shares << " shares per point)";
  std::vector<std::string> strided_dims;
  for (size_t d = 0; d < m_.dims.size(); ++d)
    if (strided(static_cast<int>(d)))
      strided_dims.push_back(dim(static_cast<int>(d)) + (run_length(static_cast<int>(d)) > 1
                                                             ? " (runs of " + str(run_length(static_cast<int>(d))) + ")"
                                                             : ""));
  if (!strided_dims.empty()) s << "\n//   OWNERSHIP strided: " << join(strided_dims, ",");
  std::vector<std::string> tile_strided_dims;
  for (size_t d = 0; d < m_.dims.size(); ++d)
    if (strided_tiles(static_cast<int>(d))) tile_strided_dims.push_back(dim(static_cast<int>(d)));
  if (!tile_strided_dims.empty())
    s << "\n//   WG_OWNERSHIP strided: " << join(tile_strided_dims, ",") << " (every NUM_WG-th local tile)";
  for (const FamilyEmitterHooks* hooks : family_hooks())
    if (hooks->summary_note)
      if (const std::string note = hooks->summary_note(family_context()); !note.empty()) s << "\n//   " << note;
  std::vector<std::string> widths;
  for (size_t a = 0; a < m_.inputs.size(); ++a) {
    const int ai = static_cast<int>(a);
    if (vector_width(ai) <= 1) continue;
    std::vector<std::string> copies;
    for (Layer l : {Layer::Local, Layer::Private})
      if (vector_copy(l, ai))
        copies.push_back(std::string(l == Layer::Local ? "L " : "P ") +
                         (vector_source_aligned(l, ai) ? "aligned" : "vloadN"));
    widths.push_back(input_access_name(m_, ai) + " " + str(vector_width(ai)) +
                     (copies.empty() ? "" : " (" + join(copies, ", ") + ")"));
  }
  if (!widths.empty()) s << "\n//   VECTOR_WIDTH: " << join(widths, ", ");
  std::vector<std::string> pads;
  for (const CachedTile& t : g_.cached_tiles)
    if (t.row_pad > 0) pads.push_back(input_access_name(m_, t.access) + " " + str(t.row_pad));
  if (!pads.empty()) s << "\n//   LOCAL_PAD (elements after each row of the local cache): " << join(pads, ", ");
  if (c_.unroll_steps == UnrollSteps::on &&
      std::any_of(g_.private_steps.begin(), g_.private_steps.end(), [](int64_t steps) { return steps > 1; }))
    s << "\n//   UNROLL_STEPS: the loops of private steps unrolled";
  if (unrolled_tile_loop() >= 0)
    s << "\n//   UNROLL_TILES: the loop over local tiles along " << dim(unrolled_tile_loop()) << " unrolled by "
      << g_.tile_loop_unroll
      << (g_.peeled_tile_loop >= 0 ? ", its last tile alone tested for fullness (WG_OWNERSHIP strided)" : "");
  if (c_.double_buffer != DoubleBuffer::off)
    s << "\n//   DOUBLE_BUFFER: "
      << (g_.prefetch_dimension < 0 ? std::string("no reduction tile loop to pipeline at these sizes")
                                    : "the next local tile along " + dim(g_.prefetch_dimension) + " in registers" +
                                          (two_local_tiles() ? ", stored into a second local tile" : ""));
  std::vector<std::string> packed;
  for (size_t a = 0; a < m_.inputs.size(); ++a)
    if (packs_input(c_, static_cast<int>(a)))
      packed.push_back(buffer_name(m_.inputs[a].buffer) + " (mdh_pack_" + buffer_name(m_.inputs[a].buffer) + ")");
  if (!packed.empty())
    s << "\n//   PACK_INP: read from copies with the index moving with the output's unit-stride dimension last: "
      << join(packed, ", ");
  return s.str();
}

std::string TunableEmitter::join_ints(const std::vector<int>& v) {
  std::vector<std::string> parts;
  for (int x : v) parts.push_back(str(x));
  return join(parts, ",");
}

// Row-major strides of a buffer.
std::vector<int64_t> TunableEmitter::buffer_strides(int buffer) const {
  const auto& extents = b_.buffer_extents[buffer];
  std::vector<int64_t> strides(extents.size(), 1);
  for (int k = static_cast<int>(extents.size()) - 2; k >= 0; --k) strides[k] = strides[k + 1] * extents[k + 1];
  return strides;
}

// Flat offset into a buffer for buffer coordinates given as expressions.
std::string TunableEmitter::flat_offset(int buffer, const std::vector<std::string>& coords) const {
  const auto strides = buffer_strides(buffer);
  std::vector<std::string> terms;
  for (size_t k = 0; k < coords.size(); ++k)
    terms.push_back(strides[k] == 1 ? "(" + coords[k] + ")" : "(" + coords[k] + ")*" + str(strides[k]));
  return terms.empty() ? "0" : join(terms, " + ");
}

// Buffer coordinates of access `a` at the current point (the dimension variables), at the window origin.
std::vector<std::string> TunableEmitter::access_coords(const BoundAccess& access) const {
  std::vector<std::string> coords;
  for (const auto& index : access.indices)
    coords.push_back(affine(index.coefficient, dim_vars_, index.offset + (index.has_window ? index.window_lo : 0)));
  return coords;
}

// Index into a cached tile of buffer coordinates relative to the tile's lowest corner.
std::string TunableEmitter::cache_offset(Layer l, int a, const std::vector<std::string>& relative) const {
  std::vector<std::string> terms;
  for (size_t k = 0; k < relative.size(); ++k)
    terms.push_back("(" + relative[k] + ")*" + cache_macro(l, a, "STRIDE_" + str(k)));
  std::string base =
      (l == Layer::Private && cached(l, a) == Memory::Local) ? "wi_lin*" + cache_macro(l, a, "SIZE") + " + " : "";
  return base + (terms.empty() ? "0" : join(terms, " + "));
}

// The element at absolute buffer coordinates, read from `source`.
std::string TunableEmitter::element_at(int a, Source source, const std::vector<std::string>& coords) const {
  const int buffer = m_.inputs[a].buffer;
  if (source == Source::Global)
    return load_element(m_.buffers[buffer].type, buffer_name(buffer), flat_offset(buffer, coords));
  const Layer l = source == Source::LocalTile ? Layer::Local : Layer::Private;
  std::vector<std::string> relative;
  for (size_t k = 0; k < coords.size(); ++k) {
    const int d = l == Layer::Private ? strided_dimension_of(a, k) : -1;
    relative.push_back(d >= 0 ? "e_" + dim(d)
                              : "(" + coords[k] + " - " + cache_var(l, a, "lo", static_cast<int>(k)) + ")");
  }
  return cache_array(l, a) + "[" + cache_offset(l, a, relative) + "]";
}

std::vector<std::optional<WindowBinding>> TunableEmitter::window_bindings() const {
  std::vector<std::optional<WindowBinding>> windows;
  for (size_t a = 0; a < m_.inputs.size(); ++a) {
    if (!m_.inputs[a].has_window()) {
      windows.push_back(std::nullopt);
      continue;
    }
    WindowBinding w;
    const Source s = source_of(static_cast<int>(a));
    const size_t rank = b_.inputs[a].indices.size();
    if (s == Source::Global) {
      w.address_space = "__global";
      for (int64_t stride : buffer_strides(m_.inputs[a].buffer)) w.strides.push_back(str(stride));
    } else {
      const Layer l = s == Source::LocalTile ? Layer::Local : Layer::Private;
      w.address_space = cached(l, static_cast<int>(a)) == Memory::Local ? "__local" : "__private";
      for (size_t k = 0; k < rank; ++k) w.strides.push_back(cache_macro(l, static_cast<int>(a), "STRIDE_" + str(k)));
    }
    windows.push_back(w);
  }
  return windows;
}

}  // namespace mdh::emitter
