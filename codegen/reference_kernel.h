// The reference kernel: bound md_hom -> one OpenCL kernel that computes every output element by itself, combining
// over the reduction dimensions sequentially in index order. Slow and obviously correct: the oracle that the
// tunable kernel and `mdh run --verify` are checked against.
#pragma once

#include "codegen/launch_plan.h"
#include "codegen/preamble.h"

namespace mdh {

/// One work-item per output point: the `++` dimensions are flattened row-major (last fastest) into a 1-D NDRange
/// of global size = product of their extents (1 when there is none), local size left to the implementation.
/// Each work-item nests the reduction dimensions in dimension order (the last innermost); every level starts from
/// its operator's identity and folds acc = combine(acc, inner) in index order.
/// Kernel `<mdh name>_reference`, arguments: every buffer in declaration order, then every param.
/// Size symbols are `#ifndef`-guarded macros, so the source compiles by itself. Build options "-cl-std=CL1.2".
/// Throws UserError when a dimension extent does not fit the kernel's `int` indices.
LaunchPlan generate_reference_kernel(const BoundMdh& bound, const PreambleOptions& options);

/// The macro that holds size symbol `size_name` in generated code for this md_hom: the spec's name, unless some
/// size would clash with another name in the program (a buffer, dimension, param, an identifier in user code,
/// an OpenCL C keyword); then every size is `MDH_SIZE_<name>`.
std::string size_macro_name(const Mdh& mdh, const std::string& size_name);

}  // namespace mdh
