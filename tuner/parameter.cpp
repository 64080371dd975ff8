// Ranges and parameter kinds; the JSON forms of values are what journals, results and workers exchange.
#include "tuner/parameter.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "support/error.h"
#include "support/json_integer.h"

namespace mdh::tuner {
namespace {

// Materialised ranges are scanned once per memoised read tuple; a bound keeps a typo such as [1, 1e12]
// from silently eating the machine's memory.
constexpr size_t kMaxRangeSize = size_t{1} << 24;

int64_t factorial(int n) {
  int64_t result = 1;
  for (int i = 2; i <= n; ++i) result *= i;
  return result;
}

}  // namespace

Range::Range(std::vector<int64_t> values) : values_(std::move(values)) {
  if (values_.empty()) throw UserError("a parameter range must not be empty");
  if (values_.size() > kMaxRangeSize)
    throw UserError("a parameter range has " + std::to_string(values_.size()) + " values, more than the limit of " +
                    std::to_string(kMaxRangeSize));
}

Range Range::interval(int64_t first, int64_t last, int64_t step) {
  if (step <= 0) throw UserError("interval step must be positive, got " + std::to_string(step));
  if (last < first) throw UserError("interval [" + std::to_string(first) + ", " + std::to_string(last) + "] is empty");
  if (static_cast<uint64_t>(last - first) / static_cast<uint64_t>(step) >= kMaxRangeSize)
    throw UserError("interval [" + std::to_string(first) + ", " + std::to_string(last) + "] has too many values");
  std::vector<int64_t> values;
  for (int64_t v = first;; v += step) {
    values.push_back(v);
    if (last - v < step) break;
  }
  return Range(std::move(values));
}

Range Range::powers_of_two(int64_t first, int64_t last) {
  std::vector<int64_t> values;
  for (int64_t p = 1; p > 0 && p <= last; p *= 2)
    if (p >= first) values.push_back(p);
  if (values.empty())
    throw UserError("no power of two lies in [" + std::to_string(first) + ", " + std::to_string(last) + "]");
  return Range(std::move(values));
}

Range Range::set(std::vector<int64_t> values) {
  std::unordered_set<int64_t> seen;
  for (int64_t v : values)
    if (!seen.insert(v).second) throw UserError("value " + std::to_string(v) + " appears twice in a set range");
  return Range(std::move(values));
}

Range Range::generated(const std::function<std::vector<int64_t>()>& generator) {
  return set(generator());
}

Parameter::Parameter(std::string name, ValueKind kind, Range range)
    : name_(std::move(name)), kind_(kind), range_(std::move(range)) {
  if (name_.empty()) throw UserError("a tuning parameter needs a name");
}

Parameter Parameter::integer(std::string name, Range range) {
  return Parameter(std::move(name), ValueKind::integer, std::move(range));
}

Parameter Parameter::boolean(std::string name) {
  return Parameter(std::move(name), ValueKind::boolean, Range::set({0, 1}));
}

Parameter Parameter::enumeration(std::string name, std::vector<std::string> value_names) {
  if (value_names.empty()) throw UserError("enumeration parameter '" + name + "' has no values");
  Parameter p(std::move(name), ValueKind::enumeration,
              Range::interval(0, static_cast<int64_t>(value_names.size()) - 1));
  p.value_names_ = std::move(value_names);
  return p;
}

Parameter Parameter::permutation(std::string name, int length) {
  if (length < 1 || length > 10)
    throw UserError("permutation parameter '" + name + "' must permute 1 to 10 elements, got " +
                    std::to_string(length));
  Parameter p(std::move(name), ValueKind::permutation, Range::interval(0, factorial(length) - 1));
  p.permutation_length_ = length;
  return p;
}

Parameter Parameter::permutation(std::string name, std::vector<std::string> element_names) {
  Parameter p = permutation(std::move(name), static_cast<int>(element_names.size()));
  std::unordered_set<std::string> seen;
  for (const auto& e : element_names)
    if (!seen.insert(e).second)
      throw UserError("permutation parameter '" + p.name_ + "' names element '" + e + "' twice");
  p.value_names_ = std::move(element_names);
  return p;
}

Parameter& Parameter::accept_legacy_codes(std::vector<int64_t> codes) {
  MDH_INTERNAL_ASSERT(kind_ == ValueKind::enumeration && codes.size() == value_names_.size(),
                      "legacy codes: one per enumeration value of " + name_);
  legacy_codes_ = std::move(codes);
  return *this;
}

Parameter& Parameter::constrain(std::vector<std::string> reads, ConstraintPredicate predicate) {
  for (const std::string& read : reads)
    if (read == name_) throw UserError("constraint of '" + name_ + "' lists itself among its reads");
  constraints_.push_back({std::move(reads), std::move(predicate)});
  return *this;
}

Parameter& Parameter::constrain_prefix(std::vector<std::string> reads, ConstraintPredicate predicate) {
  constrain(std::move(reads), std::move(predicate));
  constraints_.back().holds_for_a_prefix = true;
  return *this;
}

Parameter& Parameter::constrain(std::function<bool(int64_t value)> predicate) {
  return constrain(
      {}, [predicate = std::move(predicate)](int64_t value, std::span<const int64_t>) { return predicate(value); });
}

std::vector<int64_t> Parameter::permutation_of(int64_t value) const {
  MDH_INTERNAL_ASSERT(kind_ == ValueKind::permutation, "not a permutation parameter");
  // Lexicographic rank -> permutation through the factorial number system.
  std::vector<int64_t> remaining(permutation_length_);
  std::iota(remaining.begin(), remaining.end(), 0);
  std::vector<int64_t> result;
  for (int i = permutation_length_; i >= 1; --i) {
    int64_t block = factorial(i - 1);
    size_t digit = static_cast<size_t>(value / block);
    value %= block;
    result.push_back(remaining[digit]);
    remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(digit));
  }
  return result;
}

nlohmann::json Parameter::value_to_json(int64_t value) const {
  switch (kind_) {
    case ValueKind::integer:
      return value;
    case ValueKind::boolean:
      return value != 0;
    case ValueKind::enumeration:
      return value_names_.at(static_cast<size_t>(value));
    case ValueKind::permutation: {
      if (value_names_.empty()) return permutation_of(value);
      nlohmann::json names = nlohmann::json::array();
      for (int64_t k : permutation_of(value)) names.push_back(value_names_.at(static_cast<size_t>(k)));
      return names;
    }
  }
  MDH_INTERNAL_ASSERT(false, "unknown value kind");
}

int64_t Parameter::value_from_json(const nlohmann::json& json) const {
  auto bad = [&](const std::string& why) {
    return UserError("value " + json.dump() + " of parameter '" + name_ + "' " + why);
  };
  int64_t value = 0;
  switch (kind_) {
    case ValueKind::integer:
      if (!json_int64(json)) throw bad("is not an integer (of at most 63 bits)");
      value = *json_int64(json);
      break;
    case ValueKind::boolean:
      if (!json.is_boolean()) throw bad("is not a boolean");
      value = json.get<bool>() ? 1 : 0;
      break;
    case ValueKind::enumeration: {
      if (json.is_number_integer() && !legacy_codes_.empty()) {
        auto it = std::find(legacy_codes_.begin(), legacy_codes_.end(), json_int64(json).value_or(-1));
        if (it == legacy_codes_.end()) throw bad("is not one of its enumeration values");
        value = it - legacy_codes_.begin();
        break;
      }
      if (!json.is_string()) throw bad("is not a string");
      auto it = std::find(value_names_.begin(), value_names_.end(), json.get<std::string>());
      if (it == value_names_.end()) throw bad("is not one of its enumeration values");
      value = it - value_names_.begin();
      break;
    }
    case ValueKind::permutation: {
      if (json.is_number_integer()) {  // the rank, as journals wrote it before permutations were lists
        if (!json_int64(json)) throw bad("is not a permutation rank");
        value = *json_int64(json);
        break;
      }
      if (!json.is_array() || json.size() != static_cast<size_t>(permutation_length_))
        throw bad("is not a list of " + std::to_string(permutation_length_) + " elements");
      std::vector<int64_t> perm;
      for (const auto& e : json) {
        if (e.is_string() && !value_names_.empty()) {
          auto it = std::find(value_names_.begin(), value_names_.end(), e.get<std::string>());
          if (it == value_names_.end()) throw bad("names an element it does not permute");
          perm.push_back(it - value_names_.begin());
          continue;
        }
        if (!json_int64(e)) throw bad("is not a list of integers");
        perm.push_back(*json_int64(e));
      }
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      for (int i = 0; i < permutation_length_; ++i)
        if (sorted[i] != i) throw bad("is not a permutation of 0.." + std::to_string(permutation_length_ - 1));
      // Permutation -> lexicographic rank.
      for (int i = 0; i < permutation_length_; ++i) {
        int64_t smaller_later = 0;
        for (int j = i + 1; j < permutation_length_; ++j) smaller_later += perm[j] < perm[i] ? 1 : 0;
        value += smaller_later * factorial(permutation_length_ - 1 - i);
      }
      break;
    }
  }
  const auto& values = range_.values();
  if (std::find(values.begin(), values.end(), value) == values.end()) throw bad("is not in its range");
  return value;
}

}  // namespace mdh::tuner
