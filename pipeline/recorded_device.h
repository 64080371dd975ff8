// A tuning result records the device it was tuned on and that device's limits: generating, exporting or inspecting
// it on another machine uses the recorded limits, so the kernel is the one that was tuned, not a refusal.
#pragma once

#include "codegen/device_limits.h"
#include "mdh/bind.h"
#include "pipeline/device_profile.h"
#include "pipeline/kernel.h"
#include "pipeline/tuned_store.h"

namespace mdh {

/// The limits to generate `choice`'s kernel under for `target` (this machine's device or a profile's). A
/// configuration file that is a tuning result of another device (another slug, runtime/device.h) gives the limits it
/// recorded, with a note naming both devices. One that records none (written before results recorded them) is
/// generated under the target's limits, with a note, where its configuration is valid there, and refused with a
/// UserError saying why and what to do where it is not. Anything else gives the target's limits (an unreadable file
/// is prepare_kernel's to report).
DeviceLimits limits_for_kernel_choice(const KernelChoice& choice, const BoundMdh& bound, const TargetDevice& target,
                                      const TunedStoreNote& note);

}  // namespace mdh
