// The table of tuning-parameter families (see parameter_families.h), assembled from the family modules under
// codegen/families/ in the order of their positions (family_module.h), and the lookups every user of the table shares.
#include "codegen/parameter_families.h"

#include <algorithm>
#include <set>
#include <utility>

#include "codegen/families/family_module.h"
#include "codegen/families/family_module_list.h"  // generated from the modules' MDH_FAMILY_MODULE lines
#include "codegen/families/family_support.h"
#include "support/error.h"

namespace mdh {

namespace families {
#define MDH_DECLARE_FAMILY_MODULE(module, position) MDH_FAMILY_MODULE(module, position);
MDH_FAMILY_MODULES(MDH_DECLARE_FAMILY_MODULE)
#undef MDH_DECLARE_FAMILY_MODULE
}  // namespace families

namespace {

std::vector<ParameterFamily> make_families() {
  std::vector<ParameterFamily> t;
#define MDH_ADD_FAMILY_MODULE(module, position) families::add_##module(t);
  MDH_FAMILY_MODULES(MDH_ADD_FAMILY_MODULE)
#undef MDH_ADD_FAMILY_MODULE
  // What a module may leave out: every member exists, the whole range is searched, label k's legacy code is k.
  for (ParameterFamily& f : t) {
    if (!f.exists) f.exists = [](const BoundMdh&, int) { return true; };
    if (!f.get) f.get = [name = f.name](const KernelConfig& c, int index) { return c.value(name, index); };
    if (!f.set) f.set = [name = f.name](KernelConfig& c, int index, int64_t v) { c.family_values[{name, index}] = v; };
    if (!f.lattice) f.lattice = [](const LatticeContext& x) { return families::whole_range(x.lo, x.hi); };
    // Families whose labels were always written by name: code k is label k.
    if (f.kind == FamilyValueKind::enumeration && f.legacy_codes.empty())
      for (size_t k = 0; k < f.labels.size(); ++k) f.legacy_codes.push_back(static_cast<int64_t>(k));
    MDH_INTERNAL_ASSERT(f.get && f.set && f.neutral, "family " + f.name + " lacks typed access or a neutral value");
    MDH_INTERNAL_ASSERT(f.kind != FamilyValueKind::enumeration || f.labels.size() == f.legacy_codes.size(),
                        "family " + f.name + ": one legacy code per label");
  }
  return t;
}

}  // namespace

// ---------------------------------------------------------------------------------------------- whole warps

bool whole_warps_apply(const BoundMdh& bound, const DeviceLimits& limits) {
  const int64_t warp = static_cast<int64_t>(limits.warp_size);
  if (warp <= 1 || limits.warp_size > limits.max_work_group_size) return false;
  const int64_t simd = static_cast<int64_t>(std::max<uint64_t>(1, limits.simd_width));
  // The divisors of the warp that work-item counts of the `++` dimensions seen so far multiply to.
  std::set<int64_t> reachable{1};
  for (int d : bound.mdh->concat_dims()) {
    const int64_t extent = bound.dim_extents[d];
    const int64_t most = std::min<int64_t>(extent, static_cast<int64_t>(limits.max_work_group_size));
    std::set<int64_t> next;
    for (int64_t r : reachable)
      for (int64_t m = 1; m <= most && r * m <= warp; ++m) {
        const bool on_lattice = (m & (m - 1)) == 0 || extent % m == 0 || m % simd == 0;
        if (on_lattice && warp % (r * m) == 0) next.insert(r * m);
      }
    reachable = std::move(next);
  }
  return reachable.count(warp) > 0;
}

// ---------------------------------------------------------------------------------------------- lookups

const std::vector<ParameterFamily>& parameter_families() {
  static const std::vector<ParameterFamily> table = make_families();
  return table;
}

const std::vector<FamilyModule>& family_modules() {
  static const std::vector<FamilyModule> modules = {
#define MDH_LIST_FAMILY_MODULE(module, position) {#module, position},
      MDH_FAMILY_MODULES(MDH_LIST_FAMILY_MODULE)
#undef MDH_LIST_FAMILY_MODULE
  };
  return modules;
}

int family_index(const std::string& name) {
  const auto& t = parameter_families();
  for (size_t k = 0; k < t.size(); ++k)
    if (t[k].name == name) return static_cast<int>(k);
  MDH_INTERNAL_ASSERT(false, "no parameter family " + name);
}

const ParameterFamily* find_family(const std::string& name) {
  for (const auto& f : parameter_families())
    if (f.name == name) return &f;
  return nullptr;
}

void set_label(KernelConfig& config, const std::string& family, const std::string& label, int member) {
  const auto& labels = parameter_families()[family_index(family)].labels;
  const auto it = std::find(labels.begin(), labels.end(), label);
  MDH_INTERNAL_ASSERT(it != labels.end(), family + " has no value " + label);
  config.family_values[{family, member}] = it - labels.begin();
}

std::string label_of(const KernelConfig& config, const std::string& family, int member) {
  const auto& labels = parameter_families()[family_index(family)].labels;
  const int64_t value = config.value_or(family, member, -1);
  return value >= 0 && value < static_cast<int64_t>(labels.size()) ? labels[static_cast<size_t>(value)] : "";
}

bool has_label(const KernelConfig& config, const std::string& family, const std::string& label, int member) {
  const auto& labels = parameter_families()[family_index(family)].labels;
  MDH_INTERNAL_ASSERT(std::find(labels.begin(), labels.end(), label) != labels.end(),
                      family + " has no value " + label);
  return label_of(config, family, member) == label;
}

int store_dimension(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  if (mdh.buffers[bound.output.buffer].type.is_struct() || bound.output.indices.empty()) return -1;
  const BoundIndex& unit_stride = bound.output.indices.back();
  if (unit_stride.has_window && unit_stride.window_extent > 1) return -1;
  int dimension = -1;
  for (size_t d = 0; d < unit_stride.coefficient.size(); ++d) {
    if (unit_stride.coefficient[d] == 0) continue;
    if (unit_stride.coefficient[d] != 1 || dimension >= 0 || !mdh.dims[d].combine.is_concat()) return -1;
    dimension = static_cast<int>(d);
  }
  return dimension;
}

std::vector<int> ParameterFamily::members(const BoundMdh& bound) const {
  std::vector<int> out;
  const int count = scope == FamilyScope::dimension      ? static_cast<int>(bound.mdh->dims.size())
                    : scope == FamilyScope::input_access ? static_cast<int>(bound.mdh->inputs.size())
                                                         : 1;
  if (kernel_shape(bound) != shape) return out;
  for (int k = 0; k < count; ++k)
    if (exists(bound, k)) out.push_back(k);
  return out;
}

bool ParameterFamily::has_member(const BoundMdh& bound, int index) const {
  return kernel_shape(bound) == shape && exists(bound, index);
}

std::string ParameterFamily::parameter_name(const Mdh& mdh, int index) const {
  switch (scope) {
    case FamilyScope::dimension:
      return name + "_" + mdh.dims.at(index).name;
    case FamilyScope::input_access:
      return name + "_" + input_access_name(mdh, index);
    case FamilyScope::single:
      return name;
  }
  MDH_INTERNAL_ASSERT(false, "unknown family scope");
}

Expr FamilyContext::parameter(const std::string& family, int index) const {
  const int f = family_index(family);
  return Expr::parameter({f, index}, parameter_families()[f].parameter_name(*bound.mdh, index));
}

Condition FamilyContext::is(const std::string& family, int index, const std::string& label) const {
  const auto& labels = parameter_families()[family_index(family)].labels;
  const auto it = std::find(labels.begin(), labels.end(), label);
  MDH_INTERNAL_ASSERT(it != labels.end(), family + " has no value " + label);
  return parameter(family, index) == Expr::named_constant(it - labels.begin(), label);
}

Condition FamilyContext::is_not(const std::string& family, int index, const std::string& label) const {
  const auto& labels = parameter_families()[family_index(family)].labels;
  const auto it = std::find(labels.begin(), labels.end(), label);
  MDH_INTERNAL_ASSERT(it != labels.end(), family + " has no value " + label);
  return parameter(family, index) != Expr::named_constant(it - labels.begin(), label);
}

Expr FamilyContext::product(const std::string& family, const std::vector<int>& dims) const {
  std::vector<Expr> factors;
  for (int d : dims) factors.push_back(parameter(family, d));
  return Expr::product(factors);
}

KernelConfig config_frame(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  const size_t dims = mdh.dims.size();
  KernelConfig c;
  c.num_wg.assign(dims, 1);
  c.num_wi.assign(dims, 1);
  c.local_tile_size.assign(dims, 1);
  c.private_tile_size.assign(dims, 1);
  for (int l = 0; l < 2; ++l) c.ocl_dim[l].assign(dims, 0);
  for (int l = 0; l < kLayerCount; ++l) {
    c.input_memory[l].assign(mdh.inputs.size(), Memory::None);
    c.cache_dim_order[l].clear();
    for (size_t a = 0; a < mdh.inputs.size(); ++a) {
      std::vector<int> identity(input_rank(mdh, static_cast<int>(a)));
      for (size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<int>(k);
      c.cache_dim_order[l].push_back(identity);
    }
    c.loop_order[l].clear();
    for (size_t d = 0; d < dims; ++d) c.loop_order[l].push_back(static_cast<int>(d));
  }
  c.result_memory = {Memory::Global, Memory::Private, Memory::Private};
  c.combine_layer = Layer::Private;
  // Every family's neutral value (the first value where it has none): a family added later needs no code here.
  for (const ParameterFamily& family : parameter_families())
    for (int index : family.members(bound))
      family.set(c, index,
                 family.neutral(bound, index).value_or(family.kind == FamilyValueKind::integer ? family.min_value : 0));
  return c;
}

KernelConfig config_from_values(const BoundMdh& bound, const ValueSource& values) {
  KernelConfig c = config_frame(bound);
  const auto& families = parameter_families();
  for (size_t f = 0; f < families.size(); ++f)
    for (int index : families[f].members(bound)) families[f].set(c, index, values.value({static_cast<int>(f), index}));
  return c;
}

void reset_values_without_effect(const BoundMdh& bound, KernelConfig& config) {
  for (const ParameterFamily& family : parameter_families()) {
    if (!family.effect) continue;
    for (int index : family.members(bound)) {
      const std::optional<int64_t> neutral = family.neutral(bound, index);
      MDH_INTERNAL_ASSERT(neutral.has_value(), "family " + family.name + " has an effect but no neutral value");
      if (family.get(config, index) != *neutral && family.effect->count(bound, config, index) == 0)
        family.set(config, index, *neutral);
    }
  }
}

}  // namespace mdh
