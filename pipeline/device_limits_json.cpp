// DeviceLimits <-> JSON: one table of fields serves the writer and the reader.
#include "pipeline/device_limits_json.h"

#include <string>
#include <variant>
#include <vector>

#include "support/error.h"

namespace mdh {
namespace {

// Limits recorded by a file mdh did not necessarily write: counts are bounded, so that no product of them overflows
// in the space's arithmetic.
constexpr uint64_t kMaxRecordedCount = uint64_t{1} << 48;

struct LimitField {
  const char* name;
  std::variant<uint64_t DeviceLimits::*, bool DeviceLimits::*> member;
  uint64_t minimum = 1;              // counts; 0 allowed where the field means "none" (registers_per_work_item)
  bool recorded_since_start = true;  // false: results written before the field existed lack it (its default then)
};

const std::vector<LimitField>& limit_fields() {
  static const std::vector<LimitField> fields{
      {"max_work_group_size", &DeviceLimits::max_work_group_size},
      {"local_mem_bytes", &DeviceLimits::local_mem_bytes, 0},
      {"max_alloc_bytes", &DeviceLimits::max_alloc_bytes},
      {"compute_units", &DeviceLimits::compute_units},
      {"local_memory_dedicated", &DeviceLimits::local_memory_dedicated},
      {"private_mem_bytes", &DeviceLimits::private_mem_bytes, 0},
      {"simd_width", &DeviceLimits::simd_width},
      {"warp_size", &DeviceLimits::warp_size},
      {"float_vector_width", &DeviceLimits::float_vector_width},
      {"registers_per_work_item", &DeviceLimits::registers_per_work_item, 0},
      {"subgroup_width", &DeviceLimits::subgroup_width},
      {"nvidia_driver", &DeviceLimits::nvidia_driver},
      {"tf32_tensor_cores", &DeviceLimits::tf32_tensor_cores, 1, false},
  };
  return fields;
}

uint64_t recorded_count(const nlohmann::json& value, const std::string& key, uint64_t minimum) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
    throw UserError("device_limits: '" + key + "' must be a whole number");
  const uint64_t count = value.get<uint64_t>();
  if (count < minimum || count > kMaxRecordedCount)
    throw UserError("device_limits: '" + key + "' = " + std::to_string(count) + " lies outside " +
                    std::to_string(minimum) + " to 2^48");
  return count;
}

}  // namespace

nlohmann::json device_limits_to_json(const DeviceLimits& limits) {
  nlohmann::json out = nlohmann::json::object();
  for (const LimitField& field : limit_fields())
    std::visit([&](auto member) { out[field.name] = limits.*member; }, field.member);
  out["max_work_item_sizes"] = limits.max_work_item_sizes;
  return out;
}

DeviceLimits device_limits_from_json(const nlohmann::json& json) {
  if (!json.is_object()) throw UserError("device_limits must be an object");
  DeviceLimits limits;
  for (const LimitField& field : limit_fields()) {
    if (!json.contains(field.name) && !field.recorded_since_start) continue;
    if (!json.contains(field.name)) throw UserError(std::string("device_limits: no '") + field.name + "'");
    const nlohmann::json& value = json.at(field.name);
    if (auto* count = std::get_if<uint64_t DeviceLimits::*>(&field.member)) {
      limits.*(*count) = recorded_count(value, field.name, field.minimum);
    } else {
      if (!value.is_boolean())
        throw UserError(std::string("device_limits: '") + field.name + "' must be true or false");
      limits.*std::get<bool DeviceLimits::*>(field.member) = value.get<bool>();
    }
  }
  const nlohmann::json* sizes = json.contains("max_work_item_sizes") ? &json.at("max_work_item_sizes") : nullptr;
  if (!sizes || !sizes->is_array() || sizes->size() != 3)
    throw UserError("device_limits: 'max_work_item_sizes' must be an array of 3 whole numbers");
  for (size_t d = 0; d < 3; ++d) limits.max_work_item_sizes[d] = recorded_count((*sizes)[d], "max_work_item_sizes", 1);
  return limits;
}

}  // namespace mdh
