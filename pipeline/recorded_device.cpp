// The limits a configuration file's kernel is generated under: the recorded device's for a result tuned elsewhere.
#include "pipeline/recorded_device.h"

#include "codegen/config_json.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "support/input_file.h"
#include "support/untrusted_json.h"

namespace mdh {
namespace {

std::string recorded_text(const nlohmann::json& device, const char* key) {
  return device.is_object() && device.contains(key) && device[key].is_string() ? device[key].get<std::string>() : "";
}

}  // namespace

DeviceLimits limits_for_kernel_choice(const KernelChoice& choice, const BoundMdh& bound, const TargetDevice& target,
                                      const TunedStoreNote& note) {
  const DeviceLimits& local = target.limits;
  if (choice.kind != KernelChoice::Kind::config_file) return local;
  const std::string& path = choice.config_path;
  const InputFile file = read_input_file(path, kMaxConfigBytes);
  if (!file.ok) return local;
  nlohmann::json json;
  try {
    json = parse_untrusted_json(file.bytes);
  } catch (const std::exception&) {
    return local;
  }
  if (!TuningResultFile::is_result(json)) return local;
  TuningResultFile result;
  try {
    result = TuningResultFile::from_json(json);
  } catch (const UserError& e) {
    throw UserError(path + ": error: " + e.what());
  }
  const std::string slug = recorded_text(result.device, "slug"), name = recorded_text(result.device, "name");
  if (slug.empty() || slug == target.slug) return local;
  const std::string tuned_on = (name.empty() ? slug : name) + " (" + slug + ")";
  const TunedStoreNote say = note ? note : [](const std::string&) {};
  if (result.device_limits) {
    say(path + " was tuned on " + tuned_on + ", not on " + target.described() +
        ": its kernel is generated for the limits it recorded for that device");
    return *result.device_limits;
  }
  try {
    check_config(bound, config_from_json(bound, result.config), local);
  } catch (const UserError& e) {
    std::string why = e.what();
    if (why.rfind("error: ", 0) == 0) why.erase(0, 7);
    throw UserError(path + ": error: tuned on " + tuned_on + ", and it records no device limits (it was written " +
                    "before results recorded them), so it is checked against " + target.described() + ", where " + why +
                    "; generate it on a machine with that device, give its --device-profile, or tune it " +
                    "again to record them");
  }
  say(path + " was tuned on " + tuned_on + " and records no device limits (results written before mdh recorded " +
      "them): its kernel is generated for the limits of " + target.described() + ", and may differ from the one " +
      "tuned");
  return local;
}

}  // namespace mdh
