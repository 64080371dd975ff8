// Device profiles: a device this machine does not have, as a tuning result records it (its `device` name and slug
// and its `device_limits`), so that `mdh generate`, `export` and `inspect --device-profile` make the kernel that
// device would get, and take that device's configurations from the tuned store. Any result that records limits is
// a profile; the named ones lie in the source tree's device_profiles/ (`mdh devices --profile SEL` writes one).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "codegen/device_limits.h"
#include "runtime/device.h"

namespace mdh {

struct DeviceProfile {
  std::string name;  // as OpenCL names the device ("NVIDIA H200")
  std::string slug;  // its folder in the tuned store (runtime/device.h, device_slug)
  DeviceLimits limits;
};

/// The device a kernel is made for: this machine's device (--device) or a profile's (--device-profile).
struct TargetDevice {
  std::string name, slug;
  DeviceLimits limits;
  bool from_profile = false;
  /// How notes and errors name it: "this device, NAME (SLUG)" or "the profile's device, NAME (SLUG)".
  std::string described() const;
};

TargetDevice target_of(const DeviceInfo& device, const DeviceLimits& limits);
TargetDevice target_of(const DeviceProfile& profile);

/// Where named profiles lie: $MDH_DEVICE_PROFILES when set and not empty, else the folder compiled in (CMake's
/// MDH_DEVICE_PROFILES_DIR, by default the source tree's device_profiles/).
std::string device_profiles_directory();

/// The profile `name_or_file` names: a file when it contains '/' or ends in ".json", else NAME.json in `directory`.
/// Throws UserError (exit 2) for a name without a profile (listing the names there), a file that cannot be read,
/// and one that is not a profile (naming what is missing or malformed).
DeviceProfile load_device_profile(const std::string& name_or_file, const std::string& directory);

/// The profile of a device of this machine: {"device": {name, platform, driver, slug}, "device_limits": {...}}.
nlohmann::json device_profile_json(const DeviceInfo& device, const DeviceLimits& limits);

}  // namespace mdh
