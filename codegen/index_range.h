// Where the tunable kernel's `int` indices end: every extent and every buffer's element count must stay below 2^31,
// or its index arithmetic wraps. Checked before a space is made or a kernel generated.
#pragma once

#include "mdh/bind.h"

namespace mdh {

/// Throws UserError, at the dimension's or buffer's place in the spec, where an extent or a buffer's element count
/// passes the tunable kernel's `int` indices (2^31 - 1).
void check_tunable_index_range(const BoundMdh& bound);

}  // namespace mdh
