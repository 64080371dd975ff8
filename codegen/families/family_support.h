// What the modules of the family table (codegen/families/*.cpp) share: value encodings, search lattices, and the
// quantities their constraints read. Internal to codegen/.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "codegen/families/family_module.h"
#include "codegen/parameter_families.h"
#include "codegen/tunable_geometry.h"

namespace mdh::families {

inline constexpr int64_t kMaxOpenClIndex = std::numeric_limits<int32_t>::max();  // the kernel's ids are `int`
// STRIDED_RUN's range: a run is read as one vector, and a GPU's widest read is 128 bits (a float4).
inline constexpr int64_t kMaxStridedRun = 4;

int64_t ceil_div(int64_t a, int64_t b);
int buffer_rank(const Mdh& mdh, int access);
std::vector<int> all_dims(const Mdh& mdh);  // 0 .. dims-1
/// The product of the extents of `dims`, saturated at INT64_MAX: three dimensions of 2^31 - 1 exceed 64 bits, and
/// the families only compare it with small numbers.
int64_t extent_product(const BoundMdh& bound, const std::vector<int>& dims);

// Value encodings: label index <-> Memory value (-1: not a value of the family, which the range check reports),
// the labels and legacy codes of such a family, and permutation ranks.
int64_t label_index(const std::vector<Memory>& order, Memory m);
Memory memory_at(const std::vector<Memory>& order, int64_t index);
std::vector<std::string> memory_labels(const std::vector<Memory>& order);
std::vector<int64_t> memory_codes(const std::vector<Memory>& order);
int64_t rank_of(const std::vector<int>& permutation);
std::vector<int> permutation_of(int64_t rank, int n);

// Search lattices (ParameterFamily::lattice): powers of two, divisors of the extent and the range's ends; the whole
// range; powers of two alone.
std::set<int64_t> tile_sizes(const LatticeContext& x);
std::vector<int64_t> whole_range(int64_t lo, int64_t hi);
std::vector<int64_t> tile_lattice(const LatticeContext& x);
std::vector<int64_t> powers_of_two(const LatticeContext& x);

// Where STRIDED_RUN exists: `++` dimensions and reductions whose operator commutes.
bool has_strided_runs(const BoundMdh& bound, int d);

// Neutral values and permutation elements that several families share.
std::vector<std::string> dimension_names(const BoundMdh& bound, int);
std::optional<int64_t> no_neutral(const BoundMdh&, int);
std::optional<int64_t> neutral_zero(const BoundMdh&, int);
// The work-items that share the md_hom's reductions: the product of NUM_WI over the reduction dimensions.
Expr reduction_sharing(const FamilyContext& x);

// Quantities measured on a configuration built from parameter values: the typed config, the parameters a family
// list has for the md_hom, the families that size arrays (ParameterFamily::sizes_arrays), and a number from
// codegen/tunable_geometry.h, which the emitter sizes its arrays from too (the constraint reads every array family).
KernelConfig config_of(const BoundMdh& bound, const ValueSource& values);
std::vector<ParameterRef> refs(const BoundMdh& bound, const std::vector<std::string>& families);
std::vector<std::string> array_families();
Expr geometry_quantity(const FamilyContext& x, const std::string& name,
                       std::function<uint64_t(const TunableGeometry&)> quantity);

// get and set of a family of one parameter whose labels name the values of the KernelConfig enum `member` in
// declaration order (label index = enum value).
template <auto member>
void access_enum_member(ParameterFamily& f) {
  using Enum = std::remove_reference_t<decltype(std::declval<KernelConfig&>().*member)>;
  f.get = [](const KernelConfig& c, int) { return static_cast<int64_t>(c.*member); };
  f.set = [](KernelConfig& c, int, int64_t v) { c.*member = static_cast<Enum>(v); };
}

}  // namespace mdh::families
