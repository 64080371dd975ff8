// One point of a search space as the cost function sees it: parameter name -> value, in declaration order.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/space/parameter.h"

namespace mdh::tuner {

class Configuration {
 public:
  Configuration() = default;
  Configuration(std::shared_ptr<const std::vector<Parameter>> parameters, std::vector<int64_t> values);

  size_t size() const { return values_.size(); }
  const std::string& name(size_t i) const { return (*parameters_)[i].name(); }
  int64_t value(size_t i) const { return values_[i]; }
  const std::vector<int64_t>& values() const { return values_; }
  /// The value of the named parameter; throws mdh::UserError for an unknown name.
  int64_t operator[](std::string_view name) const;

  /// {"NAME": value, ...} with booleans, enumeration names and permutation lists in their JSON forms.
  nlohmann::json to_json() const;

  friend bool operator==(const Configuration& a, const Configuration& b) { return a.values_ == b.values_; }

 private:
  std::shared_ptr<const std::vector<Parameter>> parameters_;
  std::vector<int64_t> values_;
};

}  // namespace mdh::tuner
