// The tunable kernel (PACT'19 §V, Listing 1): bound md_hom + configuration -> one parameterized OpenCL kernel
// (plus, when a reduction dimension is split over several work-groups, a second kernel that combines their
// partial results in index order). Work-groups iterate over local tiles, work-items over private tiles, each
// work-item computes its private tile element by element. See codegen/DESIGN.md.
#pragma once

#include "codegen/device_limits.h"
#include "codegen/kernel_config.h"
#include "codegen/launch_plan.h"
#include "codegen/preamble.h"

namespace mdh {

/// The generation of the generated code: raised whenever the kernel that a configuration generates changes (its
/// speed or its rounding), so that journals of earlier generations are not resumed with timings of kernels that
/// are no longer generated. 1: the kernel of the paper's families (until 2026-11); 2: full tiles without guards,
/// edge tiles peeled, FP_CONTRACT ON (issue 12 items 1 and 2); 3: one test per local tile, not per private step,
/// where a full tile has only full steps (2026-12); 4: no reset and fewer barriers at the end of a reduction combined
/// once (CMB_RES G), the count without a barrier where work-item 0 alone stored (2026-12); 5: an unrolled tile loop
/// over strided work-group tiles tests its last tile alone (TunableGeometry::peeled_tile_loop, 2026-12); 6: edge
/// steps copy whole private tiles where the steps divide the tile (private_copy_unguarded; NVIDIA's default
/// optimisation level then), and DOUBLE_BUFFER pipelines tiles that are sometimes full (2026-12).
inline constexpr int kTunableKernelGeneration = 6;

/// Kernels `<mdh name>_tunable` and, when NUM_WG of a reduction dimension exceeds 1, `<mdh name>_combine_wg`.
/// Arguments of the first: the input buffers in declaration order, the output buffer (or the partial-results
/// scratch buffer), scratch buffers for partial results in global memory, then params and tables. Tuning values
/// are `#ifndef`-guarded macros, so the source compiles by itself. Throws UserError when the config is invalid for
/// the device (check_config) or the md_hom is outside what the kernel supports (make_tuning_space).
LaunchPlan generate_tunable_kernel(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits,
                                   const PreambleOptions& options = {});

}  // namespace mdh
