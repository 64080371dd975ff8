#include "runtime/first_launch.h"

#include <algorithm>
#include <cctype>

#include "runtime/prepared_plan.h"

namespace mdh {

bool compiles_at_first_launch(const DeviceInfo& device) {
  std::string platform = device.platform_name;
  std::transform(platform.begin(), platform.end(), platform.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return platform.find("portable computing language") != std::string::npos ||
         platform.find("pocl") != std::string::npos;
}

LaunchPlan one_work_group_each(const LaunchPlan& plan) {
  LaunchPlan cut = plan;
  for (KernelLaunch& launch : cut.kernels)
    if (launch.local_size) launch.global_size = *launch.local_size;
  return cut;
}

void compile_first_launches(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
                            const std::map<std::string, std::vector<unsigned char>>& param_bytes) {
  const LaunchPlan cut = one_work_group_each(plan);
  {
    PreparedPlan prepared(context, cut, buffers, param_bytes);
    std::vector<ClEvent> events(prepared.kernel_count());
    std::vector<std::pair<size_t, const ClEvent*>> waited;
    for (size_t k = 0; k < prepared.kernel_count(); ++k) {
      events[k] = prepared.enqueue(k, true);
      waited.emplace_back(k, &events[k]);
    }
    prepared.wait(waited);
  }
  // One work-group of a plan that counts its work-groups (WG_COMBINE) leaves its counts short of zero.
  context.set_scratch_left_zero_by(nullptr);
  context.store_binary(plan.source, plan.build_options);
}

}  // namespace mdh
