// PACK_INP: an input copied, before the main kernel, into a scratch buffer whose dimensions are permuted so that
// the index moving with the output's unit-stride dimension is innermost; the main kernel reads the copy as that
// buffer (its strides, its vector widths), so an input such as GEMM_NT's B[j][k] is read as B[k][j] once packed,
// instead of being transposed into a cache at every reduction step.
#pragma once

#include <vector>

#include "codegen/kernel_config.h"
#include "codegen/launch_plan.h"
#include "codegen/preamble.h"
#include "mdh/bind.h"

namespace mdh {

/// The buffer index of input access `access` that packing moves innermost: the one index that moves with the
/// output's unit-stride dimension (store_dimension). -1 where packing would change nothing or cannot apply: no such
/// dimension, no index or several moving with it, that index already the last, an access with a window, or a
/// buffer that another access reads too (the copy serves one layout).
int packed_moving_index(const BoundMdh& bound, int access);

/// The packed copy's dimensions, outermost first, as positions among the buffer's dimensions in the spec: the
/// spec's order with the moving index taken out and placed last.
std::vector<int> packed_dimension_order(const BoundMdh& bound, int access);

/// Whether the configuration packs the access (PACK_INP = moving_innermost).
bool packs_input(const KernelConfig& config, int access);

/// Whether the configuration packs any input of the md_hom.
bool packs_any_input(const BoundMdh& bound, const KernelConfig& config);

/// The md_hom as the main kernel reads it: every packed access's buffer with its dimensions (extents, the access's
/// indices) in packed order. The bound itself where nothing is packed.
BoundMdh packed_view(const BoundMdh& bound, const KernelConfig& config);

/// Adds to a plan generated from packed_view(bound, config) one copy kernel per packed input, launched first, its
/// scratch buffer (within limits the space checks), and makes the scratch buffer the later kernels' argument in
/// place of the input.
void add_packing_kernels(const BoundMdh& bound, const KernelConfig& config, const PreambleOptions& options,
                         LaunchPlan& plan);

}  // namespace mdh
