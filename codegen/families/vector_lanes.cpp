// VECTOR_LANES: consecutive results of the element loop computed as the lanes of one OpenCL vector.
#include "codegen/vector_lanes.h"

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// OpenCL's vector types of 2, 4, 8 and 16 elements; float16 is what one AVX-512 register holds.
constexpr int64_t kMaxVectorLanes = 16;

}  // namespace

MDH_FAMILY_MODULE(vector_lanes, 170);

void add_vector_lanes(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "VECTOR_LANES";
  f.meaning =
      "results the innermost private element loop computes at a time along the output's unit-stride dimension, as "
      "one OpenCL vector (1: one at a time)";
  f.exists = [](const BoundMdh& b, int) { return vector_lanes_dimension(b) >= 0; };
  f.max_value = [](const FamilyContext&, int) { return kMaxVectorLanes; };
  f.lattice = powers_of_two;
  f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
  f.get = [](const KernelConfig& c, int) { return c.vector_lanes; };
  f.set = [](KernelConfig& c, int, int64_t v) { c.vector_lanes = v; };
  // OpenCL's vector widths only. Whether the lanes divide the private tile along their dimension is no constraint,
  // for the reason VECTOR_WIDTH gives: it would read another parameter group's tile size and reject most random
  // draws; a tile they do not divide is computed element by element.
  f.member_constraints = [](const FamilyContext& x, int) {
    const Expr lanes = x.parameter("VECTOR_LANES", 0);
    return std::vector<Condition>{ceil_div(Expr::constant(kMaxVectorLanes), lanes) * lanes ==
                                  Expr::constant(kMaxVectorLanes)};
  };
  // GPUs search it too (a work-item's float4 arithmetic is a shape of theirs); only the CPU default takes it.
  table.push_back(f);
}

}  // namespace mdh::families
