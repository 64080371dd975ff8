// The names the code generators put into a program that a spec cannot declare beside the language's reserved words
// (mdh/reserved_names.h): the built-ins they call and their own variables, the names they derive from the spec's,
// every tuning-parameter family's macros (from the table), and what each family's hooks declare
// (ParameterFamily::generated_names). `generated_name_reason` is the rule that parse_spec takes for a spec that is to
// be generated (pipeline's load_spec); tests/codegen/reserved_names_test.cpp generates the kernels of every app and
// checks that each identifier they hold that the spec does not is reserved, so that this and the emitters cannot
// drift apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mdh/reserved_names.h"

namespace mdh {

/// Why the generated code reserves `name` where it is used as `scope` says, in an md_hom whose declared names are
/// `declared` (nullopt: it does not), e.g. "the generated code uses it". A ReservedNameRule.
std::optional<std::string> generated_name_reason(const std::string& name, NameScope scope,
                                                 const std::vector<std::string>& declared);

}  // namespace mdh
