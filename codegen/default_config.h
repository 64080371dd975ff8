// The configuration the tunable kernel runs with when none is given (`mdh run` without --config, the tuner's first
// candidate): derived from the md_hom's shape and the device's limits, without measuring (codegen/defaults/).
#pragma once

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "mdh/bind.h"

namespace mdh {

/// A valid, sensible configuration for the device: the `++` dimensions spread over work-groups and up to 16x16
/// work-items, each work-item owning a few elements; reductions inside one work-item; no caching. Long reductions
/// that most bytes stream along are shared by the work-items of a work-group (GEMV, DOT); 2-D stencils take a
/// stencil shape; where work-items share inputs and local memory is dedicated (GPUs), strided register tiles of
/// up to 8x8 with the shared inputs cached in local memory, 16 reduction indices at a time (GEMM, contractions).
KernelConfig default_config(const BoundMdh& bound, const DeviceLimits& limits);

}  // namespace mdh
