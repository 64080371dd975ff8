// Random small search spaces and their brute-force enumeration, shared by the space tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tuner/space/search_space.h"

namespace mdh::tuner::testing {

using Values = std::vector<int64_t>;
using Reads = std::span<const int64_t>;

// Built piecewise: GCC 12 warns falsely (-Wrestrict) about "P" + std::to_string(i).
inline std::string parameter_name(size_t i) {
  std::string name = "P";
  name += std::to_string(i);
  return name;
}

// A random small space: 2-6 parameters, ranges from 2 to 80 values (so both stored levels and tail masks occur),
// and random constraints over random earlier parameters (sometimes none, giving several groups).
inline std::vector<Parameter> random_parameters_unbounded(Rng& rng) {
  const size_t count = 2 + rng.below(5);
  std::vector<Parameter> params;
  for (size_t i = 0; i < count; ++i) {
    std::string name = parameter_name(i);
    int64_t size = rng.chance(0.3) ? 20 + static_cast<int64_t>(rng.below(61)) : 2 + static_cast<int64_t>(rng.below(5));
    Parameter p = rng.chance(0.2) ? Parameter::boolean(name) : Parameter::integer(name, Range::interval(1, size));
    if (i > 0 && rng.chance(0.75)) {
      std::vector<std::string> reads;
      for (size_t j = 0; j < i; ++j)
        if (rng.chance(0.5)) reads.push_back(parameter_name(j));
      if (reads.empty()) reads.push_back(parameter_name(rng.below(i)));
      const int64_t modulus = 2 + static_cast<int64_t>(rng.below(4));
      switch (rng.below(3)) {
        case 0:
          p.constrain(reads, [modulus](int64_t v, Reads r) {
            int64_t sum = v;
            for (int64_t x : r) sum += x;
            return sum % modulus != 0;
          });
          break;
        case 1:
          p.constrain_prefix(reads, [](int64_t v, Reads r) { return v <= r[0] + 1; });  // ascending ranges
          break;
        default:
          p.constrain(reads, [modulus](int64_t v, Reads r) { return (v * r.back()) % modulus != 1; });
          break;
      }
    }
    if (rng.chance(0.2)) p.constrain([](int64_t v) { return v != 2; });
    params.push_back(std::move(p));
  }
  return params;
}

inline std::vector<Parameter> random_parameters(Rng& rng) {
  for (;;) {
    std::vector<Parameter> params = random_parameters_unbounded(rng);
    double product = 1;
    for (const Parameter& p : params) product *= static_cast<double>(p.range().size());
    if (product <= 20000) return params;  // keeps brute force fast
  }
}

inline std::set<Values> brute_force(const std::vector<Parameter>& params) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < params.size(); ++i) index[params[i].name()] = i;
  std::set<Values> valid;
  Values current(params.size());
  std::function<void(size_t)> recurse = [&](size_t i) {
    if (i == params.size()) {
      valid.insert(current);
      return;
    }
    for (int64_t v : params[i].range().values()) {
      current[i] = v;
      bool ok = true;
      for (const Constraint& c : params[i].constraints()) {
        Values reads;
        for (const std::string& r : c.reads) reads.push_back(current[index[r]]);
        ok = ok && c.predicate(v, reads);
      }
      if (ok) recurse(i + 1);
    }
  };
  recurse(0);
  return valid;
}

// 1-3 random global constraints over 2-3 random parameters each (any groups), each excluding a sizeable share.
inline std::vector<GlobalConstraint> random_global_constraints(Rng& rng, const std::vector<Parameter>& params) {
  std::vector<GlobalConstraint> constraints;
  const size_t count = 1 + rng.below(3);
  for (size_t c = 0; c < count; ++c) {
    GlobalConstraint constraint;
    const size_t reads = std::min<size_t>(params.size(), 2 + rng.below(2));
    while (constraint.reads.size() < reads) {
      const std::string& name = params[rng.below(params.size())].name();
      if (std::find(constraint.reads.begin(), constraint.reads.end(), name) == constraint.reads.end())
        constraint.reads.push_back(name);
    }
    const int64_t modulus = 2 + static_cast<int64_t>(rng.below(3));
    const int64_t bound = 3 + static_cast<int64_t>(rng.below(40));
    if (rng.chance(0.5)) {
      constraint.description = "sum % " + std::to_string(modulus) + " != 1";
      constraint.holds = [modulus](Reads r) {
        int64_t sum = 0;
        for (int64_t x : r) sum += x;
        return sum % modulus != 1;
      };
    } else {
      constraint.description = "first * last <= " + std::to_string(bound);
      constraint.holds = [bound](Reads r) { return r.front() * r.back() <= bound; };
    }
    constraints.push_back(std::move(constraint));
  }
  return constraints;
}

/// Whether values (declaration order) satisfy the global constraints, evaluated directly from their declaration.
inline bool satisfies(const std::vector<Parameter>& params, const std::vector<GlobalConstraint>& constraints,
                      const Values& values) {
  for (const GlobalConstraint& c : constraints) {
    Values reads;
    for (const std::string& name : c.reads)
      for (size_t i = 0; i < params.size(); ++i)
        if (params[i].name() == name) reads.push_back(values[i]);
    if (!c.holds(reads)) return false;
  }
  return true;
}

}  // namespace mdh::tuner::testing
