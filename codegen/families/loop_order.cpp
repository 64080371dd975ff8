// LOOP_ORDER per layer: the order in which the layer iterates the dimensions.
#include "codegen/families/family_support.h"

namespace mdh::families {

MDH_FAMILY_MODULE(loop_order, 30);

void add_loop_order(std::vector<ParameterFamily>& table) {
  // 3. LOOP_ORDER per layer: the order in which the layer iterates the dimensions, outermost first.
  for (Layer layer : {Layer::Global, Layer::Local, Layer::Private}) {
    ParameterFamily f;
    f.name = std::string("LOOP_ORDER_") + layer_name(layer);
    f.kind = FamilyValueKind::permutation;
    f.meaning = std::string("order of the dimensions in the ") +
                (layer == Layer::Global  ? "work-group's tile loops"
                 : layer == Layer::Local ? "private steps"
                                         : "private tile's element loops") +
                ", outermost first";
    f.permutation_elements = dimension_names;
    f.neutral = neutral_zero;
    const int l = static_cast<int>(layer);
    f.get = [l](const KernelConfig& c, int) { return rank_of(c.loop_order[l]); };
    f.set = [l](KernelConfig& c, int, int64_t v) {
      c.loop_order[l] = permutation_of(v, static_cast<int>(c.num_wg.size()));
    };
    if (layer == Layer::Global) {
      // A work-group holds the partial results of one local tile of the `++` dimensions at a time.
      f.permutation_classes = [](const BoundMdh& b, int) {
        std::vector<int> classes;
        for (const auto& dim : b.mdh->dims) classes.push_back(dim.combine.is_concat() ? 0 : 1);
        return classes;
      };
      f.out_of_class_order = "`++` dimensions inside a reduction dimension";
    }
    table.push_back(f);
  }
}

}  // namespace mdh::families
