// The verdict on a built candidate from ptxas's report of its kernels.
#include "pipeline/spill_check.h"

#include "runtime/ptxas_log.h"

namespace mdh {

std::optional<std::string> spill_rejection(const std::string& build_log) {
  std::string reason;
  for (const PtxasKernelReport& report : parse_ptxas_log(build_log)) {
    if (report.spill_store_bytes.value_or(0) <= kToleratedSpillBytes &&
        report.spill_load_bytes.value_or(0) <= kToleratedSpillBytes)
      continue;
    if (!reason.empty()) reason += "; ";
    reason += "kernel '" + report.kernel_name + "' spills: " + std::to_string(report.spill_store_bytes.value_or(0)) +
              " bytes spill stores, " + std::to_string(report.spill_load_bytes.value_or(0)) +
              " bytes spill loads (ptxas" +
              (report.registers ? ", " + std::to_string(*report.registers) + " registers)" : std::string(")"));
  }
  if (reason.empty()) return std::nullopt;
  return reason;
}

}  // namespace mdh
