// OpenCL status codes as names and one-line explanations, and `check`, which turns a failed OpenCL call into a
// UserError: device-side failures are reported to the user (bad device, too big a launch), not internal asserts.
#pragma once

#include <CL/cl.h>

#include <string>

namespace mdh {

/// "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for a code OpenCL 1.2 (and its common extensions) lacks.
const char* opencl_error_name(cl_int status);
/// One line saying what the code usually means, for a user who has not memorised cl.h.
const char* opencl_error_explanation(cl_int status);
/// "CL_OUT_OF_RESOURCES (-5): <explanation>".
std::string describe_opencl_error(cl_int status);

/// Throws UserError("OpenCL error in <what>: CL_... (-5): ...") unless status is CL_SUCCESS.
void check(cl_int status, const char* what);
void check(cl_int status, const std::string& what);

}  // namespace mdh
