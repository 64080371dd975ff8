// Resolution of global constraints' reads and the per-configuration checks.
#include "tuner/space/global_constraints.h"

#include <algorithm>
#include <map>

#include "support/error.h"

namespace mdh::tuner {

GlobalConstraintSet::GlobalConstraintSet(std::vector<GlobalConstraint> constraints,
                                         const std::vector<Parameter>& parameters,
                                         const std::vector<size_t>& group_of_parameter, size_t group_count)
    : constraints_of_group_(group_count) {
  std::map<std::string, size_t> index_of_name;
  for (size_t i = 0; i < parameters.size(); ++i) index_of_name.emplace(parameters[i].name(), i);
  for (GlobalConstraint& constraint : constraints) {
    if (constraint.reads.empty())
      throw UserError("global constraint '" + constraint.description + "' reads no parameter");
    if (!constraint.holds) throw UserError("global constraint '" + constraint.description + "' has no predicate");
    Resolved resolved{std::move(constraint.description), {}, {}, std::move(constraint.holds)};
    for (const std::string& name : constraint.reads) {
      auto it = index_of_name.find(name);
      if (it == index_of_name.end())
        throw UserError("global constraint '" + resolved.description + "' reads '" + name +
                        "', which is not a parameter of the space");
      resolved.reads.push_back(it->second);
    }
    const size_t c = constraints_.size();
    for (size_t i : resolved.reads) {
      std::vector<size_t>& of_group = constraints_of_group_[group_of_parameter[i]];
      if (of_group.empty() || of_group.back() != c) of_group.push_back(c);
      read_groups_.push_back(group_of_parameter[i]);
      resolved.groups.push_back(group_of_parameter[i]);
    }
    std::sort(resolved.groups.begin(), resolved.groups.end());
    resolved.groups.erase(std::unique(resolved.groups.begin(), resolved.groups.end()), resolved.groups.end());
    constraints_.push_back(std::move(resolved));
  }
  std::sort(read_groups_.begin(), read_groups_.end());
  read_groups_.erase(std::unique(read_groups_.begin(), read_groups_.end()), read_groups_.end());
}

bool GlobalConstraintSet::holds(size_t c, std::span<const int64_t> values, std::vector<int64_t>& reads) const {
  const Resolved& constraint = constraints_[c];
  reads.clear();
  for (size_t i : constraint.reads) reads.push_back(values[i]);
  return constraint.holds(reads);
}

size_t GlobalConstraintSet::first_failure(std::span<const int64_t> values, std::vector<int64_t>& reads) const {
  for (size_t c = 0; c < constraints_.size(); ++c)
    if (!holds(c, values, reads)) return c;
  return npos;
}

}  // namespace mdh::tuner
