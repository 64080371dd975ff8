// Reading and writing device profiles; a profile file is bounded JSON like every file mdh did not just write.
#include "pipeline/device_profile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "pipeline/device_limits_json.h"
#include "support/error.h"
#include "support/input_file.h"
#include "support/untrusted_json.h"

#ifndef MDH_DEVICE_PROFILES_DIR
#define MDH_DEVICE_PROFILES_DIR ""
#endif

namespace mdh {
namespace {

namespace fs = std::filesystem;

// A profile's name is a slug: it names a file in the profiles folder and nothing outside it.
bool is_profile_name(const std::string& text) {
  return !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

std::vector<std::string> profile_names(const std::string& directory) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error))
    if (it->path().extension() == ".json") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string text_field(const nlohmann::json& device, const char* key) {
  if (!device.contains(key)) throw UserError(std::string("'device' has no '") + key + "'");
  if (!device[key].is_string() || device[key].get<std::string>().empty())
    throw UserError(std::string("'device': '") + key + "' must be a non-empty string");
  return device[key].get<std::string>();
}

DeviceProfile profile_of_json(const nlohmann::json& json) {
  if (!json.is_object()) throw UserError("a device profile is a JSON object with 'device' and 'device_limits'");
  if (!json.contains("device") || !json["device"].is_object())
    throw UserError("no 'device' object (the device's name and slug, as a tuning result records them)");
  if (!json.contains("device_limits"))
    throw UserError("no 'device_limits' (results written before mdh recorded limits are not profiles)");
  DeviceProfile profile;
  profile.name = text_field(json["device"], "name");
  profile.slug = text_field(json["device"], "slug");
  if (!is_profile_name(profile.slug))
    throw UserError("'device': 'slug' must be lower-case letters, digits and dashes, as `mdh devices` names folders");
  profile.limits = device_limits_from_json(json["device_limits"]);
  return profile;
}

}  // namespace

std::string TargetDevice::described() const {
  return std::string(from_profile ? "the profile's device, " : "this device, ") + name + " (" + slug + ")";
}

TargetDevice target_of(const DeviceInfo& device, const DeviceLimits& limits) {
  return TargetDevice{device.name, device_slug(device), limits, false};
}

TargetDevice target_of(const DeviceProfile& profile) {
  return TargetDevice{profile.name, profile.slug, profile.limits, true};
}

std::string device_profiles_directory() {
  if (const char* env = std::getenv("MDH_DEVICE_PROFILES"); env && *env) return env;
  return MDH_DEVICE_PROFILES_DIR;
}

DeviceProfile load_device_profile(const std::string& name_or_file, const std::string& directory) {
  const bool is_file = name_or_file.find('/') != std::string::npos ||
                       (name_or_file.size() > 5 && name_or_file.compare(name_or_file.size() - 5, 5, ".json") == 0);
  std::string path = name_or_file;
  if (!is_file) {
    const std::vector<std::string> names = profile_names(directory);
    if (!is_profile_name(name_or_file) || std::find(names.begin(), names.end(), name_or_file) == names.end()) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      throw UserError("--device-profile: no device profile named '" + name_or_file + "' in " +
                      (directory.empty() ? "(no profiles folder)" : directory) +
                      (known.empty() ? " (it holds none)" : " (named profiles: " + known + ")") +
                      "; a profile file is named by a path (containing '/' or ending in .json)");
    }
    path = (fs::path(directory) / (name_or_file + ".json")).string();
  }
  const InputFile file = read_input_file(path, kMaxConfigBytes);
  if (!file.ok) throw UserError(path + ": error: cannot read the device profile: " + file.problem);
  try {
    return profile_of_json(parse_untrusted_json(file.bytes));
  } catch (const nlohmann::json::exception& e) {
    throw UserError(path + ": error: not a device profile: not JSON (" + e.what() + ")");
  } catch (const UserError& e) {
    throw UserError(path + ": error: not a device profile: " + e.what());
  }
}

nlohmann::json device_profile_json(const DeviceInfo& device, const DeviceLimits& limits) {
  return {{"device",
           {{"name", device.name},
            {"platform", device.platform_name},
            {"driver", device.driver_version},
            {"slug", device_slug(device)}}},
          {"device_limits", device_limits_to_json(limits)}};
}

}  // namespace mdh
