// The IR's stage check: everything about an md_hom that can be checked without concrete sizes.
// parse_spec() runs it on every spec; later stages may run it again on the IR they receive.
#pragma once

#include "mdh/ir.h"
#include "mdh/reserved_names.h"

namespace mdh {

/// Throws UserError (at the offending declaration, access, index or operator) if the md_hom is not well formed:
/// duplicate names; names the language reserves, or `generated_names` (the code generators', when given);
/// undeclared sizes, types or combine operators; a buffer without extents; not exactly one
/// output; a view access with the wrong number of indices, reading a table or the output, or writing an input;
/// a window on the output; an output index that uses a reduction dimension or misses a `++` dimension; a scalar
/// function whose argument count differs from the number of input accesses; a combine operator used on a type it
/// does not take. Internal inconsistencies (indices out of range) are InternalErrors.
void verify(const Mdh& mdh, const ReservedNameRule& generated_names = {});

}  // namespace mdh
