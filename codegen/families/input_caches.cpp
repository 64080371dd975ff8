// MEM_INP and BUF_ORDER of the local and private layers: where input tiles are cached, and in which order.
#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

const std::vector<Memory> kLocalInputMemory{Memory::None, Memory::Local};
const std::vector<Memory> kPrivateInputMemory{Memory::None, Memory::Private, Memory::Local};

}  // namespace

MDH_FAMILY_MODULE(input_caches, 40);

void add_input_caches(std::vector<ParameterFamily>& table) {
  // 4. MEM_INP and BUF_ORDER for the local and private layers; the global layer always reads through.
  for (Layer layer : {Layer::Local, Layer::Private}) {
    ParameterFamily f;
    const std::string ln = layer_name(layer);
    const auto& order = layer == Layer::Local ? kLocalInputMemory : kPrivateInputMemory;
    f.name = "MEM_INP_" + ln;
    f.sizes_arrays = true;
    f.scope = FamilyScope::input_access;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = layer == Layer::Local
                    ? "where the local tile's footprint of the input is cached (local: copied cooperatively)"
                    : "where a work-item's private tile footprint of the input is cached";
    f.labels = memory_labels(order);
    f.legacy_codes = memory_codes(order);
    f.neutral = neutral_zero;
    const int l = static_cast<int>(layer);
    f.get = [l, order](const KernelConfig& c, int a) { return label_index(order, c.input_memory[l].at(a)); };
    f.set = [l, order](KernelConfig& c, int a, int64_t v) { c.input_memory[l].at(a) = memory_at(order, v); };
    table.push_back(f);
  }
  for (Layer layer : {Layer::Local, Layer::Private}) {
    ParameterFamily f;
    const std::string ln = layer_name(layer);
    f.name = "BUF_ORDER_" + ln;
    f.scope = FamilyScope::input_access;
    f.kind = FamilyValueKind::permutation;
    f.meaning = "order of the buffer's dimensions in the cached copy, outermost first";
    f.exists = [](const BoundMdh& b, int a) { return buffer_rank(*b.mdh, a) >= 2; };
    f.permutation_elements = [](const BoundMdh& b, int a) {
      std::vector<std::string> positions;
      for (int m = 0; m < buffer_rank(*b.mdh, a); ++m) positions.push_back(std::to_string(m));
      return positions;
    };
    f.neutral = neutral_zero;
    const int l = static_cast<int>(layer);
    f.get = [l](const KernelConfig& c, int a) { return rank_of(c.cache_dim_order[l].at(a)); };
    f.set = [l](KernelConfig& c, int a, int64_t v) {
      c.cache_dim_order[l].at(a) = permutation_of(v, static_cast<int>(c.cache_dim_order[l].at(a).size()));
    };
    // The order of a copy that is not made means nothing: pinned, so that it does not multiply the space.
    f.member_constraints = [ln](const FamilyContext& x, int a) {
      return std::vector<Condition>{
          Condition::unless(x.parameter("BUF_ORDER_" + ln, a) == Expr::named_constant(0, "identity"),
                            x.is_not("MEM_INP_" + ln, a, "none"))};
    };
    table.push_back(f);
  }
}

}  // namespace mdh::families
