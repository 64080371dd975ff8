// Named access and the JSON form of configurations.
#include "tuner/space/configuration.h"

#include "support/error.h"

namespace mdh::tuner {

Configuration::Configuration(std::shared_ptr<const std::vector<Parameter>> parameters, std::vector<int64_t> values)
    : parameters_(std::move(parameters)), values_(std::move(values)) {
  MDH_INTERNAL_ASSERT(parameters_ && parameters_->size() == values_.size(), "one value per parameter");
}

int64_t Configuration::operator[](std::string_view name) const {
  for (size_t i = 0; i < values_.size(); ++i)
    if ((*parameters_)[i].name() == name) return values_[i];
  throw UserError("configuration has no parameter '" + std::string(name) + "'");
}

nlohmann::json Configuration::to_json() const {
  nlohmann::json json = nlohmann::json::object();
  for (size_t i = 0; i < values_.size(); ++i)
    json[(*parameters_)[i].name()] = (*parameters_)[i].value_to_json(values_[i]);
  return json;
}

}  // namespace mdh::tuner
