// The names a spec cannot declare. The language reserves C and OpenCL C keywords, type names and qualifiers; the
// code generators reserve the identifiers they emit and the patterns of the names they derive from the spec's
// (macros such as NUM_WG_<dim>, variables such as t_<dim>). Sizes become macros and dimensions, buffers and params
// variables of the kernels, so any of these would clash. mdh/ knows no generator: their names reach verify() as a
// rule from the layer that does (codegen/generated_names.h, through pipeline's load_spec).
#pragma once

#include <functional>
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

/// Why `name` is reserved by the language, wherever it is declared (nullopt: it is not), e.g. "a reserved word of
/// OpenCL C".
std::optional<std::string> language_reserved_reason(const std::string& name);

/// Why a layer above reserves `name` where it is used as `scope` says, in an md_hom whose declared names are
/// `declared` (nullopt: it does not), e.g. "the generated code uses it".
using ReservedNameRule = std::function<std::optional<std::string>(const std::string& name, NameScope scope,
                                                                  const std::vector<std::string>& declared)>;

/// Every name `mdh` declares (sizes, types, params, buffers, dimensions, operators, arguments and struct fields).
std::vector<std::string> declared_names(const Mdh& mdh);

}  // namespace mdh
