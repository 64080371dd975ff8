// LOCAL_PAD: padded rows of local-memory caches.
#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// LOCAL_PAD's range and values: 0 and 1, 2, 4, 8. Local memory has 32 banks of 4 bytes on NVIDIA and AMD GPUs; a
// pad of p elements moves consecutive rows p banks apart, so 1 or 2 spread work-items that walk a column (one
// element each, or vectors of 4 along another dimension), and 4 or 8 keep rows of float4 / float8 vectors aligned.
constexpr int64_t kMaxLocalPad = 8;
std::vector<int64_t> zero_and_powers_of_two(const LatticeContext& x) {
  std::vector<int64_t> values{0};
  for (int64_t v : powers_of_two(x)) values.push_back(v);
  return values;
}

}  // namespace

MDH_FAMILY_MODULE(local_pad, 140);

void add_local_pad(std::vector<ParameterFamily>& table) {
  ParameterFamily f;
  f.name = "LOCAL_PAD";
  f.sizes_arrays = true;
  f.scope = FamilyScope::input_access;
  f.meaning =
      "elements left unused after each innermost row of the access's local-memory cache, so that work-items "
      "walking its outer dimension reach different memory banks (0: rows packed)";
  f.exists = [](const BoundMdh& b, int a) { return buffer_rank(*b.mdh, a) >= 2; };
  f.min_value = 0;
  f.max_value = [](const FamilyContext&, int) { return kMaxLocalPad; };
  f.lattice = zero_and_powers_of_two;
  f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 0; };
  f.get = [](const KernelConfig& c, int a) { return c.local_pad_of(a); };
  f.set = [](KernelConfig& c, int a, int64_t v) { member_slot(c.local_pad, a) = v; };
  // Only a cache in local memory has rows to pad: another value would name the unpadded kernel again.
  f.member_constraints = [](const FamilyContext& x, int a) {
    return std::vector<Condition>{
        Condition::unless(x.parameter("LOCAL_PAD", a) == Expr::constant(0), x.is("MEM_INP_L", a, "local"))};
  };
  table.push_back(f);
}

}  // namespace mdh::families
