// Cache copies that move vectors (VECTOR_WIDTH).
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "support/error.h"

namespace mdh::emitter {

bool TunableEmitter::reads_local_cache(Layer l, int a) const {
  return l == Layer::Private && cached(Layer::Local, a) != Memory::None;
}

// The buffer dimension along which the copy into layer l's cache of access a moves vectors: the buffer's unit-stride
// dimension, or for a private cache filled from a local cache the local cache's innermost dimension (BUF_ORDER:
// a transposed local cache has its consecutive elements along another buffer dimension).
size_t TunableEmitter::vector_dimension(Layer l, int a) const {
  return reads_local_cache(l, a) ? static_cast<size_t>(cached_tile(Layer::Local, a).dim_order.back()) : unit_stride(a);
}

// Whether the copy into layer l's cache of access a moves vectors. A copy whose rows (the full box's extent along
// the vector dimension) are not whole vectors moves elements; so does a private copy along a strided dimension
// whose runs (STRIDED_RUN) are not, for only the elements of one run are consecutive.
bool TunableEmitter::vector_copy(Layer l, int a) const {
  if (vector_width(a) <= 1 || cached(l, a) == Memory::None) return false;
  const size_t k = vector_dimension(l, a);
  if (cached_tile(l, a).extents[k] % vector_width(a) != 0) return false;
  const int d = l == Layer::Private ? strided_dimension_of(a, k) : -1;
  return d < 0 || run_length(d) % vector_width(a) == 0;
}

// The local copy counts whole vectors per work-item (a loop of constant trip count) where the work-group divides
// them; the prefetch registers of DOUBLE_BUFFER hold vectors only then (else the same bytes as elements).
bool TunableEmitter::even_vector_copy(int a) const {
  return (cached_tile(Layer::Local, a).elements() / vector_width(a)) % g_.work_group_size == 0;
}

// Whether every vector that the unguarded copy into layer l's cache of access a reads starts at a multiple of the
// width in its source: the buffer (OpenCL allocates buffers aligned to the largest type, 128 bytes) or the local
// cache (declared aligned). Then the load is one aligned vector access (128-bit loads on GPUs); where the view's
// offset, a window's halo, a row length or a tile size breaks it, vloadN loads, which needs only the element's
// alignment. A box starts at offset + window_lo + sum c*tile_begin (c >= 0; a negative coefficient starts it at a
// tile's end): tile starts are multiples of LT_SIZE, private tiles of PT_SIZE and of the step NUM_WI*PT_SIZE.
// `assumptions`: the conditions on the tuning macros that this relies on, for emit_macros's #error lines.
bool TunableEmitter::vector_source_aligned(Layer l, int a, std::vector<std::string>* assumptions) const {
  const int64_t v = vector_width(a);
  const size_t vk = vector_dimension(l, a);
  const BoundIndex& index = b_.inputs[a].indices[vk];
  if (!reads_local_cache(l, a)) {
    const auto& extents = b_.buffer_extents[m_.inputs[a].buffer];
    if (extents.size() > 1 && extents.back() % v != 0) return false;
    if ((index.offset + (index.has_window ? index.window_lo : 0)) % v != 0) return false;
  }
  std::vector<const char*> tile_families;
  if (!reads_local_cache(l, a)) tile_families.push_back("LT_SIZE");
  if (l == Layer::Private) tile_families.push_back("PT_SIZE");
  std::vector<std::string> conditions;
  if (reads_local_cache(l, a)) {  // the local cache's rows start aligned where they are whole vectors
    if (cached_tile(Layer::Local, a).extents[vk] % v != 0 || cached_tile(Layer::Local, a).row_pad % v != 0)
      return false;
    conditions.push_back(cache_macro(Layer::Local, a, "EXTENT_" + str(vk)) + " % " + str(v) + " != 0");
  }
  for (size_t d = 0; d < m_.dims.size(); ++d) {
    const int64_t c = index.coefficient[d];
    if (c == 0) continue;
    if (c < 0) return false;
    const int di = static_cast<int>(d);
    for (const char* family : tile_families) {
      const int64_t size = std::string(family) == "LT_SIZE" ? c_.local_tile_size[d] : c_.private_tile_size[d];
      if ((c * size) % v != 0) return false;
      conditions.push_back("(" + (c == 1 ? "" : str(c) + "*") + macro(family, di) + ") % " + str(v) + " != 0");
    }
  }
  if (assumptions) assumptions->insert(assumptions->end(), conditions.begin(), conditions.end());
  return true;
}

// A vector of access a for layer l's cache: its first element at the absolute buffer coordinates `absolute`.
std::string TunableEmitter::vector_load(Layer l, int a, const std::vector<std::string>& absolute) const {
  std::string pointer;
  if (reads_local_cache(l, a)) {
    std::vector<std::string> relative;
    for (size_t k = 0; k < absolute.size(); ++k)
      relative.push_back("(" + absolute[k] + " - " + cache_var(Layer::Local, a, "lo", static_cast<int>(k)) + ")");
    pointer = cache_array(Layer::Local, a) + " + " + cache_offset(Layer::Local, a, relative);
  } else {
    const int buffer = m_.inputs[a].buffer;
    pointer = buffer_name(buffer) + " + " + flat_offset(buffer, absolute);
  }
  if (vector_source_aligned(l, a))
    return "*(" + std::string(reads_local_cache(l, a) ? "__local" : "__global") + " const " + vector_type(a) + "*)(" +
           pointer + ")";
  return "vload" + str(vector_width(a)) + "(0, " + pointer + ")";
}

// Stores `value` (a vector) into layer l's cache of access a, its first element at `relative`: one vector store
// into a local cache that keeps the unit-stride dimension innermost, aligned where its rows (padded by LOCAL_PAD)
// are whole vectors, so that each starts aligned, else with vstoreN; element by element into any other.
void TunableEmitter::vector_store(Layer l, int a, std::vector<std::string> relative, const std::string& value) {
  if (l == Layer::Local && cached_tile(l, a).dim_order.back() == static_cast<int>(unit_stride(a))) {
    const std::string pointer = cache_array(l, a) + " + " + cache_offset(l, a, relative);
    if (cached_tile(l, a).row_pad % vector_width(a) == 0)
      line("*(__local " + vector_type(a) + "*)(" + pointer + ") = " + value + ";");
    else
      line("vstore" + str(vector_width(a)) + "(" + value + ", 0, " + pointer + ");");
    return;
  }
  const size_t k = vector_dimension(l, a);
  const std::string first = relative[k];
  for (int64_t j = 0; j < vector_width(a); ++j) {
    relative[k] = j == 0 ? first : first + " + " + str(j);
    line(cache_array(l, a) + "[" + cache_offset(l, a, relative) + "] = " + value + component(j) + ";");
  }
}

// The rounds in which each work-item copies its (SIZE / width) / WG_SIZE vectors `c` of a local cache.
void TunableEmitter::open_vector_copy_rounds(int a) {
  const int64_t v = vector_width(a);
  open_counted_loops({{"n", "(" + cache_macro(Layer::Local, a, "SIZE") + " / (" + str(v) + "*WG_SIZE))",
                       cached_tile(Layer::Local, a).elements() / v / g_.work_group_size}});
  line("const int c = wi_lin + n*WG_SIZE;");
}

// The full box of a local cache, vector by vector: consecutive work-items copy consecutive vectors.
void TunableEmitter::emit_vector_local_copy(int a) {
  if (even_vector_copy(a)) {
    open_vector_copy_rounds(a);
  } else {
    open("for (int c = wi_lin; c < " + cache_macro(Layer::Local, a, "SIZE") + " / " + str(vector_width(a)) +
         "; c += WG_SIZE)");
  }
  const std::vector<std::string> relative = emit_copy_coordinates(a, vector_width(a));
  const std::vector<std::string> absolute = box_coordinates(Layer::Local, a, relative);
  const std::string v = "v_" + access_id(a);
  line("const " + vector_type(a) + " " + v + " = " + vector_load(Layer::Local, a, absolute) + ";");
  vector_store(Layer::Local, a, relative, v);
  close();
}

// The full box of a private cache, vector by vector along its vector dimension (the innermost loop).
void TunableEmitter::emit_vector_private_copy(int a) {
  const CachedTile& t = cached_tile(Layer::Private, a);
  const size_t along = vector_dimension(Layer::Private, a);
  const int64_t v = vector_width(a);
  std::vector<CountedLoop> loops;
  std::vector<std::string> relative;
  for (size_t k = 0; k < t.extents.size(); ++k) {
    relative.push_back("b_" + str(k));
    if (k != along) loops.push_back({"b_" + str(k), cache_macro(Layer::Private, a, "EXTENT_" + str(k)), t.extents[k]});
  }
  loops.push_back({"bv", "(" + cache_macro(Layer::Private, a, "EXTENT_" + str(along)) + " / " + str(v) + ")",
                   t.extents[along] / v});
  open_counted_loops(loops);
  line("const int b_" + str(along) + " = bv*" + str(v) + ";");
  const std::vector<std::string> absolute = box_coordinates(Layer::Private, a, relative);
  const std::string value = "v_" + access_id(a);
  line("const " + vector_type(a) + " " + value + " = " + vector_load(Layer::Private, a, absolute) + ";");
  vector_store(Layer::Private, a, relative, value);
  close_loops(loops.size());
}

const CachedTile& TunableEmitter::cached_tile(Layer l, int a) const {
  for (const CachedTile& t : g_.cached_tiles)
    if (t.layer == l && t.access == a) return t;
  MDH_INTERNAL_ASSERT(false, "no cached tile of that layer and access");
  return g_.cached_tiles.front();
}

}  // namespace mdh::emitter
