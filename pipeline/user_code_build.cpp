#include "pipeline/user_code_build.h"

#include "pipeline/device_limits_query.h"
#include "pipeline/kernel.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "support/error.h"

namespace mdh {

namespace {

std::string sizes_text(const SizeBinding& sizes) {
  std::string text;
  for (const auto& [name, value] : sizes) text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text.empty() ? "no sizes" : "sizes " + text;
}

// Sizes at which the views fit, without the user naming any: the same value for every size, small ones first.
std::optional<std::pair<BoundMdh, SizeBinding>> some_binding(const std::shared_ptr<const Mdh>& mdh) {
  for (int64_t value : {64, 256, 1024}) {
    SizeBinding sizes;
    for (const SizeSymbol& s : mdh->sizes) sizes[s.name] = value;
    try {
      return std::pair{bind(mdh, sizes), sizes};
    } catch (const UserError&) {
      continue;  // a view that does not fit at these sizes; try larger ones
    }
  }
  return std::nullopt;
}

}  // namespace

UserCodeBuild build_user_code(const std::shared_ptr<const Mdh>& mdh, const std::optional<SizeBinding>& sizes,
                              const std::string& selector) {
  // 1. Sizes: the user's, else the first at which every view fits.
  std::optional<std::pair<BoundMdh, SizeBinding>> bound;
  if (sizes)
    bound.emplace(bind(mdh, *sizes), *sizes);
  else
    bound = some_binding(mdh);
  if (!bound) return {false, "user code not built: give --size (no equal sizes up to 1024 fit every view)"};
  // 2. The device; without one there is no compiler to ask.
  DeviceInfo device;
  try {
    device = select_device(selector);
  } catch (const UserError& e) {
    if (!selector.empty()) throw;
    return {false, std::string("user code not built: no OpenCL device (") + e.what() + ")"};
  }
  // 3. The reference kernel, built: its #line directives put the compiler's messages at the spec's lines.
  const PreparedKernel kernel = prepare_kernel(bound->first, device_limits(device), KernelChoice::reference());
  Context context(device);
  context.program(kernel.plan.source, kernel.plan.build_options);
  return {true, "user code builds on " + device.name + " (" + sizes_text(bound->second) + ")"};
}

}  // namespace mdh
