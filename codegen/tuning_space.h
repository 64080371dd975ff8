// The tuning space of the tunable kernel for one bound md_hom and device: the parameter families of
// codegen/parameter_families.h instantiated (one parameter per member) with their ranges, and their constraints.
// Plain data, independent of the tuner library; pipeline/ maps it onto tuner/, which is the one engine that
// counts, samples and searches it. Every configuration that satisfies all constraints builds, launches and gives
// the right result: the emitter relies on exactly these constraints.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "codegen/constraint.h"
#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/parameter_families.h"
#include "mdh/bind.h"

namespace mdh {

/// One value per parameter, indexed like TuningSpace::parameters, in the families' encodings.
using Assignment = std::vector<int64_t>;

struct TuningParameter {
  std::string name;  // "LT_SIZE_i", "MEM_INP_L_A", "LOOP_ORDER_G", ...
  ParameterRef ref;  // family and member
  const ParameterFamily* family = nullptr;
  int64_t lo = 0, hi = 0;  // the range: integers as declared; enumerations 0..labels-1; permutations 0..n!-1
  int permutation_length = 0;
  std::vector<std::string> permutation_elements;  // names of the permuted elements (permutations)
  std::optional<int64_t> neutral;                 // see ParameterFamily::neutral
  /// Set by restrict_to: only these values (`mdh tune --restrict`, tests).
  std::optional<std::vector<int64_t>> restricted;
  /// Parameters of one group are constrained mostly among themselves (the four sizes of one dimension): the tuner
  /// builds one tree per group. Every other parameter is a group of its own.
  int group = 0;

  FamilyValueKind kind() const { return family->kind; }
  bool contains(int64_t value) const;
  /// How `mdh space` and messages write a value: the number, the label, or the permutation "k,i,j".
  std::string value_name(int64_t value) const;
  /// The JSON form of a value (configs and journals): a number, a label, or a list of element names.
  nlohmann::json value_to_json(int64_t value) const;
  /// The inverse; also reads the forms written before values were named (enumeration ordinals, permutation ranks,
  /// permutations as lists of positions). Throws UserError("config: NAME: ...").
  int64_t value_from_json(const nlohmann::json& json) const;
  /// A value by the name `mdh space` prints, or by number (--restrict); nullopt when neither.
  std::optional<int64_t> parse_value_name(const std::string& text) const;
};

struct TuningConstraint {
  Condition condition;
  std::vector<int> reads;  // parameter indices, each once
  /// Non-empty when the condition says that the permutation reads[0] keeps these classes of its elements in order
  /// (ParameterFamily::permutation_classes).
  std::vector<int> permutation_classes;
  /// From ParameterFamily::lattice_constraints: part of the default search space, not of validity.
  bool lattice_only = false;
  std::string description() const { return condition.to_string(); }
  int last_read() const;  // the parameter after which it can be checked
};

struct TuningSpace {
  std::vector<TuningParameter> parameters;
  std::vector<TuningConstraint> constraints;
  /// -1 when absent.
  int find(const std::string& name) const;
  int index_of(const ParameterRef& ref) const;
  /// Narrows a parameter to the given values; throws UserError for an unknown name or a value outside its range.
  void restrict_to(const std::string& name, const std::vector<int64_t>& values);
  /// Search every integer of each range instead of the families' lattices (`mdh tune --full-ranges`): the space
  /// of the paper, mostly odd sizes; for experiments with the search, not for finding fast kernels.
  bool full_ranges = false;
  /// Whether a constraint bounds this space: every constraint but the lattice-only ones with full_ranges.
  bool applies(const TuningConstraint& constraint) const { return !constraint.lattice_only || !full_ranges; }
  /// What the lattices read (set by make_tuning_space): the dimensions' extents and the device's SIMD width.
  std::vector<int64_t> dim_extents;
  int64_t simd_width = 1;

  std::vector<std::vector<int>> index_;  // [family][member] -> parameter index (-1: no such parameter)
};

/// Throws UserError when the tunable kernel cannot handle the md_hom at all (several reduction dimensions whose
/// operators differ or are user operators: their nesting order could not be kept). Cheap: no value is enumerated.
TuningSpace make_tuning_space(const BoundMdh& bound, const DeviceLimits& limits);

Assignment assignment_from_config(const TuningSpace& space, const KernelConfig& config);
KernelConfig config_from_assignment(const BoundMdh& bound, const TuningSpace& space, const Assignment& values);

/// Parameter values read from an assignment (constraints evaluate through it).
class AssignmentValues final : public ValueSource {
 public:
  AssignmentValues(const TuningSpace& space, const Assignment& values) : space_(space), values_(values) {}
  int64_t value(const ParameterRef& parameter) const override;

 private:
  const TuningSpace& space_;
  const Assignment& values_;
};

/// Nullopt when every value is in its range and every constraint that applies (TuningSpace::applies) holds;
/// otherwise what is wrong, e.g. "violates PT_SIZE_i <= LT_SIZE_i (PT_SIZE_i = 8, LT_SIZE_i = 4)".
std::optional<std::string> first_violation(const TuningSpace& space, const Assignment& values);

/// Throws UserError("config: ...") when the config has the wrong shape, sets a value the kernel does not support
/// (G-layer caching, MEM_RES[G] other than global) or violates the space's constraints for the device (not the
/// lattice-only ones: a work-group that is no multiple of the warp runs, and stored tuning results hold such).
void check_config(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits);
/// Nullopt when the lattice-only constraints hold for a valid config (it may still have a value outside the lattices);
/// otherwise the violation, as first_violation says it. `mdh run` notes it: the default search never tries the
/// config.
std::optional<std::string> lattice_only_violation(const BoundMdh& bound, const KernelConfig& config,
                                                  const DeviceLimits& limits);

/// The values the tuner searches per parameter: the family's lattice within the range for integers (the whole range
/// with full_ranges; or the restriction), every value for enumerations and permutations (or the restriction), except
/// that a range of more than kMaxListedSearchValues values (a permutation of 9 or more elements) is left empty:
/// listing n! orders would take the memory the tuner avoids by ranking them.
inline constexpr int64_t kMaxListedSearchValues = 40320;
std::vector<std::vector<int64_t>> search_values(const TuningSpace& space);
}  // namespace mdh
