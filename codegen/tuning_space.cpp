// The tunable kernel's space instantiated from the parameter families: parameters, constraints, values and their
// JSON forms, conversion to and from KernelConfig, and the checks.
#include "codegen/tuning_space.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "codegen/index_range.h"
#include "codegen/permutation.h"
#include "support/error.h"
#include "support/json_integer.h"
#include "support/saturating.h"

namespace mdh {

namespace {

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string s;
  for (size_t k = 0; k < parts.size(); ++k) s += (k ? separator : "") + parts[k];
  return s;
}

[[noreturn]] void value_error(const TuningParameter& p, const std::string& message) {
  throw UserError(SourceLoc{}, "config: " + p.name + ": " + message);
}

}  // namespace

// ------------------------------------------------------------------------------------------- parameters

bool TuningParameter::contains(int64_t value) const {
  if (value < lo || value > hi) return false;
  return !restricted || std::find(restricted->begin(), restricted->end(), value) != restricted->end();
}

std::string TuningParameter::value_name(int64_t value) const {
  if (value < lo || value > hi) return std::to_string(value);
  switch (kind()) {
    case FamilyValueKind::integer:
      return std::to_string(value);
    case FamilyValueKind::enumeration:
      return family->labels.at(static_cast<size_t>(value));
    case FamilyValueKind::permutation: {
      std::vector<std::string> names;
      for (int k : permutation_from_rank(value, permutation_length)) names.push_back(permutation_elements.at(k));
      return joined(names, ",");
    }
  }
  MDH_INTERNAL_ASSERT(false, "unknown value kind");
}

nlohmann::json TuningParameter::value_to_json(int64_t value) const {
  if (kind() == FamilyValueKind::integer) return value;
  MDH_INTERNAL_ASSERT(value >= lo && value <= hi, name + " = " + std::to_string(value) + " is outside its range");
  switch (kind()) {
    case FamilyValueKind::integer:
      return value;
    case FamilyValueKind::enumeration:
      return family->labels.at(static_cast<size_t>(value));
    case FamilyValueKind::permutation: {
      // Dimension names for loop orders; buffer dimension positions as numbers, as the cached copy's order.
      nlohmann::json list = nlohmann::json::array();
      const bool positions = family->scope == FamilyScope::input_access;
      for (int k : permutation_from_rank(value, permutation_length)) {
        if (positions)
          list.push_back(k);
        else
          list.push_back(permutation_elements.at(k));
      }
      return list;
    }
  }
  MDH_INTERNAL_ASSERT(false, "unknown value kind");
}

int64_t TuningParameter::value_from_json(const nlohmann::json& json) const {
  switch (kind()) {
    case FamilyValueKind::integer:
      if (!json_int64(json)) value_error(*this, "expected an integer, got " + json.dump());
      return *json_int64(json);
    case FamilyValueKind::enumeration: {
      const auto& labels = family->labels;
      if (json.is_string()) {
        const auto it = std::find(labels.begin(), labels.end(), json.get<std::string>());
        if (it == labels.end())
          value_error(*this, "unknown value " + json.dump() + " (expected " + joined(labels, ", ") + ")");
        return it - labels.begin();
      }
      if (json.is_number_integer()) {
        // Journals and results written before values were named stored the C++ enum ordinal.
        const auto& codes = family->legacy_codes;
        const auto it = std::find(codes.begin(), codes.end(), json_int64(json).value_or(-1));
        if (it == codes.end())
          value_error(*this, "unknown value " + json.dump() + " (expected " + joined(labels, ", ") + ")");
        return it - codes.begin();
      }
      value_error(*this, "expected one of " + joined(labels, ", ") + ", got " + json.dump());
    }
    case FamilyValueKind::permutation: {
      // Older journals stored the lexicographic rank.
      if (json.is_number_integer()) {
        const int64_t rank = json_int64(json).value_or(-1);
        if (rank < lo || rank > hi) value_error(*this, "permutation rank " + json.dump() + " is out of range");
        return rank;
      }
      const std::string expected = "a permutation of " + joined(permutation_elements, ", ");
      if (!json.is_array()) value_error(*this, "expected " + expected + ", got " + json.dump());
      std::vector<int> order;
      for (const auto& element : json) {
        int k = -1;
        if (element.is_string()) {
          const auto it =
              std::find(permutation_elements.begin(), permutation_elements.end(), element.get<std::string>());
          if (it != permutation_elements.end()) k = static_cast<int>(it - permutation_elements.begin());
        } else if (json_int64(element) && *json_int64(element) >= 0 && *json_int64(element) < permutation_length) {
          k = static_cast<int>(*json_int64(element));
        }
        if (k < 0) value_error(*this, "'" + element.dump() + "' is not one of " + joined(permutation_elements, ", "));
        order.push_back(k);
      }
      if (!is_permutation_of_iota(order, permutation_length))
        value_error(*this, "expected " + expected + ", got " + json.dump());
      return permutation_rank(order);
    }
  }
  MDH_INTERNAL_ASSERT(false, "unknown value kind");
}

std::optional<int64_t> TuningParameter::parse_value_name(const std::string& text) const {
  if (kind() != FamilyValueKind::integer)
    for (int64_t v = lo; v <= hi && v - lo < 100'000; ++v)
      if (value_name(v) == text) return v;
  try {
    size_t used = 0;
    const int64_t v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

int TuningConstraint::last_read() const {
  return reads.empty() ? -1 : *std::max_element(reads.begin(), reads.end());
}

int TuningSpace::find(const std::string& name) const {
  for (size_t k = 0; k < parameters.size(); ++k)
    if (parameters[k].name == name) return static_cast<int>(k);
  return -1;
}

int TuningSpace::index_of(const ParameterRef& ref) const {
  if (ref.family < 0 || static_cast<size_t>(ref.family) >= index_.size()) return -1;
  const auto& members = index_[ref.family];
  return ref.index >= 0 && static_cast<size_t>(ref.index) < members.size() ? members[ref.index] : -1;
}

void TuningSpace::restrict_to(const std::string& name, const std::vector<int64_t>& values) {
  const int k = find(name);
  if (k < 0) throw UserError(SourceLoc{}, "tuning space: no parameter '" + name + "'");
  TuningParameter& p = parameters[k];
  for (int64_t v : values)
    if (!p.contains(v)) throw UserError(SourceLoc{}, "tuning space: " + p.value_name(v) + " is not a value of " + name);
  if (values.empty()) throw UserError(SourceLoc{}, "tuning space: no value left for " + name);
  p.restricted = values;
}

int64_t AssignmentValues::value(const ParameterRef& parameter) const {
  const int k = space_.index_of(parameter);
  MDH_INTERNAL_ASSERT(k >= 0, "a constraint reads a parameter the space does not have");
  return values_[k];
}

// ------------------------------------------------------------------------------------------- the space

void check_tunable_index_range(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();
  for (size_t d = 0; d < bound.dim_extents.size(); ++d)
    if (bound.dim_extents[d] > kMaxIndex)
      throw UserError(mdh.dims[d].loc, "dimension '" + mdh.dims[d].name + "' has extent " +
                                           std::to_string(bound.dim_extents[d]) +
                                           ", more than the tunable kernel's int indices hold (2147483647)");
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    int64_t elements = 1;
    for (int64_t e : bound.buffer_extents[b])
      if (__builtin_mul_overflow(elements, e, &elements)) elements = std::numeric_limits<int64_t>::max();
    if (elements > kMaxIndex)
      throw UserError(mdh.buffers[b].loc,
                      "buffer '" + mdh.buffers[b].name + "' has " +
                          (elements == std::numeric_limits<int64_t>::max() ? std::string("more than 2^63")
                                                                           : std::to_string(elements)) +
                          " elements at these sizes, more than the tunable kernel's int indices "
                          "address (2147483647); the reference kernel (--reference) indexes "
                          "with 64 bits");
  }
}

int64_t tunable_index_reach(int64_t extent, int64_t local_tile, int64_t work_groups, int64_t work_items,
                            int64_t private_tile) {
  const auto ceil_div = [](int64_t a, int64_t b) { return a / b + (a % b != 0); };
  const int64_t step = saturating_mul(work_items, private_tile);
  const int64_t tiles_per_group = ceil_div(ceil_div(extent, local_tile), work_groups);
  const int64_t tiles_end = saturating_mul(saturating_mul(work_groups, tiles_per_group), local_tile);
  const int64_t furthest = is_saturated(tiles_end) ? tiles_end
                                                   : saturating_add(tiles_end - local_tile,
                                                                    saturating_mul(ceil_div(local_tile, step), step));
  return std::max({extent + local_tile - 1, saturating_add(local_tile, step) - 1, furthest});
}

namespace {

// "EDGE_POINTS = guarded unless <effect> >= 1" (ParameterFamily::effect): a value other than the neutral one only
// where the member has something to act on, which a measured quantity counts over the families it reads.
Condition without_effect_neutral(const FamilyContext& context, const ParameterFamily& family, int index) {
  const BoundMdh* bound = &context.bound;
  const int f = family_index(family.name);
  std::vector<ParameterRef> reads;
  for (const std::string& name : family.effect->reads) {
    const int read = family_index(name);
    for (int member : parameter_families()[read].members(*bound)) reads.push_back({read, member});
  }
  const int64_t neutral = family.neutral(*bound, index).value();
  const Expr acts_on = Expr::measured(family.effect->name, reads, [bound, f, index](const ValueSource& v) {
    return parameter_families()[f].effect->count(*bound, config_from_values(*bound, v), index);
  });
  const Condition is_neutral = family.kind == FamilyValueKind::enumeration
                                   ? context.is(family.name, index, family.labels.at(static_cast<size_t>(neutral)))
                                   : context.parameter(family.name, index) == Expr::constant(neutral);
  return Condition::unless(is_neutral, acts_on >= Expr::constant(1));
}

}  // namespace

bool needs_wide_indices(const BoundMdh& bound, const KernelConfig& config) {
  constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();
  for (size_t d = 0; d < bound.dim_extents.size(); ++d)
    if (tunable_index_reach(bound.dim_extents[d], config.local_tile_size.at(d), config.num_wg.at(d),
                            config.num_wi.at(d), config.private_tile_size.at(d)) > kMaxIndex)
      return true;
  return false;
}

TuningSpace make_tuning_space(const BoundMdh& bound, const DeviceLimits& limits) {
  const Mdh& mdh = *bound.mdh;
  const std::vector<int> reduction = mdh.reduction_dims();
  // Several reduction dimensions are combined in the order the tiles visit them, not in the reference's nesting
  // (the last dimension innermost); that is the same result only for one commutative operator shared by all.
  if (reduction.size() > 1) {
    for (int r : reduction)
      if (!mdh.dims[r].combine.is_commutative() || !(mdh.dims[r].combine == mdh.dims[reduction[0]].combine))
        throw UserError(mdh.dims[r].combine.loc,
                        "the tunable kernel combines several reduction dimensions only when they share one "
                        "built-in operator (+, *, max or min); dimension '" +
                            mdh.dims[r].name + "' differs");
  }
  check_tunable_index_range(bound);

  const auto& families = parameter_families();
  const FamilyContext context(bound, limits);
  TuningSpace space;
  space.index_.resize(families.size());
  space.dim_extents = bound.dim_extents;
  space.simd_width = static_cast<int64_t>(std::max<uint64_t>(1, limits.simd_width));
  int next_group = 0;
  auto add = [&](int f, int index, int group) {
    const ParameterFamily& family = families[f];
    TuningParameter p;
    p.name = family.parameter_name(mdh, index);
    p.ref = {f, index};
    p.family = &family;
    p.group = group;
    switch (family.kind) {
      case FamilyValueKind::integer:
        p.lo = family.min_value;
        p.hi = family.max_value(context, index);
        break;
      case FamilyValueKind::enumeration:
        p.hi = static_cast<int64_t>(family.labels.size()) - 1;
        break;
      case FamilyValueKind::permutation:
        p.permutation_elements = family.permutation_elements(bound, index);
        p.permutation_length = static_cast<int>(p.permutation_elements.size());
        if (p.permutation_length > 20)
          throw UserError(SourceLoc{}, "the tunable kernel orders at most 20 dimensions (" + p.name + " has " +
                                           std::to_string(p.permutation_length) + ")");
        p.hi = factorial(p.permutation_length) - 1;
        break;
    }
    p.neutral = family.neutral(bound, index);
    auto& slots = space.index_[f];
    if (slots.size() <= static_cast<size_t>(index)) slots.resize(index + 1, -1);
    slots[index] = static_cast<int>(space.parameters.size());
    space.parameters.push_back(std::move(p));
  };
  // 1. The families grouped by dimension, dimension by dimension; 2. every other family, member by member.
  for (size_t d = 0; d < mdh.dims.size(); ++d) {
    const int group = next_group++;
    for (size_t f = 0; f < families.size(); ++f)
      if (families[f].grouped_by_dimension && families[f].has_member(bound, static_cast<int>(d)))
        add(static_cast<int>(f), static_cast<int>(d), group);
  }
  for (size_t f = 0; f < families.size(); ++f)
    if (!families[f].grouped_by_dimension)
      for (int index : families[f].members(bound)) add(static_cast<int>(f), index, next_group++);

  // Constraints, in family order.
  auto constrain = [&](const Condition& condition, bool lattice_only = false) {
    TuningConstraint c{condition, {}, {}, lattice_only};
    for (const ParameterRef& r : condition.reads()) {
      const int k = space.index_of(r);
      MDH_INTERNAL_ASSERT(k >= 0, "a constraint reads a missing parameter: " + condition.to_string());
      c.reads.push_back(k);
    }
    MDH_INTERNAL_ASSERT(!c.reads.empty(), "a constraint reads no parameter: " + condition.to_string());
    space.constraints.push_back(std::move(c));
  };
  for (const ParameterFamily& family : families) {
    // A family without members in this md_hom (INLINE_MATH where user code calls no log) has nothing to constrain.
    if (family.members(bound).empty()) continue;
    if (family.member_constraints)
      for (int index : family.members(bound))
        for (const Condition& c : family.member_constraints(context, index)) constrain(c);
    if (family.family_constraints)
      for (const Condition& c : family.family_constraints(context)) constrain(c);
    if (family.lattice_constraints)
      for (const Condition& c : family.lattice_constraints(context)) constrain(c, true);
    if (family.effect)
      for (int index : family.members(bound)) constrain(without_effect_neutral(context, family, index));
    if (family.permutation_classes)
      for (int index : family.members(bound)) {
        const ParameterRef ref{family_index(family.name), index};
        const std::vector<int> classes = family.permutation_classes(bound, index);
        // The elements placed after an element of a larger class.
        const Expr out_of_order =
            Expr::measured(family.out_of_class_order + " in " + family.parameter_name(mdh, index), {ref},
                           [ref, classes](const ValueSource& v) {
                             int64_t count = 0;
                             int largest = std::numeric_limits<int>::min();
                             for (int e : permutation_from_rank(v.value(ref), static_cast<int>(classes.size()))) {
                               count += classes[e] < largest ? 1 : 0;
                               largest = std::max(largest, classes[e]);
                             }
                             return count;
                           });
        constrain(out_of_order == Expr::constant(0));
        space.constraints.back().permutation_classes = classes;
      }
  }
  return space;
}

// ------------------------------------------------------------------------------------------- conversion

Assignment assignment_from_config(const TuningSpace& space, const KernelConfig& c) {
  Assignment a;
  a.reserve(space.parameters.size());
  for (const TuningParameter& p : space.parameters) a.push_back(p.family->get(c, p.ref.index));
  return a;
}

KernelConfig config_from_assignment(const BoundMdh& bound, const TuningSpace& space, const Assignment& a) {
  MDH_INTERNAL_ASSERT(a.size() == space.parameters.size(), "one value per tuning parameter");
  return config_from_values(bound, AssignmentValues(space, a));
}

std::optional<std::string> first_violation(const TuningSpace& space, const Assignment& a) {
  MDH_INTERNAL_ASSERT(a.size() == space.parameters.size(), "one value per tuning parameter");
  for (size_t k = 0; k < a.size(); ++k) {
    const TuningParameter& p = space.parameters[k];
    if (a[k] < p.lo || a[k] > p.hi) {
      if (p.kind() == FamilyValueKind::integer)
        return p.name + " = " + std::to_string(a[k]) + " is outside its range [" + std::to_string(p.lo) + ", " +
               std::to_string(p.hi) + "]";
      return p.name + " has a value the kernel does not support";
    }
    if (!p.contains(a[k])) return p.name + " = " + p.value_name(a[k]) + " is not among the restricted values";
  }
  const AssignmentValues values(space, a);
  for (const auto& c : space.constraints)
    if (space.applies(c) && !c.condition.holds(values)) {
      std::string read;
      for (const std::string& measured : c.condition.measured_values(values)) {
        if (!read.empty()) read += ", ";
        read += measured;
      }
      for (int r : c.reads) {
        if (!read.empty()) read += ", ";
        read += space.parameters[r].name + " = " + space.parameters[r].value_name(a[r]);
        if (read.size() > 200) {
          read += ", ...";
          break;
        }
      }
      return "violates " + c.description() + " (" + read + ")";
    }
  return std::nullopt;
}

void check_config(const BoundMdh& bound, const KernelConfig& c, const DeviceLimits& limits) {
  check_config_shape(bound, c);
  const Mdh& mdh = *bound.mdh;
  const int g = static_cast<int>(Layer::Global);
  for (size_t a = 0; a < mdh.inputs.size(); ++a) {
    if (c.input_memory[g][a] != Memory::None)
      throw UserError(SourceLoc{}, "config: MEM_INP.G." + input_access_name(mdh, static_cast<int>(a)) +
                                       ": the global layer reads inputs through (only \"none\" is supported)");
    for (size_t k = 0; k < c.cache_dim_order[g][a].size(); ++k)
      if (c.cache_dim_order[g][a][k] != static_cast<int>(k))
        throw UserError(SourceLoc{}, "config: BUF_ORDER.G." + input_access_name(mdh, static_cast<int>(a)) +
                                         ": the global layer caches nothing, so its order must be the identity");
  }
  if (c.result_memory[g] != Memory::Global)
    throw UserError(SourceLoc{},
                    "config: MEM_RES.G: the results of the global layer are in global memory (only \"global\")");
  TuningSpace space = make_tuning_space(bound, limits);
  space.full_ranges = true;  // validity: the lattice-only constraints leave out shapes that build and run
  if (auto why = first_violation(space, assignment_from_config(space, c)))
    throw UserError(SourceLoc{}, "config: " + *why);
}

std::optional<std::string> lattice_only_violation(const BoundMdh& bound, const KernelConfig& config,
                                                  const DeviceLimits& limits) {
  const TuningSpace space = make_tuning_space(bound, limits);
  const Assignment values = assignment_from_config(space, config);
  TuningSpace lattice_only = space;
  lattice_only.constraints.clear();
  for (const TuningConstraint& c : space.constraints)
    if (c.lattice_only) lattice_only.constraints.push_back(c);
  return first_violation(lattice_only, values);
}

std::vector<std::vector<int64_t>> search_values(const TuningSpace& space) {
  std::vector<std::vector<int64_t>> values(space.parameters.size());
  for (size_t k = 0; k < space.parameters.size(); ++k) {
    const TuningParameter& p = space.parameters[k];
    if (p.restricted) {
      values[k] = *p.restricted;
      continue;
    }
    if (p.kind() != FamilyValueKind::integer || space.full_ranges) {
      if (p.hi - p.lo < kMaxListedSearchValues)
        for (int64_t v = p.lo; v <= p.hi; ++v) values[k].push_back(v);
      continue;
    }
    LatticeContext context;
    context.lo = p.lo;
    context.hi = p.hi;
    if (p.family->scope == FamilyScope::dimension)
      context.extent = space.dim_extents.at(static_cast<size_t>(p.ref.index));
    context.simd_width = space.simd_width;
    // The lattices of the other families of the same member, declared earlier (NUM_WG reads LT_SIZE's).
    context.lattice_of = [&, ref = p.ref](const std::string& family) -> const std::vector<int64_t>& {
      const int other = space.index_of({family_index(family), ref.index});
      MDH_INTERNAL_ASSERT(other >= 0 && static_cast<size_t>(other) < k, family + "'s lattice is not known yet");
      return values[other];
    };
    values[k] = p.family->lattice(context);
  }
  return values;
}

}  // namespace mdh
