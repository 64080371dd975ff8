#include "runtime/opencl_error.h"

#include "support/error.h"

namespace mdh {

namespace {
struct OpenClErrorInfo {
  cl_int status;
  const char* name;
  const char* explanation;
};

// Codes of the OpenCL 1.2 core API plus the ICD loader and common extension codes a 1.2 host may see.
constexpr OpenClErrorInfo kErrors[] = {
    {0, "CL_SUCCESS", "the call succeeded"},
    {-1, "CL_DEVICE_NOT_FOUND", "no OpenCL device of the requested type was found"},
    {-2, "CL_DEVICE_NOT_AVAILABLE", "the device is currently not available (busy, or disabled by the driver)"},
    {-3, "CL_COMPILER_NOT_AVAILABLE", "the platform has no OpenCL C compiler for this device"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE", "the device could not allocate memory for a buffer"},
    {-5, "CL_OUT_OF_RESOURCES", "the device ran out of resources (registers, local memory, or a kernel crashed)"},
    {-6, "CL_OUT_OF_HOST_MEMORY", "the OpenCL implementation ran out of host memory"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE",
     "profiling information is not available (queue without profiling, or command not finished)"},
    {-8, "CL_MEM_COPY_OVERLAP", "source and destination of a copy overlap"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH", "images do not share the same format"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED", "the image format is not supported by the device"},
    {-11, "CL_BUILD_PROGRAM_FAILURE", "the OpenCL C program failed to compile or link (see the build log)"},
    {-12, "CL_MAP_FAILURE", "mapping a buffer into host memory failed"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET",
     "a sub-buffer offset is not aligned to the device's base address alignment"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST", "a command this one waited for has failed"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE", "the OpenCL C program failed to compile (see the build log)"},
    {-16, "CL_LINKER_NOT_AVAILABLE", "the platform has no linker for this device"},
    {-17, "CL_LINK_PROGRAM_FAILURE", "linking the program failed (see the build log)"},
    {-18, "CL_DEVICE_PARTITION_FAILED", "partitioning the device failed"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE", "kernel argument information is not available"},
    {-30, "CL_INVALID_VALUE", "an argument of the call has an invalid value"},
    {-31, "CL_INVALID_DEVICE_TYPE", "the device type is not a valid value"},
    {-32, "CL_INVALID_PLATFORM", "the platform is not a valid platform"},
    {-33, "CL_INVALID_DEVICE", "the device is not valid or not associated with the platform or context"},
    {-34, "CL_INVALID_CONTEXT", "the context is not valid"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES", "the device does not support the requested command-queue properties"},
    {-36, "CL_INVALID_COMMAND_QUEUE", "the command queue is not valid"},
    {-37, "CL_INVALID_HOST_PTR", "the host pointer and the memory flags do not agree"},
    {-38, "CL_INVALID_MEM_OBJECT", "the memory object is not valid"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", "the image format descriptor is not valid"},
    {-40, "CL_INVALID_IMAGE_SIZE", "the image size is not supported by the device"},
    {-41, "CL_INVALID_SAMPLER", "the sampler is not valid"},
    {-42, "CL_INVALID_BINARY", "the program binary is not valid for the device"},
    {-43, "CL_INVALID_BUILD_OPTIONS", "the build options are not valid OpenCL compiler options"},
    {-44, "CL_INVALID_PROGRAM", "the program is not valid"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE", "the program has not been built successfully for the device"},
    {-46, "CL_INVALID_KERNEL_NAME", "the program has no kernel of that name"},
    {-47, "CL_INVALID_KERNEL_DEFINITION", "the kernel's signature differs between the program's devices"},
    {-48, "CL_INVALID_KERNEL", "the kernel object is not valid"},
    {-49, "CL_INVALID_ARG_INDEX", "the kernel has no argument at that index"},
    {-50, "CL_INVALID_ARG_VALUE", "the kernel argument value is not valid (e.g. a null buffer)"},
    {-51, "CL_INVALID_ARG_SIZE", "the kernel argument's size does not match the parameter's type"},
    {-52, "CL_INVALID_KERNEL_ARGS", "some kernel arguments have not been set"},
    {-53, "CL_INVALID_WORK_DIMENSION", "the number of work dimensions is not 1, 2 or 3"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE",
     "the local size does not divide the global size, exceeds the device's or kernel's maximum work-group size, or "
     "conflicts with reqd_work_group_size"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE", "a local size exceeds the device's maximum work-item size in that dimension"},
    {-56, "CL_INVALID_GLOBAL_OFFSET", "the global offset is not valid"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST", "the event wait list is not valid"},
    {-58, "CL_INVALID_EVENT", "the event object is not valid"},
    {-59, "CL_INVALID_OPERATION", "the operation is not valid in the current state"},
    {-60, "CL_INVALID_GL_OBJECT", "the OpenGL object is not valid"},
    {-61, "CL_INVALID_BUFFER_SIZE", "the buffer size is zero or exceeds the device's maximum allocation size"},
    {-62, "CL_INVALID_MIP_LEVEL", "the mip level is not valid"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE", "the global work size is zero or exceeds what the device can address"},
    {-64, "CL_INVALID_PROPERTY", "a property name or value is not valid"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR", "the image descriptor is not valid"},
    {-66, "CL_INVALID_COMPILER_OPTIONS", "the compiler options are not valid"},
    {-67, "CL_INVALID_LINKER_OPTIONS", "the linker options are not valid"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT", "the device partition count is not valid"},
    {-69, "CL_INVALID_PIPE_SIZE", "the pipe size is not valid"},
    {-70, "CL_INVALID_DEVICE_QUEUE", "the device queue is not valid"},
    {-71, "CL_INVALID_SPEC_ID", "the specialization constant id is not valid"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED", "a size exceeds an implementation limit"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR", "no OpenCL platform is installed (the ICD loader found no vendor driver)"},
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR", "the OpenGL share group reference is not valid"},
    {-9999, "CL_NV_ILLEGAL_ADDRESS", "the kernel accessed memory out of bounds (NVIDIA)"},
};

const OpenClErrorInfo* find_error(cl_int status) {
  for (const auto& e : kErrors)
    if (e.status == status) return &e;
  return nullptr;
}
}  // namespace

const char* opencl_error_name(cl_int status) {
  const OpenClErrorInfo* e = find_error(status);
  return e ? e->name : "CL_UNKNOWN_ERROR";
}

const char* opencl_error_explanation(cl_int status) {
  const OpenClErrorInfo* e = find_error(status);
  return e ? e->explanation : "an error code this version of mdh does not know";
}

std::string describe_opencl_error(cl_int status) {
  return std::string(opencl_error_name(status)) + " (" + std::to_string(status) +
         "): " + opencl_error_explanation(status);
}

void check(cl_int status, const char* what) {
  if (status == CL_SUCCESS) return;
  throw UserError(std::string("OpenCL error in ") + what + ": " + describe_opencl_error(status));
}

void check(cl_int status, const std::string& what) {
  check(status, what.c_str());
}

}  // namespace mdh
