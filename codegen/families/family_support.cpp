// The helpers the family modules share (codegen/families/family_support.h).
#include "codegen/families/family_support.h"

#include <algorithm>
#include <limits>

#include "codegen/permutation.h"

namespace mdh::families {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int buffer_rank(const Mdh& mdh, int access) {
  return static_cast<int>(mdh.buffers.at(mdh.inputs.at(access).buffer).extents.size());
}

std::vector<int> all_dims(const Mdh& mdh) {
  std::vector<int> dims(mdh.dims.size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int>(d);
  return dims;
}

int64_t extent_product(const BoundMdh& bound, const std::vector<int>& dims) {
  int64_t product = 1;
  for (int d : dims)
    if (__builtin_mul_overflow(product, bound.dim_extents.at(static_cast<size_t>(d)), &product))
      return std::numeric_limits<int64_t>::max();
  return product;
}

// Label index <-> the typed enum value, per enumeration family. Index -1 is "not a value of this family" (e.g. a
// typed config that caches an input in global memory), which the range check reports.
int64_t label_index(const std::vector<Memory>& order, Memory m) {
  for (size_t k = 0; k < order.size(); ++k)
    if (order[k] == m) return static_cast<int64_t>(k);
  return -1;
}
Memory memory_at(const std::vector<Memory>& order, int64_t index) {
  return order.at(static_cast<size_t>(std::clamp<int64_t>(index, 0, static_cast<int64_t>(order.size()) - 1)));
}

std::vector<std::string> memory_labels(const std::vector<Memory>& order) {
  std::vector<std::string> labels;
  for (Memory m : order) labels.push_back(memory_name(m));
  return labels;
}
std::vector<int64_t> memory_codes(const std::vector<Memory>& order) {
  std::vector<int64_t> codes;
  for (Memory m : order) codes.push_back(static_cast<int64_t>(m));
  return codes;
}

int64_t rank_of(const std::vector<int>& permutation) {
  return is_permutation_of_iota(permutation, static_cast<int>(permutation.size())) ? permutation_rank(permutation) : -1;
}
std::vector<int> permutation_of(int64_t rank, int n) {
  return permutation_from_rank(std::clamp<int64_t>(rank, 0, factorial(n) - 1), n);
}

// The values the tuner searches by default (TuningSpace::full_ranges searches whole ranges instead). Most values of
// a whole range are odd shapes: tiles with a short last tile, work-groups that leave SIMD lanes idle, which run far
// slower (docs/decisions.md). The lattices keep the shapes fast kernels have: powers of two, divisors of the extent (no
// short last tile), multiples of the SIMD width where the values count work-items, and the range's ends.

std::set<int64_t> tile_sizes(const LatticeContext& x) {
  std::set<int64_t> out{x.lo, x.hi};
  auto add = [&](int64_t v) {
    if (v >= x.lo && v <= x.hi) out.insert(v);
  };
  for (int64_t p = 1; p <= x.hi; p *= 2) add(p);
  for (int64_t d = 1; d * d <= x.extent; ++d)
    if (x.extent % d == 0) add(d), add(x.extent / d);
  return out;
}

std::vector<int64_t> whole_range(int64_t lo, int64_t hi) {
  std::vector<int64_t> v;
  for (int64_t x = lo; x <= hi; ++x) v.push_back(x);
  return v;
}

std::vector<int64_t> tile_lattice(const LatticeContext& x) {
  const auto s = tile_sizes(x);
  return {s.begin(), s.end()};
}

// A typed config from parameter values (the members a quantity does not read keep whatever the source says; every
// value of a family's range gives a config of the right shape).
KernelConfig config_of(const BoundMdh& bound, const ValueSource& values) {
  return config_from_values(bound, values);
}

std::vector<ParameterRef> refs(const BoundMdh& bound, const std::vector<std::string>& families) {
  std::vector<ParameterRef> out;
  for (const auto& name : families) {
    const int f = family_index(name);
    for (int index : parameter_families()[f].members(bound)) out.push_back({f, index});
  }
  return out;
}

// The values 1, 2, 4, ... within the range: what WG_SWIZZLE and VECTOR_WIDTH can use (other values name no other
// grouping, or no OpenCL vector type).
std::vector<int64_t> powers_of_two(const LatticeContext& x) {
  std::vector<int64_t> powers;
  for (int64_t v = 1; v <= x.hi; v *= 2)
    if (v >= x.lo) powers.push_back(v);
  return powers;
}

// STRIDED_RUN's range: a run is read as one vector, and a GPU's widest read is 128 bits (a float4). Runs exist
// wherever strided ownership may: on `++` dimensions (register tiles read from local caches) and on reductions with
// a commutative operator (work-items sharing a streamed reduction, GEMV and DOT, read their runs from global memory
// into private caches as vectors); a non-commutative fold keeps block ownership.
bool has_strided_runs(const BoundMdh& bound, int d) {
  return bound.mdh->dims[d].combine.is_concat() || bound.mdh->dims[d].combine.is_commutative();
}

// Everything that sizes an array of the kernel (ParameterFamily::sizes_arrays): a constraint on a geometry quantity
// is checked once these are set.
std::vector<std::string> array_families() {
  std::vector<std::string> names;
  for (const ParameterFamily& f : parameter_families())
    if (f.sizes_arrays) names.push_back(f.name);
  return names;
}

// The memory a configuration needs, from codegen/tunable_geometry.h (the emitter sizes its arrays from the same).
Expr geometry_quantity(const FamilyContext& x, const std::string& name,
                       std::function<uint64_t(const TunableGeometry&)> quantity) {
  const BoundMdh* bound = &x.bound;
  return Expr::measured(name, refs(x.bound, array_families()), [bound, quantity](const ValueSource& v) {
    return static_cast<int64_t>(std::min<uint64_t>(quantity(tunable_geometry(*bound, config_of(*bound, v))),
                                                   std::numeric_limits<int64_t>::max()));
  });
}

std::vector<std::string> dimension_names(const BoundMdh& bound, int) {
  std::vector<std::string> names;
  for (const auto& d : bound.mdh->dims) names.push_back(d.name);
  return names;
}

std::optional<int64_t> no_neutral(const BoundMdh&, int) {
  return std::nullopt;
}

std::optional<int64_t> neutral_zero(const BoundMdh&, int) {
  return 0;
}

Expr reduction_sharing(const FamilyContext& x) {
  return x.product("NUM_WI", x.bound.mdh->reduction_dims());
}

}  // namespace mdh::families
