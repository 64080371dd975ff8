// Spec text -> MDH IR. The grammar is in docs/spec-language.md; every parse function in parser.cpp carries
// its rule. The result has passed verify() (mdh/verify.h); sizes stay symbolic until bind() (mdh/bind.h).
#pragma once

#include <memory>
#include <string>

#include "mdh/ir.h"
#include "mdh/reserved_names.h"

namespace mdh {

/// Parses and verifies one spec. `file` is used for diagnostics only (`FILE:LINE:COL: error: ...`).
/// Throws UserError for every error in the spec. Without `generated_names` only the language's reserved names are
/// refused; a spec that is to be generated is read with the generators' (pipeline/pipeline.h, load_spec).
std::shared_ptr<Mdh> parse_spec(const std::string& text, const std::string& file,
                                const ReservedNameRule& generated_names = {});

/// Reads `path` and parses it; UserError if the file cannot be read.
std::shared_ptr<Mdh> parse_spec_file(const std::string& path, const ReservedNameRule& generated_names = {});

}  // namespace mdh
