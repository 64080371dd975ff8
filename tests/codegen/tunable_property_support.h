// Property tests of the tunable kernel: md_homs (every app plus extra ones written for these tests) at tiny sizes,
// random valid configurations drawn uniformly from the tuning space, each compared against the reference kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "codegen/kernel_config.h"
#include "codegen/preamble.h"
#include "mdh/bind.h"

namespace mdh::testing {

// The CI property tests' draws: kPropertyConfigurations per case from kPropertySeed. A new family changes every draw;
// TunablePropertyCoverage then says whether this seed's draws still reach every shape of code (rare ones: pipelined
// loops need several full tiles per work-group), else the seed is chosen again.
inline constexpr uint64_t kPropertySeed = 20261236;
inline constexpr int kPropertyConfigurations = 50;

struct PropertyCase {
  std::string name;                                     // test name
  std::string file;                                     // spec path below the source tree, or a made-up name for `text`
  std::string text;                                     // the spec text (empty: read `file`)
  std::vector<std::string> sizes;                       // size bindings, tiny, with primes
  ComputePrecision precision = ComputePrecision::fp32;  // tf32: the tensor-core kernel (codegen/tensor_core.h)
};

/// How GoogleTest names a case in test lists and failures (instead of the struct's raw bytes).
void PrintTo(const PropertyCase& c, std::ostream* out);

/// Every spec of apps/ and the extra test md_homs (1-D max, min-plus, 4-D contraction, strided view,
/// non-commutative 2x2 matrix product; GEMM, DOT and a window stencil on half and bfloat16 buffers).
std::vector<PropertyCase> property_cases();

/// The matrix-product md_homs in TF32, generated as the tensor-core kernel: on PoCL its fragments travel through
/// local memory, so these cases check the index arithmetic the GPU runs with mma.sync. Sizes on and off the
/// fragment multiples (16 x 8 x 8), so that draws have full and edge tiles.
std::vector<PropertyCase> tensor_core_property_cases();

/// Draws `configurations` configurations per case (spread over its sizes) from seed `seed` (overridden by the
/// environment variable MDH_TUNABLE_SEED), runs each and the reference on seeded inputs, and reports every
/// mismatch with the seed, the configuration's index and its JSON (ADD_FAILURE). `extra_build_options` go to
/// the tunable kernel's build (the reference is built as generated); `kernel_options` to its generation.
void run_property_case(const PropertyCase& c, int configurations, uint64_t seed,
                       const std::string& extra_build_options = "", const PreambleOptions& kernel_options = {});

/// What run_property_case draws (same seed, same order, same shard), handed to `visit` with the size binding's
/// index and the configuration's index; nothing is run.
void for_each_property_configuration(
    const PropertyCase& c, int configurations, uint64_t seed,
    const std::function<void(const BoundMdh& bound, size_t size_index, int index, const KernelConfig& config)>& visit);

}  // namespace mdh::testing
