// Test support for the tunable kernel: seeded inputs per element type, a small OpenCL host that runs a LaunchPlan
// with scratch buffers on the first device (PoCL here), the reference result of an md_hom, and an element-wise
// comparison. Independent of runtime/, so codegen is tested on its own.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/launch_plan.h"
#include "codegen/tuning_space.h"
#include "mdh/bind.h"

namespace mdh::testing {

using Bytes = std::vector<unsigned char>;

/// The limits of the first device (as the runtime will fill them).
DeviceLimits first_device_limits();
/// first_device_limits() with the device's preferred float vector width, which the default configuration reads
/// (the vector register tiles of codegen/defaults/ on PoCL); first_device_limits() leaves it at 1, so that the
/// tests that start from the default start from the plain one.
DeviceLimits first_device_vector_limits();

/// A device that limits only what tests of a space's shape need: 1,024 work-items per work-group (64 along
/// OpenCL dimension 2) and 64 KiB of local memory, with no register budget.
DeviceLimits roomy_device_limits();
/// An H200 as the runtime describes it (pipeline/device_limits_query.cpp).
DeviceLimits h200_device_limits();

/// Calls `visit` for every valid assignment of the space, enumerated by the tuner's engine (pipeline/
/// tuning_search_space.h: the one engine that counts, samples and searches spaces); returns how many there were.
/// The space's integer parameters must have at most 64 values each (or be restricted), so that the tuner's
/// candidates are all of them.
int64_t for_each_valid_assignment(const TuningSpace& space, const std::function<void(const Assignment&)>& visit);

/// The value of a half or bfloat16 bit pattern, decoded from the formats' definitions (sign, exponent with its bias,
/// fraction; subnormals, infinities, NaN), independently of mdh's own conversions.
double decode_storage_bits(ScalarType t, uint16_t bits);
/// A random half or bfloat16 bit pattern of a value in [0.125, 1).
uint16_t random_storage_bits(ScalarType t, std::mt19937_64& rng);

/// Every input and table buffer filled from `seed` (floats in [0.05, 0.95], half and bfloat16 in [0.125, 1),
/// integers in [-8, 8] or [0, 15] for unsigned types; struct fields by their scalar type), and the output buffer
/// zeroed.
std::map<std::string, Bytes> seeded_buffers(const BoundMdh& bound, uint64_t seed);

/// Runs every kernel of `plan` once on copies of `buffers` and returns the output buffer's bytes, or the error
/// (build log, OpenCL error code) as text. `extra_build_options` are appended to the plan's (the CI property tests
/// pass -cl-opt-disable: same semantics, a third of PoCL's compile time).
struct RunResult {
  Bytes output;
  std::string error;  // empty on success
};
RunResult run_plan_with_scratch(const BoundMdh& bound, const LaunchPlan& plan,
                                const std::map<std::string, Bytes>& buffers,
                                const std::string& extra_build_options = "");

/// The output of the reference kernel on `buffers` (cached per md_hom, sizes and seed by the caller).
Bytes reference_output(const BoundMdh& bound, const std::map<std::string, Bytes>& buffers);

/// Nullopt when `actual` matches `expected` element by element (integers exactly, floating values within a relative
/// tolerance of 1e-4 plus an absolute 1e-5 times the largest magnitude; half and bfloat16 within one unit in their last
/// place); otherwise the first mismatch, described.
std::optional<std::string> compare_outputs(const BoundMdh& bound, const Bytes& expected, const Bytes& actual);

/// The first difference between the tunable kernel of `config` and the reference kernel on inputs seeded with
/// `seed`, "" where there is none: generation refused, a build or run error, or a mismatched element, each with the
/// configuration.
std::string mismatch_with_reference(const BoundMdh& bound, const KernelConfig& config, const std::string& build_options,
                                    const DeviceLimits& limits, uint64_t seed);

}  // namespace mdh::testing
