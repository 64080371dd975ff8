// The tunable kernel's tuning-parameter families, declared once as data (PACT'19 Table I plus ours). Each entry
// says how many parameters the family has for an md_hom (its scope), what its values are (integers with their
// search lattice, named enumeration values, or permutations), the neutral value that reproduces the kernel
// generated before the family existed, how it reads and writes the typed KernelConfig, and the constraints it
// introduces. Everything else is derived from this table: the config JSON form (config_json.h), the tuning space
// and its checks (tuning_space.h), the tuner's parameters and their names in journals, and `mdh space`.
//
// The entries live in modules under codegen/families/, one per family or tight group, each declaring its position
// in the table (families/family_module.h). Adding a family: its module, and its tests; its values need no field of
// KernelConfig (ParameterFamily::get), code local to one point of the kernel is the module's own
// (ParameterFamily::hooks), and so are the names that code declares (ParameterFamily::generated_names). Code that
// runs through the loop nest goes into emitter/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/constraint.h"
#include "codegen/device_limits.h"
#include "codegen/family_hooks.h"
#include "codegen/kernel_config.h"
#include "codegen/tensor_core.h"
#include "mdh/bind.h"

namespace mdh {

/// How many parameters of a family an md_hom has.
enum class FamilyScope {
  dimension,     // one per dimension of the md_hom ("LT_SIZE_i")
  input_access,  // one per input access ("MEM_INP_L_A", "MEM_INP_L_A@a" where a buffer is read twice)
  single,        // one ("CMB_RES")
};

/// What a family's values mean. Enumeration values are indices into `labels`; permutation values are lexicographic
/// ranks of permutations of 0..n-1.
enum class FamilyValueKind { integer, enumeration, permutation };

class ParameterFamily;

/// What the declarations of a family may consult while the space of one md_hom is built: the bound md_hom, the
/// device's limits, and the other families (to refer to their parameters in constraints).
class FamilyContext {
 public:
  FamilyContext(const BoundMdh& bound, const DeviceLimits& limits) : bound(bound), limits(limits) {}
  const BoundMdh& bound;
  const DeviceLimits& limits;

  /// Parameter `index` of the family named `family`, as an expression ("LT_SIZE_i").
  Expr parameter(const std::string& family, int index = 0) const;
  /// parameter == label, printed with the label ("MEM_RES_P = private").
  Condition is(const std::string& family, int index, const std::string& label) const;
  Condition is_not(const std::string& family, int index, const std::string& label) const;
  /// The product of a family's parameters over some dimensions (1 when none).
  Expr product(const std::string& family, const std::vector<int>& dims) const;
};

/// What a family's search lattice may consult: its range, the dimension's extent (0 for families not per
/// dimension), the device's SIMD width, and the lattices already chosen for the other families of the same member
/// (NUM_WG's lattice holds ceil(extent / LT) for LT's lattice values).
struct LatticeContext {
  int64_t lo = 0, hi = 0;
  int64_t extent = 0;
  int64_t simd_width = 1;
  std::function<const std::vector<int64_t>&(const std::string& family)> lattice_of;
};

class ParameterFamily {
 public:
  std::string name;  // "LT_SIZE"; a parameter is named name + "_" + member suffix (none for FamilyScope::single)
  FamilyScope scope = FamilyScope::single;
  FamilyValueKind kind = FamilyValueKind::integer;
  std::string meaning;  // one line, for `mdh space` and the docs
  /// The size families of one dimension constrain each other mostly among themselves: the tuner builds one tree per
  /// dimension for them (and one per parameter of the other families).
  bool grouped_by_dimension = false;
  /// The kernel shape whose configurations the family tunes: it has members only for md_homs generated in that
  /// shape (codegen/tensor_core.h).
  KernelShape shape = KernelShape::tiles;
  /// The family sizes an array of the kernel (local or private memory, scratch): the constraints on the memory a
  /// configuration needs (geometry quantities) read every such family.
  bool sizes_arrays = false;

  // Enumerations: the value names, in the order the tuner prefers them (the first is tried first), and the integers
  // that journals and tuning results wrote for them before values were named (C++ enum ordinals; left empty, label k's
  // code is k).
  std::vector<std::string> labels;
  std::vector<int64_t> legacy_codes;

  /// Which members exist (default: all of the scope). BUF_ORDER exists only for buffers of rank 2 and more.
  std::function<bool(const BoundMdh&, int index)> exists;
  /// Integers: the range [min_value, max_value(...)].
  int64_t min_value = 1;
  std::function<int64_t(const FamilyContext&, int index)> max_value;
  /// Integers: the values the tuner searches within the range (ascending); default: the whole range. A tuning
  /// request with full_ranges searches the whole range of every family instead (TuningSpace::full_ranges).
  std::function<std::vector<int64_t>(const LatticeContext&)> lattice;
  /// Permutations: the names of the permuted elements (dimension names, or buffer dimension positions "0", "1").
  std::function<std::vector<std::string>(const BoundMdh&, int index)> permutation_elements;
  /// Permutations: classes of the elements that every valid order keeps in order (each element of a smaller class
  /// before every element of a larger one), and what an element out of that order is called. The space gets the
  /// constraint "<out_of_class_order> in <parameter> = 0"; the tuner builds the valid orders from the classes
  /// instead of testing each of the n! orders.
  std::function<std::vector<int>(const BoundMdh&, int index)> permutation_classes;
  std::string out_of_class_order;
  /// The value a config that does not name this parameter gets: the one that generates the kernel as it was before
  /// the family existed. Nullopt: every configuration must name it.
  std::function<std::optional<int64_t>(const BoundMdh&, int index)> neutral;

  /// Typed access to KernelConfig (values in the family's encoding: label index, permutation rank). Left unset,
  /// the family keeps its values in KernelConfig::family_values under its name: a family whose kernel code reads
  /// it through KernelConfig::value needs no field of its own.
  std::function<int64_t(const KernelConfig&, int index)> get;
  std::function<void(KernelConfig&, int index, int64_t value)> set;

  /// Constraints this family introduces, per member and once per md_hom (only where the md_hom has members).
  std::function<std::vector<Condition>(const FamilyContext&, int index)> member_constraints;
  std::function<std::vector<Condition>(const FamilyContext&)> family_constraints;
  /// Constraints of the default search space only, as the lattices are: configurations that violate them are valid
  /// (they build, run and verify; check_config accepts them), but the default search leaves them out as shapes that
  /// are not fast. A space with full_ranges drops them (TuningSpace::applies).
  std::function<std::vector<Condition>(const FamilyContext&)> lattice_constraints;

  /// Where a configuration can leave a member nothing to act on (EDGE_POINTS where no `++` dimension has edge tiles
  /// it applies to), and every value then generates the neutral value's kernel: `count` says how many things the
  /// member would act on with a non-neutral value (its own value ignored), reading only the families `reads` names.
  /// Where it counts none, the member holds its neutral value only: the space says so in one constraint ("EDGE_POINTS
  /// = guarded unless <name> >= 1"), so that no kernel is searched twice, and config_from_json reads any other value
  /// as the neutral one (reset_values_without_effect), so that configurations stored before keep loading.
  struct Effect {
    std::string name;
    std::vector<std::string> reads;
    std::function<int64_t(const BoundMdh&, const KernelConfig&, int index)> count;
  };
  std::optional<Effect> effect;

  /// The family's code in the tile kernel, where it is local to a named point (codegen/family_hooks.h), and the
  /// names that code declares.
  FamilyEmitterHooks hooks;
  FamilyGeneratedNames generated_names;

  /// The members an md_hom has, in order (dimension or input access indices; {0} for single): none where the
  /// md_hom is generated in another kernel shape.
  std::vector<int> members(const BoundMdh& bound) const;
  bool has_member(const BoundMdh& bound, int index) const;
  /// "LT_SIZE_i", "MEM_INP_L_A", "CMB_RES".
  std::string parameter_name(const Mdh& mdh, int index) const;
};

/// The member's slot in a per-member field of KernelConfig, grown as needed: a family's `set` that writes through it
/// needs no sizing code elsewhere (config_frame sets every member to its neutral value).
template <class T>
T& member_slot(std::vector<T>& values, int index) {
  if (values.size() <= static_cast<size_t>(index)) values.resize(static_cast<size_t>(index) + 1);
  return values[static_cast<size_t>(index)];
}

/// The table, in declaration order (parameters are laid out in this order: the families grouped by dimension
/// first, dimension by dimension, then every other family member by member).
const std::vector<ParameterFamily>& parameter_families();
/// A module of the table, codegen/families/<name>.cpp, and its position (families/family_module.h).
struct FamilyModule {
  std::string name;
  int position = 0;
};
/// The modules whose families the table holds, in table order.
const std::vector<FamilyModule>& family_modules();
/// The index of a family in the table; an internal error for an unknown name (names are ours, not the user's).
int family_index(const std::string& name);
/// The family with this name, or nullptr.
const ParameterFamily* find_family(const std::string& name);

/// A value of a family kept in KernelConfig::family_values, by label (F_INLINE "unrolled"), for code that names
/// values (defaults, tests); an internal error for a label the family lacks.
void set_label(KernelConfig& config, const std::string& family, const std::string& label, int member = 0);
/// Its label in a configuration; "" where the configuration lacks it (a member the md_hom does not have).
std::string label_of(const KernelConfig& config, const std::string& family, int member = 0);
/// Whether that value is `label` (false where the configuration lacks it); an internal error for a label the family
/// lacks, so that a misspelt label cannot read as a value never taken.
bool has_label(const KernelConfig& config, const std::string& family, const std::string& label, int member = 0);

/// The `++` dimension along which the output buffer's unit-stride index moves one element at a time (its index is
/// that dimension plus a constant), so that a work-item's consecutive results along it are consecutive elements:
/// where STORE_WIDTH exists. -1 where there is none (a struct result type, a scaled or summed index, a reduction).
int store_dimension(const BoundMdh& bound);

/// Whether the default space holds only work-groups of whole warps (the warp constraint of NUM_WI, lattice-only):
/// on devices that report a warp (DeviceLimits::warp_size > 1), where the `++` dimensions alone can hold a
/// work-group of exactly one warp, each dimension's work-items within its extent and on NUM_WI's lattice (a power
/// of two, a divisor of the extent, a multiple of the SIMD width). Elsewhere no work-group may be a multiple of
/// the warp (GEMM 2x3x5: 6 work-items along `++` dimensions at most), or only work-groups whose reductions are
/// shared (DOT: no `++` dimension; GEMM 2x4x64), which small sizes' defaults do not use, so the constraint is left
/// out.
bool whole_warps_apply(const BoundMdh& bound, const DeviceLimits& limits);

/// A config of the md_hom's shape with the fixed values of the global layer (inputs read through, results in
/// global memory) and every parameter at its family's neutral value (sizes 1, OpenCL dimension 0).
KernelConfig config_frame(const BoundMdh& bound);

/// Sets every member that has nothing to act on in the configuration (ParameterFamily::effect) to its neutral value:
/// the same kernel, in the one form the space holds.
void reset_values_without_effect(const BoundMdh& bound, KernelConfig& config);

/// The typed configuration whose every parameter has the value the source gives (config_frame for the rest).
KernelConfig config_from_values(const BoundMdh& bound, const ValueSource& values);

}  // namespace mdh
