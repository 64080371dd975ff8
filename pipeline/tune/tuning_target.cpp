// Binding a tuning request to its md_hom, devices, space and data.
#include "pipeline/tune/tuning_target.h"

#include "pipeline/buffer_fit.h"
#include "pipeline/compute_precision.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/md_hom_run.h"
#include "pipeline/pipeline.h"

namespace mdh {
namespace {

// Identical devices only: the search compares their times on one scale.
std::vector<DeviceInfo> select_devices(const std::vector<std::string>& selectors) {
  std::vector<DeviceInfo> devices;
  for (const auto& s : selectors) devices.push_back(select_device(s));
  for (const auto& d : devices)
    if (d.name != devices[0].name || d.driver_version != devices[0].driver_version)
      throw UserError("--device: tuning over several devices needs identical ones; '" + d.name + "' differs from '" +
                      devices[0].name + "'");
  return devices;
}

// Under mpirun, one device per rank: with several selectors the local rank's (modulo their number), with one the
// local rank's among the devices it matches (modulo their number: ranks beyond the host's devices share them).
std::string rank_device_selector(const std::vector<std::string>& selectors, int local_rank) {
  const size_t k = static_cast<size_t>(local_rank);
  if (selectors.size() > 1) return select_device(selectors[k % selectors.size()]).selector();
  const std::vector<DeviceInfo> matches = matching_devices(list_devices(), selectors.empty() ? "" : selectors[0]);
  return matches[k % matches.size()].selector();
}

}  // namespace

TuningTarget bind_tuning_target(const TuningRequest& request, const TuningSettings& settings) {
  TuningTarget target;
  target.request = request;
  if (settings.mpi)
    target.request.device_selectors = {rank_device_selector(request.device_selectors, settings.local_rank)};
  target.bound = load_and_bind(target.request.spec_path, target.request.sizes);
  target.devices = select_devices(target.request.device_selectors);
  target.limits = device_limits(target.devices[0]);
  settle_precision(target.bound, target.request.precision, target.limits, target.devices[0].name, settings.note);
  target.space = std::make_shared<const TuningSpace>(
      restricted_tuning_space(target.bound, target.limits, target.request.restrictions, target.request.full_ranges));
  // The data and the params now: a bad one would otherwise fail every evaluation in the workers, and sizes the device
  // or host cannot hold would fail each after minutes of filling memory.
  check_buffers_fit(target.bound, target.devices[0], host_memory_bytes());
  target.data = load_run_inputs(target.bound, target.request.data);
  checked_param_bytes(target.bound, target.request.data.params);
  target.cost_settings = tuning_cost_settings(target.request, target.limits);
  return target;
}

}  // namespace mdh
