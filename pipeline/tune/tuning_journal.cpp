// The journal header of a tuning run and the rule for resuming one.
#include "pipeline/tune/tuning_journal.h"

#include <unistd.h>

#include <filesystem>

#include "codegen/config_json.h"
#include "codegen/kernel_config.h"
#include "codegen/tunable_kernel.h"
#include "support/fnv1a.h"
#include "support/input_file.h"
#include "tuner/journal/journal.h"
#include "tuner/search/seeded_technique.h"
#include "tuner/search/technique_registry.h"

namespace mdh {

std::string spec_hash(const std::string& path) {
  const InputFile file = read_input_file(path, kMaxSpecBytes);
  if (!file.ok) throw UserError(SourceLoc{path, 0, 0}, "cannot read spec file: " + file.problem);
  return fnv1a_64_hex(file.bytes);
}

void check_journal_resumable(const std::string& path, const nlohmann::json& metadata) {
  if (::access(path.c_str(), F_OK) != 0) return;
  const nlohmann::json recorded = tuner::read_journal(path).header.metadata;
  // Journals written before the generation was recorded were made by generation 1.
  // Journals written on NVIDIA before spills were checked timed spilling candidates.
  auto value = [&](const nlohmann::json& m, const char* key) {
    if (m.contains(key)) return m[key];
    if (std::string(key) == "generator") return nlohmann::json(1);
    if (std::string(key) == kSpillingCandidatesKey && metadata.contains(key)) return nlohmann::json("timed");
    return nlohmann::json();
  };
  for (const char* key : {"spec_hash", "sizes", "device", "driver", "generator", "starts", kSpillingCandidatesKey}) {
    const nlohmann::json was = value(recorded, key), now = value(metadata, key);
    if (was != now)
      throw UserError(SourceLoc{},
                      "cannot resume journal '" + path + "': it was recorded with " + key + " " + was.dump() +
                          ", this run has " + now.dump() +
                          (std::string(key) == "generator" ? " (its timings are of kernels mdh no longer generates)"
                           : std::string(key) == kSpillingCandidatesKey
                               ? " (--allow-spills times them, without it they are rejected)"
                               : ""));
  }
}

std::string technique_of_run(const TuningSettings& settings) {
  if (!settings.technique.empty()) return settings.technique;
  std::error_code ec;
  if (settings.resume && settings.searches() && std::filesystem::exists(settings.journal_path, ec)) {
    std::string recorded = tuner::read_journal(settings.journal_path).header.technique;
    const std::string seeded = tuner::SeededTechnique::kSeededSuffix;
    if (recorded.size() > seeded.size() &&
        recorded.compare(recorded.size() - seeded.size(), seeded.size(), seeded) == 0)
      recorded.resize(recorded.size() - seeded.size());
    return recorded;
  }
  return tuner::kDefaultTechnique;
}

tuner::TunerOptions journal_options(const TuningTarget& target, const TuningSeeds& seeds,
                                    const TuningSettings& settings) {
  const TuningRequest& request = target.request;
  tuner::TunerOptions options;
  options.seed = settings.seed;
  options.journal_path = settings.journal_path;
  options.resume = settings.resume;
  options.replace_journal = settings.replace_journal;
  options.journal_metadata = {{"spec", request.spec_path},
                              {"spec_hash", spec_hash(request.spec_path)},
                              {"sizes", request.sizes},
                              {"device", target.devices[0].name},
                              {"driver", target.devices[0].driver_version},
                              {"generator", kTunableKernelGeneration},
                              {"config_format", kConfigFormatVersion},
                              {"default_start", seeds.default_configuration.has_value()}};
  // Only where spills are recognised (NVIDIA's driver), so that journals of other devices stay as they were.
  if (target.limits.nvidia_driver)
    options.journal_metadata[kSpillingCandidatesKey] = target.cost_settings.reject_spills ? "rejected" : "timed";
  if (!seeds.starts.empty()) options.journal_metadata["starts"] = seeds.starts;
  if (!seeds.transferred.empty()) options.journal_metadata["transferred"] = seeds.transferred;
  if (settings.resume && settings.searches()) check_journal_resumable(settings.journal_path, options.journal_metadata);
  options.interrupt = settings.interrupt;
  options.on_evaluation = settings.on_evaluation;
  options.leaders = settings.finalists;
  return options;
}

}  // namespace mdh
