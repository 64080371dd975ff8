// The tuning space as the tuner's search space (see tuning_search_space.h).
#include "pipeline/tuning_search_space.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "codegen/config_json.h"
#include "codegen/parameter_families.h"
#include "support/error.h"

namespace mdh {

namespace {

// Full ranges hold every integer: one dimension's tile sizes and counts alone then make a tree whose generation
// grows with the square of the extent (at 2048, 44 million combinations, minutes and gigabytes). They are counted
// first, cheaply, and refused past this many (at 512 there are 2.3 million).
constexpr uint64_t kMaxFullRangeTileCombinations = uint64_t{1} << 22;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// The combinations of LT_SIZE, PT_SIZE, NUM_WI and NUM_WG of one dimension that their own bounds allow (PT <= LT,
// NUM_WI <= ceil(LT / PT), NUM_WG <= ceil(extent / LT)), counted up to `limit`.
uint64_t tile_combinations(const std::vector<int64_t>& local, const std::vector<int64_t>& priv,
                           const std::vector<int64_t>& items, const std::vector<int64_t>& groups, int64_t extent,
                           uint64_t limit) {
  auto at_most = [](const std::vector<int64_t>& sorted, int64_t bound) {
    return static_cast<uint64_t>(std::upper_bound(sorted.begin(), sorted.end(), bound) - sorted.begin());
  };
  uint64_t total = 0;
  for (int64_t lt : local) {
    const uint64_t group_counts = at_most(groups, ceil_div(extent, lt));
    for (int64_t pt : priv) {
      if (pt > lt) break;
      total += at_most(items, ceil_div(lt, pt)) * group_counts;
      if (total > limit) return total;
    }
  }
  return total;
}

// Refuses a space of full ranges whose tile combinations of some dimension exceed kMaxFullRangeTileCombinations.
void check_full_range_size(const TuningSpace& space, const std::vector<std::vector<int64_t>>& candidates) {
  if (!space.full_ranges) return;
  // Sorted copies: a --restrict may list values in any order.
  auto values_of = [&](const std::string& name) -> std::optional<std::vector<int64_t>> {
    const int k = space.find(name);
    if (k < 0) return std::nullopt;
    std::vector<int64_t> values = candidates[static_cast<size_t>(k)];
    std::sort(values.begin(), values.end());
    return values;
  };
  for (const TuningParameter& p : space.parameters) {
    if (p.family->name != "LT_SIZE") continue;
    const std::string dimension = p.name.substr(std::string("LT_SIZE_").size());
    const auto local = values_of(p.name), priv = values_of("PT_SIZE_" + dimension),
               items = values_of("NUM_WI_" + dimension), groups = values_of("NUM_WG_" + dimension);
    if (!local || !priv || !items || !groups) continue;
    const int64_t extent = space.dim_extents.at(static_cast<size_t>(p.ref.index));
    const uint64_t count = tile_combinations(*local, *priv, *items, *groups, extent, kMaxFullRangeTileCombinations);
    if (count > kMaxFullRangeTileCombinations)
      throw UserError("--full-ranges: LT_SIZE_" + dimension + ", PT_SIZE_" + dimension + ", NUM_WI_" + dimension +
                      " and NUM_WG_" + dimension + " at extent " + std::to_string(extent) + " have more than " +
                      std::to_string(kMaxFullRangeTileCombinations) +
                      " combinations, too many for the tuner to hold (it searches every integer of each range); "
                      "leave --full-ranges off (the default ranges hold the sizes worth trying), or narrow the "
                      "ranges with --restrict");
  }
}

}  // namespace

tuner::SearchSpace make_search_space(const TuningSpace& space, unsigned threads) {
  const size_t n = space.parameters.size();
  const std::vector<std::vector<int64_t>> candidates = search_values(space);
  check_full_range_size(space, candidates);
  std::vector<tuner::Parameter> parameters;
  parameters.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    const TuningParameter& p = space.parameters[k];
    // Enumerations and loop orders carry their names into journals and results; a restriction narrows them by a
    // constraint on the value alone (their ranges are the whole lists, so that the JSON forms stay the same).
    switch (p.kind()) {
      case FamilyValueKind::integer:
        parameters.push_back(tuner::Parameter::integer(p.name, tuner::Range::set(candidates[k])));
        continue;
      case FamilyValueKind::enumeration:
        parameters.push_back(tuner::Parameter::enumeration(p.name, p.family->labels));
        parameters.back().accept_legacy_codes(p.family->legacy_codes);
        break;
      case FamilyValueKind::permutation:
        parameters.push_back(p.family->scope == FamilyScope::input_access
                                 ? tuner::Parameter::permutation(p.name, p.permutation_length)
                                 : tuner::Parameter::permutation(p.name, p.permutation_elements));
        break;
    }
    if (p.restricted && p.kind() == FamilyValueKind::permutation)
      parameters.back().restrict_to(*p.restricted);  // as data: a long permutation's orders are never listed
    else if (p.restricted)
      parameters.back().constrain([allowed = *p.restricted](int64_t v) {
        return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
      });
  }
  // The constraints read values through AssignmentValues: fill exactly the parameters the constraint declares (the
  // others keep their first value, so that derived quantities stay well defined). Tree generation calls them from
  // several threads, hence one buffer per thread, reused.
  auto shared_space = std::make_shared<const TuningSpace>(space);
  auto assignment_buffer = [n, shared_space]() -> Assignment& {
    thread_local const TuningSpace* owner = nullptr;
    thread_local Assignment buffer;
    if (owner != shared_space.get() || buffer.size() != n) {
      buffer.clear();
      for (const TuningParameter& p : shared_space->parameters) buffer.push_back(p.lo);
      owner = shared_space.get();
    }
    return buffer;
  };
  std::vector<tuner::GlobalConstraint> global_constraints;
  for (const TuningConstraint& c : space.constraints) {
    if (!space.applies(c)) continue;  // a lattice-only constraint in a space of full ranges
    const int owner = c.last_read();
    MDH_INTERNAL_ASSERT(owner >= 0 && static_cast<size_t>(owner) < n, "constraint without reads: " + c.description());
    const Condition condition = c.condition;
    // A constraint across parameter groups (work-items of all dimensions, the NDRange, memory) is checked per
    // configuration: in a tree it would merge every group it reads, and one tree over all parameters is
    // astronomically large.
    bool across_groups = false;
    for (int r : c.reads) across_groups = across_groups || space.parameters[r].group != space.parameters[owner].group;
    if (across_groups) {
      std::vector<std::string> names;
      for (int r : c.reads) names.push_back(space.parameters[r].name);
      global_constraints.push_back(
          {c.description(), std::move(names),
           [condition, reads = c.reads, assignment_buffer, shared_space](std::span<const int64_t> values) {
             Assignment& a = assignment_buffer();
             for (size_t k = 0; k < reads.size(); ++k) a[reads[k]] = values[k];
             return condition.holds(AssignmentValues(*shared_space, a));
           }});
      continue;
    }
    std::vector<int> others;
    std::vector<std::string> names;
    for (int r : c.reads)
      if (r != owner) others.push_back(r), names.push_back(space.parameters[r].name);
    // Classes in order go to the tuner as data, from which it builds the valid orders of a long permutation
    // without testing each of its n! orders.
    if (!c.permutation_classes.empty()) {
      parameters[owner].keep_classes_in_order(c.permutation_classes);
      continue;
    }
    parameters[owner].constrain(names, [condition, owner, others, assignment_buffer, shared_space](
                                           int64_t value, std::span<const int64_t> reads) {
      Assignment& a = assignment_buffer();
      a[owner] = value;
      for (size_t k = 0; k < others.size(); ++k) a[others[k]] = reads[k];
      return condition.holds(AssignmentValues(*shared_space, a));
    });
  }
  try {
    return tuner::SearchSpace(std::move(parameters), std::move(global_constraints), threads);
  } catch (const tuner::GroupTooLarge& e) {
    if (!space.full_ranges) throw;
    throw UserError(std::string(e.what()) +
                    ": --full-ranges searches every integer of each range, which at these sizes is more than the "
                    "tuner can hold; leave it off (the default ranges hold the sizes worth trying), or narrow the "
                    "ranges with --restrict");
  }
}

KernelConfig kernel_config_of(const BoundMdh& bound, const TuningSpace& space,
                              const tuner::Configuration& configuration) {
  MDH_INTERNAL_ASSERT(configuration.size() == space.parameters.size(), "configuration of another space");
  return config_from_assignment(bound, space, configuration.values());
}

std::optional<tuner::Point> point_of_config(const tuner::SearchSpace& search_space, const BoundMdh& bound,
                                            const KernelConfig& config) {
  nlohmann::json named = config_to_json(bound, config);
  named.erase("mdh_config");  // a configuration of the tuner's space names parameters only
  try {
    return search_space.point_of(search_space.configuration_from_json(named));
  } catch (const UserError&) {
    return std::nullopt;
  }
}

}  // namespace mdh
