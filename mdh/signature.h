// The identity of an md_hom for reusing what was tuned for it: a hash of everything that decides the generated
// kernels and the meaning of a configuration, and of nothing else.
#pragma once

#include <string>

#include "mdh/ir.h"

namespace mdh {

/// 16 hex digits. Equal for two specs that declare the same md_hom: name, sizes, dimensions with extents and
/// combine operators, buffers with types and extents, the views, params, struct types and all user code (scalar
/// function, operators and their identities, helpers), with runs of blanks in user code counted as one. Not part of
/// it: comments and layout outside user code, the file's path, and the `flops`/`bytes` declarations (they only
/// label results). A tuned configuration recorded with one signature is reused only for a spec with the same one
/// (pipeline/tuned_store.h).
std::string md_hom_signature(const Mdh& mdh);

}  // namespace mdh
