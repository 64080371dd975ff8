#include "tests/codegen/opencl_test_device.h"

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

namespace mdh::testing {

namespace {

/// The first device of the first platform with a context and an in-order queue, created once per test binary.
struct Device {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;

  Device() {
    cl_platform_id platform = nullptr;
    cl_uint count = 0;
    if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || count == 0)
      throw std::runtime_error("no OpenCL platform (install PoCL)");
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &count) != CL_SUCCESS || count == 0)
      throw std::runtime_error("no OpenCL device");
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) throw std::runtime_error("clCreateContext failed: " + std::to_string(err));
    queue = clCreateCommandQueue(context, device, 0, &err);
    if (err != CL_SUCCESS) throw std::runtime_error("clCreateCommandQueue failed: " + std::to_string(err));
  }
};

Device& device() {
  static Device d;
  return d;
}

std::string build_log(cl_program program) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device().device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device().device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

struct ProgramDeleter {
  void operator()(cl_program p) const { clReleaseProgram(p); }
};
using Program = std::unique_ptr<std::remove_pointer_t<cl_program>, ProgramDeleter>;

Program create_and_build(const std::string& source, const std::string& options, BuildResult& result) {
  const char* text = source.c_str();
  size_t length = source.size();
  cl_int err = CL_SUCCESS;
  Program program(clCreateProgramWithSource(device().context, 1, &text, &length, &err));
  if (err != CL_SUCCESS) throw std::runtime_error("clCreateProgramWithSource failed: " + std::to_string(err));
  result.ok = clBuildProgram(program.get(), 1, &device().device, options.c_str(), nullptr, nullptr) == CL_SUCCESS;
  result.log = build_log(program.get());
  return program;
}

}  // namespace

BuildResult build_program(const std::string& source, const std::string& options) {
  BuildResult result;
  create_and_build(source, options, result);
  return result;
}

bool device_has_fp64() {
  size_t size = 0;
  clGetDeviceInfo(device().device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(device().device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  return extensions.find("cl_khr_fp64") != std::string::npos;
}

void run_plan(const LaunchPlan& plan, std::map<std::string, Bytes>& buffers,
              const std::map<std::string, Bytes>& params) {
  BuildResult built;
  Program program = create_and_build(plan.source, plan.build_options, built);
  if (!built.ok) {
    ADD_FAILURE() << "build failed:\n" << built.log;
    return;
  }
  std::map<std::string, cl_mem> memory;
  auto release = [&] {
    for (auto& [name, mem] : memory) clReleaseMemObject(mem);
  };
  cl_int err = CL_SUCCESS;
  for (auto& [name, bytes] : buffers) {
    // OpenCL refuses zero-byte buffers; every spec buffer has at least one element anyway.
    memory[name] =
        clCreateBuffer(device().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data(), &err);
    if (err != CL_SUCCESS) {
      ADD_FAILURE() << "clCreateBuffer(" << name << ") failed: " << err;
      release();
      return;
    }
  }
  for (const auto& launch : plan.kernels) {
    cl_kernel kernel = clCreateKernel(program.get(), launch.kernel_name.c_str(), &err);
    if (err != CL_SUCCESS) {
      ADD_FAILURE() << "clCreateKernel(" << launch.kernel_name << ") failed: " << err;
      release();
      return;
    }
    for (size_t a = 0; a < launch.args.size(); ++a) {
      const KernelArg& arg = launch.args[a];
      if (arg.kind == KernelArg::Kind::Buffer) {
        err = clSetKernelArg(kernel, a, sizeof(cl_mem), &memory.at(arg.name));
      } else if (arg.kind == KernelArg::Kind::Param) {
        const Bytes& value = params.at(arg.name);
        err = clSetKernelArg(kernel, a, value.size(), value.data());
      } else {
        err = CL_INVALID_ARG_VALUE;  // the reference kernel has no scratch buffers
      }
      EXPECT_EQ(err, CL_SUCCESS) << "argument " << a << " (" << arg.name << ")";
    }
    size_t global[3] = {launch.global_size[0], launch.global_size[1], launch.global_size[2]};
    size_t local[3] = {0, 0, 0};
    if (launch.local_size)
      for (int d = 0; d < 3; ++d) local[d] = (*launch.local_size)[d];
    err = clEnqueueNDRangeKernel(device().queue, kernel, launch.work_dims, nullptr, global,
                                 launch.local_size ? local : nullptr, 0, nullptr, nullptr);
    EXPECT_EQ(err, CL_SUCCESS) << "clEnqueueNDRangeKernel(" << launch.kernel_name << ")";
    clReleaseKernel(kernel);
  }
  for (auto& [name, bytes] : buffers) {
    err = clEnqueueReadBuffer(device().queue, memory.at(name), CL_TRUE, 0, bytes.size(), bytes.data(), 0, nullptr,
                              nullptr);
    EXPECT_EQ(err, CL_SUCCESS) << "clEnqueueReadBuffer(" << name << ")";
  }
  release();
}

}  // namespace mdh::testing
