// The JSON form of a device's limits (codegen/device_limits.h), as a tuning result records them, so that its
// configuration can be generated, exported and inspected on a machine without that device.
#pragma once

#include <nlohmann/json.hpp>

#include "codegen/device_limits.h"

namespace mdh {

/// Every field of `limits`, by its DeviceLimits name.
nlohmann::json device_limits_to_json(const DeviceLimits& limits);

/// The limits a JSON object records; throws UserError naming the key that is missing, of the wrong type or out of
/// range (a count must be a whole number from 1 to 2^48; a work-group of 2^32 work-items is far beyond any device).
DeviceLimits device_limits_from_json(const nlohmann::json& json);

}  // namespace mdh
