// PoCL compiles a kernel's work-group function at its first launch, for that launch's local size, not in
// clBuildProgram; the program binary it gives afterwards carries the compiled function. A process that builds ahead
// launches each kernel once, so that the process loading the binary runs without compiling.
#pragma once

#include <CL/cl.h>

#include <map>
#include <string>
#include <vector>

#include "codegen/launch_plan.h"
#include "runtime/context.h"
#include "runtime/device.h"

namespace mdh {

/// Whether `device`'s driver compiles each kernel again at its first launch (PoCL).
bool compiles_at_first_launch(const DeviceInfo& device);

/// The plan with each kernel's global size cut to one work-group (global = local): PoCL compiles a work-group function
/// per local size, so this launch compiles the function a full launch uses at a fraction of its run time. A kernel
/// without a local size keeps its global size, from which the driver chooses the local size.
LaunchPlan one_work_group_each(const LaunchPlan& plan);

/// Builds `plan` through the Context's cache, launches one_work_group_each(plan) once on `buffers` and `param_bytes`
/// (as execute_plan takes them; their contents are not assumed, the results are discarded) and waits, then stores
/// the program's binary into the binary cache (Context::store_binary; the Context should not have stored it at the
/// build, see Context::store_binaries_at_build). A build or launch failure is a UserError.
void compile_first_launches(Context& context, const LaunchPlan& plan, const std::map<std::string, cl_mem>& buffers,
                            const std::map<std::string, std::vector<unsigned char>>& param_bytes);

}  // namespace mdh
