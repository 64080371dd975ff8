// What one tuning run tunes: the request's md_hom bound to its sizes, the devices it is timed on, the tuning space
// their limits allow, and the data every evaluation runs on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/tuning_space.h"
#include "mdh/bind.h"
#include "pipeline/cost_function.h"
#include "pipeline/run_inputs.h"
#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tuning_request.h"
#include "runtime/device.h"

namespace mdh {

struct TuningTarget {
  TuningRequest request;  // as given; under mpirun with the rank's own device
  BoundMdh bound;
  std::vector<DeviceInfo> devices;  // identical ones: the search compares their times on one scale
  DeviceLimits limits;
  std::shared_ptr<const TuningSpace> space;
  RunInputs data;
  CostSettings cost_settings;  // what the cost function measures with (tuning_cost_settings)
};

/// Spec -> bound IR, the devices (under mpirun the rank's one), their limits, the restricted tuning space, and the
/// data: the input files are read now, so that a bad one fails before any device work.
TuningTarget bind_tuning_target(const TuningRequest& request, const TuningSettings& settings);

}  // namespace mdh
