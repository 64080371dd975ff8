// The names a spec cannot declare because its generated OpenCL C could never compile with them: C and OpenCL C
// keywords, type names and qualifiers, the identifiers the code generators emit themselves, and the patterns of
// the names they derive from the spec's (macros such as NUM_WG_<dim>, variables such as t_<dim>). Sizes become
// macros and dimensions, buffers and params variables of the kernels, so any of these would clash.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mdh {

struct Mdh;

/// Where a declared name appears in generated code, which decides what it can clash with.
enum class NameScope {
  macro,   // a size: a macro that replaces the name in the whole program (every identifier of it clashes)
  kernel,  // a dimension, buffer, param, argument, operator or type: beside the kernels' own variables and calls
  member,  // a struct field or an operator's parameter: only keywords and macros clash
};

/// Why `name` is reserved where it is used as `scope` says, in an md_hom whose declared names are `declared`
/// (nullopt: it is not), e.g. "a reserved word of OpenCL C" or "the generated code uses it".
std::optional<std::string> reserved_name_reason(const std::string& name, NameScope scope,
                                                const std::vector<std::string>& declared);

/// Every name `mdh` declares (sizes, types, params, buffers, dimensions, operators, arguments and struct fields).
std::vector<std::string> declared_names(const Mdh& mdh);

/// The prefixes of the tuning-parameter and geometry macros of the tunable kernel (NUM_WG_, LT_SIZE_, ...), reserved
/// outright: a macro replaces the name everywhere. The tests check codegen's family table against it.
const std::vector<std::string>& reserved_macro_prefixes();

}  // namespace mdh
