// ORDER_OCL: the OpenCL dimension of each md_hom dimension's work-group and work-item id.
#include <limits>

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// Work-items (layer 1) or work-groups (layer 0) that the NDRange has on OpenCL dimension o.
Expr ocl_extent(const FamilyContext& x, int layer, int o, const std::string& name) {
  const std::string count = layer == 0 ? "NUM_WG" : "NUM_WI", order = layer == 0 ? "ORDER_OCL_G" : "ORDER_OCL_L";
  const int count_family = family_index(count), order_family = family_index(order);
  const int dims = static_cast<int>(x.bound.mdh->dims.size());
  return Expr::measured(name, refs(x.bound, {count, order}), [=](const ValueSource& v) {
    int64_t product = 1;
    for (int d = 0; d < dims; ++d)
      if (v.value({order_family, d}) == o) {
        const int64_t n = v.value({count_family, d});
        product = n > 0 && product > std::numeric_limits<int64_t>::max() / n ? std::numeric_limits<int64_t>::max()
                                                                             : product * n;
      }
    return product;
  });
}

}  // namespace

MDH_FAMILY_MODULE(ocl_order, 20);

void add_ocl_order(std::vector<ParameterFamily>& table) {
  // 2. ORDER_OCL: the OpenCL dimension of each md_hom dimension's work-group and work-item id.
  for (int layer = 0; layer < 2; ++layer) {
    ParameterFamily f;
    f.name = layer == 0 ? "ORDER_OCL_G" : "ORDER_OCL_L";
    f.scope = FamilyScope::dimension;
    f.meaning = std::string("OpenCL dimension (0..2) of the ") + (layer == 0 ? "work-group" : "work-item") +
                " id; dimensions sharing one split it, the later varying fastest";
    f.min_value = 0;
    f.max_value = [](const FamilyContext&, int) { return int64_t{2}; };
    f.neutral = no_neutral;
    f.get = [layer](const KernelConfig& c, int d) { return static_cast<int64_t>(c.ocl_dim[layer].at(d)); };
    f.set = [layer](KernelConfig& c, int d, int64_t v) { c.ocl_dim[layer].at(d) = static_cast<int>(v); };
    if (layer == 1)
      // The NDRange must fit the device: work-items per OpenCL dimension, and 32-bit global ids.
      f.family_constraints = [](const FamilyContext& x) {
        std::vector<Condition> out;
        for (int o = 0; o < 3; ++o) {
          const std::string n = std::to_string(o);
          out.push_back(ocl_extent(x, 1, o, "work-items on OpenCL dimension " + n) <=
                        Expr::named_constant(static_cast<int64_t>(x.limits.max_work_item_sizes[o]),
                                             std::to_string(x.limits.max_work_item_sizes[o])));
          out.push_back(ocl_extent(x, 0, o, "work-groups on OpenCL dimension " + n) *
                            ocl_extent(x, 1, o, "work-items on OpenCL dimension " + n) <=
                        Expr::named_constant(kMaxOpenClIndex, std::to_string(kMaxOpenClIndex) + " (32-bit ids)"));
        }
        return out;
      };
    table.push_back(f);
  }
}

}  // namespace mdh::families
