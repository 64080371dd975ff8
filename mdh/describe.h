// Human-readable summaries of an md_hom, for `mdh check` and for diagnostics that quote the spec.
#pragma once

#include <string>

#include "mdh/ir.h"

namespace mdh {

/// An access as written in the spec: `img[i + 0..4][j + 0..4]`.
std::string access_text(const Mdh& mdh, const Access& access);

/// A stable multi-line summary: name, sizes, dimensions with extents and combine operators, buffers with types
/// and extents, the view, params, structs and operators.
std::string describe(const Mdh& mdh);

}  // namespace mdh
