// The result file of a tuning run.
#include "pipeline/tune/run_result.h"

#include "codegen/config_json.h"
#include "codegen/kernel_config.h"
#include "mdh/signature.h"
#include "pipeline/tune/finalists.h"
#include "pipeline/tune/tuning_journal.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/device.h"

namespace mdh {

void record_result(TuningOutcome& outcome, const TuningTarget& target, const tuner::SearchSpace& search_space,
                   const std::string& technique, const TuningSettings& settings, const tuner::Abort& abort) {
  if (!outcome.result.best) return;
  if (outcome.final_timing && outcome.final_timing->chosen) {
    const tuner::FinalistTiming& chosen = outcome.final_timing->finalists[*outcome.final_timing->chosen];
    outcome.result.best = chosen.finalist.configuration;
    outcome.result.best_cost = chosen.cost;
  }
  const BoundMdh& bound = target.bound;
  const DeviceInfo& device = target.devices[0];
  outcome.best = kernel_config_of(bound, *target.space, *outcome.result.best);
  TuningResultFile file;
  file.spec = target.request.spec_path;
  file.spec_hash = spec_hash(target.request.spec_path);
  file.md_hom = bound.mdh->name;
  file.md_hom_signature = md_hom_signature(*bound.mdh);
  file.precision = precision_name(bound.precision);
  file.sizes = bound.sizes;
  file.device = {{"name", device.name},
                 {"driver", device.driver_version},
                 {"platform", device.platform_name},
                 {"slug", device_slug(device)},
                 {"count", outcome.evaluating_devices}};
  file.device_limits = target.limits;
  file.technique = technique;
  file.seed = settings.seed;
  file.abort = abort.describe();
  file.evaluations = outcome.result.status.evaluations;
  file.valid_evaluations = outcome.result.status.valid_evaluations;
  file.tuning_seconds = outcome.seconds;
  file.kernel_time_ns = *outcome.result.best_cost * 1e9;
  if (bound.flops) file.gflops = *bound.flops / *outcome.result.best_cost * 1e-9;
  if (bound.bytes) file.gbytes_per_second = *bound.bytes / *outcome.result.best_cost * 1e-9;
  file.space_size = search_space.size().str();
  file.config = config_to_json(bound, *outcome.best);
  if (outcome.final_timing && outcome.final_timing->chosen)
    file.final_timing = final_timing_json(*outcome.final_timing, bound, *target.space);
  outcome.result_file = file;
}

}  // namespace mdh
