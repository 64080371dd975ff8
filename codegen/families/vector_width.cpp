// VECTOR_WIDTH and STORE_WIDTH: vector copies of cached inputs and vector stores of results.
#include <algorithm>

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// VECTOR_WIDTH's range: float16 is OpenCL's widest vector, what AVX-512 holds.
constexpr int64_t kMaxVectorWidth = 16;
// OpenCL's vector types have 2, 4, 8 or 16 elements (3 is laid out as 4): a width that divides kMaxVectorWidth. Read
// by the width's parameter alone, so the tuner filters its values rather than rejecting draws.
Condition is_vector_width(const Expr& width) {
  return ceil_div(Expr::constant(kMaxVectorWidth), width) * width == Expr::constant(kMaxVectorWidth);
}
// The widest vector (a power of two up to kMaxVectorWidth) within a buffer row of `row` elements: VECTOR_WIDTH's and
// STORE_WIDTH's largest value (a wider one would never be used).
int64_t widest_vector(int64_t row) {
  int64_t width = 1;
  while (width * 2 <= std::min(row, kMaxVectorWidth)) width *= 2;
  return width;
}

// Half and bfloat16 elements are converted one at a time on load and store (codegen/preamble.h load_element), so
// VECTOR_WIDTH and STORE_WIDTH do not exist for buffers of them: their copies and stores move elements.
bool stored_as_computed(const ElementType& type) {
  return type.is_struct() || !is_storage_only(type.scalar);
}

// Whether an input access can move vectors: scalar elements (OpenCL has no vectors of structs) stored as they are
// computed, and a unit-stride index that spans more than one element in a tile (it moves with a dimension, or reads a
// window).
bool vectorisable(const BoundMdh& bound, int access) {
  const Mdh& mdh = *bound.mdh;
  const ElementType& type = mdh.buffers[mdh.inputs[access].buffer].type;
  if (type.is_struct() || !stored_as_computed(type)) return false;
  const auto& indices = bound.inputs[access].indices;
  if (indices.empty()) return false;
  const BoundIndex& unit_stride = indices.back();
  if (unit_stride.has_window && unit_stride.window_extent > 1) return true;
  for (int64_t c : unit_stride.coefficient)
    if (c != 0) return true;
  return false;
}

}  // namespace

MDH_FAMILY_MODULE(vector_width, 120);

void add_vector_width(std::vector<ParameterFamily>& table) {
  {
    ParameterFamily f;
    f.name = "VECTOR_WIDTH";
    f.scope = FamilyScope::input_access;
    f.meaning =
        "elements the access's cached copies move at a time along its buffer's unit-stride dimension (vloadN; 1: one "
        "at a time)";
    f.exists = [](const BoundMdh& b, int a) { return vectorisable(b, a); };
    // No cached row is longer than the buffer's: wider vectors would never be used.
    f.max_value = [](const FamilyContext& x, int a) {
      return widest_vector(x.bound.buffer_extents[x.bound.mdh->inputs[a].buffer].back());
    };
    f.lattice = powers_of_two;
    f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
    f.get = [](const KernelConfig& c, int a) { return c.vector_width_of(a); };
    f.set = [](KernelConfig& c, int a, int64_t v) { member_slot(c.vector_width, a) = v; };
    f.member_constraints = [](const FamilyContext& x, int a) {
      const Expr width = x.parameter("VECTOR_WIDTH", a);
      std::vector<Condition> out{is_vector_width(width)};
      // Only cached copies move vectors: another width would name the kernel of width 1 again. Whether the width
      // divides a copy's row (the unit-stride extent of its full box) is no constraint: it would read the tile sizes
      // of other parameter groups and reject most random draws; a copy whose row it does not divide moves elements.
      out.push_back(Condition::unless(width == Expr::constant(1),
                                      x.is_not("MEM_INP_L", a, "none") || x.is_not("MEM_INP_P", a, "none")));
      return out;
    };
    table.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "STORE_WIDTH";
    // Why: a work-item that owns consecutive results writes them one element at a time in stores 8-16 bytes apart
    // across a warp (docs/decisions.md).
    f.meaning =
        "results a work-item writes at a time along the output buffer's unit-stride dimension (vstoreN; 1: one at a "
        "time)";
    f.exists = [](const BoundMdh& b, int) {
      return store_dimension(b) >= 0 && stored_as_computed(b.mdh->buffers[b.output.buffer].type);
    };
    f.max_value = [](const FamilyContext& x, int) {
      return widest_vector(x.bound.buffer_extents[x.bound.output.buffer].back());
    };
    f.lattice = powers_of_two;
    f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
    f.get = [](const KernelConfig& c, int) { return c.store_width; };
    f.set = [](KernelConfig& c, int, int64_t v) { c.store_width = v; };
    // OpenCL's vector widths only. Whether the width divides a work-item's run of consecutive results (its private
    // tile, or its strided run) is no constraint, for the reason VECTOR_WIDTH gives: a run it does not divide is
    // stored element by element, as are the edge tiles' results.
    f.member_constraints = [](const FamilyContext& x, int) {
      const Expr width = x.parameter("STORE_WIDTH", 0);
      return std::vector<Condition>{is_vector_width(width)};
    };
    table.push_back(f);
  }
}

}  // namespace mdh::families
