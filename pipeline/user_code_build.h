// Whether a spec's user code (scalar function, helpers, operators) builds: the device compiler judges C, which the
// spec checks cannot, so `mdh check` builds the reference kernel once and reports what the compiler says at the
// spec's lines (an undefined name, a type error) instead of leaving it to the first run.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "mdh/bind.h"
#include "mdh/ir.h"

namespace mdh {

struct UserCodeBuild {
  bool built = false;
  std::string what;  // "builds on DEVICE (sizes I=64)", or why it was not built
};

/// Builds the reference kernel of `mdh` on the device `selector` names: at `sizes` where given, else at the first of
/// 64, 256 and 1024 for every size at which the views fit. A compiler error throws UserError with the build log (the
/// spec's file:line:col). No device, or no such sizes, is a result that says so, not an error.
UserCodeBuild build_user_code(const std::shared_ptr<const Mdh>& mdh, const std::optional<SizeBinding>& sizes,
                              const std::string& selector);

}  // namespace mdh
