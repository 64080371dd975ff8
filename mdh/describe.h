// Human-readable summaries of an md_hom, for `mdh check` and for diagnostics that quote the spec.
#pragma once

#include <string>

#include "mdh/ir.h"

namespace mdh {

/// User code with every run of blanks and newlines made one space (none at either end): multi-line code reads as
/// one line in a summary, and re-indenting a spec keeps its signature (mdh/signature.h).
std::string collapse_blanks(const std::string& code);

/// "input", "output", "table": the keyword that declares a buffer of this kind.
const char* buffer_kind_name(BufferKind kind);

/// An access as written in the spec: `img[i + 0..4][j + 0..4]`.
std::string access_text(const Mdh& mdh, const Access& access);

/// A stable multi-line summary: name, sizes, dimensions with extents and combine operators, buffers with types
/// and extents, the view, params, structs and operators.
std::string describe(const Mdh& mdh);

}  // namespace mdh
