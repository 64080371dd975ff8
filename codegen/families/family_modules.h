// The modules of the family table, in table order: parameters are laid out in this order (the families grouped by
// dimension first, dimension by dimension, then every other family member by member), and journals and tuning
// runs rely on it. Module X defines `void mdh::families::add_X(std::vector<ParameterFamily>&)` in
// codegen/families/X.cpp. A new family: its module file and one line here (at the end, so that no parameter moves).
#pragma once

#define MDH_FAMILY_MODULES(X) \
  X(tile_sizes)               \
  X(ocl_order)                \
  X(loop_order)               \
  X(input_caches)             \
  X(result_memory)            \
  X(ownership)                \
  X(work_item_combine)        \
  X(work_group_combine)       \
  X(double_buffer)            \
  X(unrolling)                \
  X(work_group_swizzle)       \
  X(vector_width)             \
  X(strided_run)              \
  X(local_pad)                \
  X(scalar_code)              \
  X(tensor_core)              \
  X(vector_lanes)             \
  X(input_packing)
