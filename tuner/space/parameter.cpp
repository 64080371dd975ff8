// Ranges and parameter kinds; the JSON forms of values are what journals, results and workers exchange.
#include "tuner/space/parameter.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "support/error.h"
#include "support/json_integer.h"
#include "tuner/space/permutation_set.h"

namespace mdh::tuner {
namespace {

// Materialised ranges are scanned once per memoised read tuple; a bound keeps a typo such as [1, 1e12]
// from silently eating the machine's memory.
constexpr size_t kMaxRangeSize = size_t{1} << 24;

}  // namespace

Range::Range(std::vector<int64_t> values) : values_(std::move(values)) {
  if (values_.empty()) throw UserError("a parameter range must not be empty");
  if (values_.size() > kMaxRangeSize)
    throw UserError("a parameter range has " + std::to_string(values_.size()) + " values, more than the limit of " +
                    std::to_string(kMaxRangeSize));
}

const std::vector<int64_t>& Range::values() const {
  MDH_INTERNAL_ASSERT(enumerated(), "the values of a range that is not enumerated");
  return values_;
}

std::optional<uint64_t> Range::index_of(int64_t value) const {
  if (!enumerated()) {
    if (value < 0 || static_cast<uint64_t>(value) >= lazy_size_) return std::nullopt;
    return static_cast<uint64_t>(value);
  }
  auto it = std::find(values_.begin(), values_.end(), value);
  if (it == values_.end()) return std::nullopt;
  return static_cast<uint64_t>(it - values_.begin());
}

Range Range::permutation_ranks(int n) {
  MDH_INTERNAL_ASSERT(n >= 1 && n <= kMaxPermutationLength, "permutation length out of range");
  const uint64_t count = permutation_count(n);
  if (n <= kMaxEnumeratedPermutationLength) return interval(0, static_cast<int64_t>(count) - 1);
  Range range({0});
  range.values_.clear();
  range.lazy_size_ = count;
  return range;
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
  if (length < 1 || length > kMaxPermutationLength)
    throw UserError("permutation parameter '" + name + "' must permute 1 to " + std::to_string(kMaxPermutationLength) +
                    " elements, got " + std::to_string(length));
  Parameter p(std::move(name), ValueKind::permutation, Range::permutation_ranks(length));
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
  Constraint constraint;
  constraint.reads = std::move(reads);
  constraint.predicate = std::move(predicate);
  constraints_.push_back(std::move(constraint));
  return *this;
}

Parameter& Parameter::constrain_prefix(std::vector<std::string> reads, ConstraintPredicate predicate) {
  constrain(std::move(reads), std::move(predicate));
  constraints_.back().holds_for_a_prefix = true;
  return *this;
}

Parameter& Parameter::restrict_to(std::vector<int64_t> allowed) {
  constrain([allowed](int64_t value) { return std::find(allowed.begin(), allowed.end(), value) != allowed.end(); });
  constraints_.back().shape = Constraint::Shape::one_of;
  constraints_.back().values = std::move(allowed);
  return *this;
}

Parameter& Parameter::pin_unless(int64_t pinned, std::vector<std::string> reads,
                                 std::function<bool(std::span<const int64_t>)> exempt) {
  constrain(std::move(reads),
            [pinned, exempt](int64_t value, std::span<const int64_t> read) { return value == pinned || exempt(read); });
  constraints_.back().shape = Constraint::Shape::pinned_unless;
  constraints_.back().values = {pinned};
  constraints_.back().exempt = std::move(exempt);
  return *this;
}

Parameter& Parameter::keep_classes_in_order(std::vector<int> class_of_element) {
  if (kind_ != ValueKind::permutation || class_of_element.size() != static_cast<size_t>(permutation_length_))
    throw UserError("parameter '" + name_ + "': classes in order need a permutation and one class per element");
  const int n = permutation_length_;
  constrain([class_of_element, n](int64_t value) {
    int highest = 0;
    bool first = true;
    for (int e : permutation_of_rank(value, n)) {
      if (!first && class_of_element[e] < highest) return false;
      highest = first ? class_of_element[e] : std::max(highest, class_of_element[e]);
      first = false;
    }
    return true;
  });
  constraints_.back().shape = Constraint::Shape::classes_in_order;
  constraints_.back().classes = std::move(class_of_element);
  return *this;
}

Parameter& Parameter::constrain(std::function<bool(int64_t value)> predicate) {
  return constrain(
      {}, [predicate = std::move(predicate)](int64_t value, std::span<const int64_t>) { return predicate(value); });
}

std::vector<int64_t> Parameter::permutation_of(int64_t value) const {
  MDH_INTERNAL_ASSERT(kind_ == ValueKind::permutation, "not a permutation parameter");
  const std::vector<int> permutation = permutation_of_rank(value, permutation_length_);
  return std::vector<int64_t>(permutation.begin(), permutation.end());
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
      value = rank_of_permutation(std::vector<int>(perm.begin(), perm.end()));
      break;
    }
  }
  if (!range_.index_of(value)) throw bad("is not in its range");
  return value;
}

}  // namespace mdh::tuner
