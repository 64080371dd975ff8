#include "runtime/device_check.h"

#include <algorithm>
#include <cstring>

#include "codegen/launch_plan.h"
#include "runtime/execute.h"
#include "runtime/verify_result.h"
#include "support/error.h"

namespace mdh {

namespace {
// One work-item per element up to this many work-items, then each strides over the rest.
constexpr uint64_t kMostWorkItems = uint64_t{1} << 20;

const char* opencl_type(ScalarType type) {
  return type == ScalarType::Double ? "double" : "float";
}

// verify_result's rule per value, in double. FP_CONTRACT OFF: the bound is computed as the host computes it.
std::string check_source(ScalarType output, ScalarType reference) {
  return std::string("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#pragma OPENCL FP_CONTRACT OFF\n") +
         "__kernel void mdh_check(__global const " + opencl_type(output) + "* x, __global const " +
         opencl_type(reference) +
         "* ref, const ulong n, const double tol, const double magnitude, __global volatile uint* outside) {\n"
         "  uint bad = 0;\n"
         "  for (ulong e = get_global_id(0); e < n; e += get_global_size(0)) {\n"
         "    const double v = (double)x[e], r = (double)ref[e];\n"
         "    int ok;\n"
         "    if (isnan(v) || isnan(r)) ok = isnan(v) && isnan(r);\n"
         "    else if (v == r) ok = 1;\n"
         "    else if (isinf(v) || isinf(r)) ok = 0;\n"
         "    else ok = fabs(v - r) <= tol * (fabs(r) + magnitude);\n"
         "    bad |= !ok;\n"
         "  }\n"
         "  if (bad) atomic_or(outside, 1u);\n"
         "}\n";
}

template <class T>
std::vector<unsigned char> bytes_of(T value) {
  std::vector<unsigned char> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

}  // namespace

std::optional<DeviceCheck> DeviceCheck::make(Context& context, const HostBuffer& reference, ElementType output_type,
                                             int64_t reduction_size, ComputePrecision precision) {
  // Half and bfloat16 outputs are checked on the host, which decodes them (runtime/verify_result.h).
  if (output_type.is_struct() || reference.type.is_struct() || !is_floating(output_type.scalar) ||
      is_storage_only(output_type.scalar) || !is_floating(reference.type.scalar) || !context.device().fp64)
    return std::nullopt;
  const bool widened = output_type.scalar == ScalarType::Float && reference.type.scalar == ScalarType::Double;
  MDH_INTERNAL_ASSERT(output_type == reference.type || widened, "reference type does not fit the output");
  LaunchPlan plan;
  plan.source = check_source(output_type.scalar, reference.type.scalar);
  plan.build_options = "-cl-std=CL1.2";
  KernelLaunch launch;
  launch.kernel_name = "mdh_check";
  const int64_t count = reference.element_count();
  launch.global_size[0] = std::clamp<uint64_t>(static_cast<uint64_t>(count), 1, kMostWorkItems);
  for (const char* buffer : {"x", "ref"}) launch.args.push_back({KernelArg::Kind::Buffer, buffer, -1});
  for (const char* param : {"n", "tol", "magnitude"}) launch.args.push_back({KernelArg::Kind::Param, param, -1});
  launch.args.push_back({KernelArg::Kind::Buffer, "outside", -1});
  plan.kernels.push_back(launch);
  const std::map<std::string, std::vector<unsigned char>> params{
      {"n", bytes_of<uint64_t>(static_cast<uint64_t>(count))},
      {"tol", bytes_of(result_tolerance(output_type.scalar, reduction_size, precision))},
      {"magnitude", bytes_of(largest_finite_magnitude(reference))}};
  try {
    DeviceBuffer on_device(context, reference.bytes.size());
    on_device.write(reference.bytes);
    return DeviceCheck(context, std::move(on_device), DeviceBuffer(context, sizeof(uint32_t)), std::move(plan), params);
  } catch (const UserError&) {
    return std::nullopt;  // no room on the device: the host checks
  }
}

bool DeviceCheck::passes(const DeviceBuffer& output) {
  outside_.fill(0);
  execute_plan(*context_, plan_, {{"x", output.get()}, {"ref", reference_.get()}, {"outside", outside_.get()}}, params_,
               0, 1);
  uint32_t flag = 1;
  outside_.read(&flag, sizeof flag);
  return flag == 0;
}

}  // namespace mdh
