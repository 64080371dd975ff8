// Struct element types (`type NAME { C fields }`): their fields and their layout under OpenCL C's natural
// alignment, which the host side needs to lay out buffers of structs byte for byte like the kernel does.
#pragma once

#include <string>

#include "mdh/ir.h"

namespace mdh {

/// Parses the fields of `type NAME { body }` (scalar fields and fixed-size arrays of them) and computes offsets,
/// size and alignment. Anything else in the body is a UserError at its location.
StructType parse_struct_body(const std::string& name, const SourceLoc& name_loc, const UserCode& body);

}  // namespace mdh
