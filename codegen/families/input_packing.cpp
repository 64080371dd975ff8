// PACK_INP: an input read from a packed copy whose dimensions put the index that moves with the output's
// unit-stride dimension innermost (codegen/input_packing.h), made by a copy kernel the plan launches first.
#include "codegen/input_packing.h"

#include <algorithm>
#include <limits>

#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(input_packing, 190);

void add_input_packing(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "PACK_INP";
  f.scope = FamilyScope::input_access;
  f.kind = FamilyValueKind::enumeration;
  f.meaning =
      "the layout the kernel reads the input in: the spec's (spec), or a copy made by a first kernel with the index "
      "that moves with the output's unit-stride dimension innermost (moving_innermost)";
  f.labels = {"spec", "moving_innermost"};
  // Only where the copy's layout differs from the spec's (input_packing.h).
  f.exists = [](const BoundMdh& b, int a) { return packed_moving_index(b, a) >= 0; };
  f.neutral = neutral_zero;
  // The copy is one scratch buffer of the input's size.
  f.member_constraints = [](const FamilyContext& x, int a) {
    const int buffer = x.bound.inputs[static_cast<size_t>(a)].buffer;
    const uint64_t bytes = x.bound.byte_size(buffer), limit = x.limits.max_alloc_bytes;
    const auto constant = [](uint64_t v, const std::string& name) {
      return Expr::named_constant(static_cast<int64_t>(std::min<uint64_t>(v, std::numeric_limits<int64_t>::max())),
                                  name);
    };
    const Condition fits =
        constant(bytes, "packed copy bytes " + std::to_string(bytes)) <= constant(limit, std::to_string(limit));
    return std::vector<Condition>{Condition::unless(fits, x.is("PACK_INP", a, "spec"))};
  };
  table.push_back(f);
}

}  // namespace mdh::families
