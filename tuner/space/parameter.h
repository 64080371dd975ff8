// Tuning parameters as data (cppATF's `tuning_parameter(name, range, constraint)`): a name, a range of candidate
// values, a value kind, and constraints over its own value and earlier parameters whose reads are declared, so the
// search space can find independent groups and memoise constraint results.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mdh::tuner {

/// How a parameter's int64 values are meant: booleans are 0/1, enumerations index `value_names`, permutations
/// index the lexicographically ordered list of permutations of 0..n-1.
enum class ValueKind { integer, boolean, enumeration, permutation };

/// The ordered candidate values of a parameter, materialised once, except the ranks of permutations of more than
/// kMaxEnumeratedPermutationLength elements: those are the interval [0, n! - 1], never listed.
class Range {
 public:
  /// first, first+step, ... up to and including last (if reached). Requires step > 0.
  static Range interval(int64_t first, int64_t last, int64_t step = 1);
  /// The powers of two within [first, last].
  static Range powers_of_two(int64_t first, int64_t last);
  /// An explicit set, kept in the given order; duplicates are rejected.
  static Range set(std::vector<int64_t> values);
  /// Whatever the generator returns (called once, here).
  static Range generated(const std::function<std::vector<int64_t>()>& generator);
  /// The lexicographic ranks 0 .. n!-1 of the permutations of n elements (1 <= n <= 20).
  static Range permutation_ranks(int n);

  /// Whether the values are listed; a range that is not holds the integers [0, size() - 1].
  bool enumerated() const { return lazy_size_ == 0; }
  /// The listed values (enumerated ranges only).
  const std::vector<int64_t>& values() const;
  uint64_t size() const { return enumerated() ? values_.size() : lazy_size_; }
  int64_t value(uint64_t index) const { return enumerated() ? values_[index] : static_cast<int64_t>(index); }
  /// The index of a value, or nullopt when it is not in the range.
  std::optional<uint64_t> index_of(int64_t value) const;

 private:
  explicit Range(std::vector<int64_t> values);
  std::vector<int64_t> values_;
  uint64_t lazy_size_ = 0;
};

/// Permutations of up to this many elements (8! = 40,320 orders) are listed and stored in trees like any value;
/// longer ones are tree levels of PermutationSets (permutation_set.h), whose constraints must be declared as data.
inline constexpr int kMaxEnumeratedPermutationLength = 8;

/// A predicate over a parameter's candidate value and the values of the parameters it declared it reads,
/// passed in declaration order. It must be a pure function of those: results are memoised per read tuple.
using ConstraintPredicate = std::function<bool(int64_t value, std::span<const int64_t> reads)>;

struct Constraint {
  std::vector<std::string> reads;
  ConstraintPredicate predicate;
  /// Declared by the author: for any reads, the values satisfying it are a prefix of the range (e.g. `v <= f(reads)`
  /// over an ascending range). Tree generation then stops at the first failing value instead of testing the rest,
  /// which makes generation follow the number of valid values, not reads x range size.
  bool holds_for_a_prefix = false;

  /// What the predicate means, as data, for a parameter whose range is not enumerated (a long permutation): its
  /// tree level derives the valid values from this instead of testing each value. Enumerated parameters use the
  /// predicate only.
  enum class Shape { predicate, one_of, pinned_unless, classes_in_order };
  Shape shape = Shape::predicate;
  std::vector<int64_t> values;                           // one_of: the allowed values; pinned_unless: the pinned one
  std::function<bool(std::span<const int64_t>)> exempt;  // pinned_unless: free when this holds for the reads
  std::vector<int> classes;                              // classes_in_order: the class of each permuted element
};

class Parameter {
 public:
  static Parameter integer(std::string name, Range range);
  static Parameter boolean(std::string name);
  static Parameter enumeration(std::string name, std::vector<std::string> value_names);
  /// All permutations of 0..length-1 (1 <= length <= kMaxPermutationLength = 20), by lexicographic rank. With
  /// element names, the JSON form lists the names ("k", "i", "j") instead of the positions. More than
  /// kMaxEnumeratedPermutationLength elements: the range is not enumerated, the parameter must be the last of its
  /// group, and its constraints must be restrict_to, pin_unless or keep_classes_in_order.
  static Parameter permutation(std::string name, int length);
  static Parameter permutation(std::string name, std::vector<std::string> element_names);

  /// Also read these integers as the enumeration's values, parallel to value_names: the codes that journals written
  /// before the values were named hold (an old journal then still parses and resumes).
  Parameter& accept_legacy_codes(std::vector<int64_t> codes);

  /// Adds a constraint (all constraints of a parameter must hold). Reads must name earlier parameters.
  Parameter& constrain(std::vector<std::string> reads, ConstraintPredicate predicate);
  /// A constraint over the value alone.
  Parameter& constrain(std::function<bool(int64_t value)> predicate);
  /// A constraint whose satisfying values are, for any reads, a prefix of the range (see Constraint). A wrong
  /// declaration silently drops valid values.
  Parameter& constrain_prefix(std::vector<std::string> reads, ConstraintPredicate predicate);
  /// Only these values (a value-only constraint).
  Parameter& restrict_to(std::vector<int64_t> allowed);
  /// The value is `pinned` unless `exempt` holds for the reads (a parameter without effect unless others enable it).
  Parameter& pin_unless(int64_t pinned, std::vector<std::string> reads,
                        std::function<bool(std::span<const int64_t>)> exempt);
  /// Permutations only: every element of a smaller class precedes every element of a larger one.
  Parameter& keep_classes_in_order(std::vector<int> class_of_element);

  const std::string& name() const { return name_; }
  ValueKind kind() const { return kind_; }
  const Range& range() const { return range_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }
  const std::vector<std::string>& value_names() const { return value_names_; }
  int permutation_length() const { return permutation_length_; }

  /// The permutation a permutation parameter's value stands for.
  std::vector<int64_t> permutation_of(int64_t value) const;
  /// The JSON form of a value: number, true/false, enumeration name, or permutation list.
  nlohmann::json value_to_json(int64_t value) const;
  /// The inverse of value_to_json; throws mdh::UserError for a value of the wrong shape or not in the range. Also
  /// reads the older forms: legacy codes of an enumeration, a permutation's rank or its list of positions.
  int64_t value_from_json(const nlohmann::json& json) const;

 private:
  Parameter(std::string name, ValueKind kind, Range range);
  std::string name_;
  ValueKind kind_;
  Range range_;
  std::vector<Constraint> constraints_;
  std::vector<std::string> value_names_;  // enumeration values; permutation element names (may be empty)
  std::vector<int64_t> legacy_codes_;
  int permutation_length_ = 0;
};

}  // namespace mdh::tuner
