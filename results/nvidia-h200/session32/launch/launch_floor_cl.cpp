// Session 32 (issue 12: "the call time must not lose"): the whole-call floor of OpenCL on this GPU. An empty kernel
// (one work-group of 32) launched and waited for, host wall time from the enqueue until the wait returns, median of
// 2,000 after 200 warm-ups: as mdh's execute_plan times a call (profiling queue, an event per kernel, clFinish), and
// without the event, and on a queue without profiling. Its CUDA twin is launch_floor.cu.
// Build: g++ -O2 -std=c++17 launch_floor_cl.cpp -lOpenCL.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "error: %s failed (%d)\n", what, status);
    std::exit(1);
  }
}

double median_us(cl_command_queue queue, cl_kernel kernel, bool with_event) {
  const size_t global = 32, local = 32;
  std::vector<double> us;
  for (int r = 0; r < 2200; ++r) {
    const auto start = std::chrono::steady_clock::now();
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, with_event ? &e : nullptr),
          "launch");
    check(clFinish(queue), "finish");
    const auto end = std::chrono::steady_clock::now();
    if (e) clReleaseEvent(e);
    if (r >= 200) us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}
}  // namespace

int main() {
  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  for (cl_platform_id p : ids) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::string(name).find("NVIDIA") != std::string::npos &&
        clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &device, nullptr) == CL_SUCCESS)
      break;
  }
  if (!device) return std::fprintf(stderr, "error: no NVIDIA OpenCL device\n"), 1;
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  const char* source = "__kernel void empty(__global float* p) { if (p[0] == 12345.0f) p[1] = 1.0f; }";
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &status);
  check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel kernel = clCreateKernel(program, "empty", &status);
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, &status);
  check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "arg");
  for (int round = 1; round <= 2; ++round) {
    for (bool profiling : {true, false}) {
      cl_command_queue queue =
          clCreateCommandQueue(context, device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &status);
      check(status, "clCreateCommandQueue");
      for (bool with_event : {true, false})
        std::printf("round %d, OpenCL, %s queue, %s event: enqueue to clFinish %.1f us\n", round,
                    profiling ? "profiling" : "plain", with_event ? "with" : "without",
                    median_us(queue, kernel, with_event));
      clReleaseCommandQueue(queue);
    }
  }
  return 0;
}
