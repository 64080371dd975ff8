// Runs last_group_dot.cl (the `dot` plan of last_group_dot.launch.json, K = 13) three times on the first CPU device
// and prints the kernel's own printf lines and each launch's result (expected 26 every time).
//   g++ -std=c++17 -I../../../runtime run_twice.cpp -o run_twice -lOpenCL && ./run_twice
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "mdh_runner.hpp"

int main() {
  cl_platform_id platform;
  clGetPlatformIDs(1, &platform, nullptr);
  cl_device_id device;
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr);
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, properties, nullptr);
  // The files are named last_group_dot.*; mdh_runner loads <dir>/<name>.cl and .launch.json.
  std::filesystem::create_directories("run");
  std::filesystem::copy_file("last_group_dot.cl", "run/dot.cl", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file("last_group_dot.launch.json", "run/dot.launch.json",
                             std::filesystem::copy_options::overwrite_existing);
  mdh_runner::Runner runner(context, device, queue, mdh_runner::Plan::load("run", "dot"));
  std::vector<float> x(13, 1.0f), y(13, 2.0f);
  cl_mem X = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, 52, x.data(), nullptr);
  cl_mem Y = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, 52, y.data(), nullptr);
  cl_mem R = clCreateBuffer(context, CL_MEM_READ_WRITE, 4, nullptr, nullptr);
  for (int launch = 0; launch < 3; ++launch) {
    const float unset = -1;
    clEnqueueWriteBuffer(queue, R, CL_TRUE, 0, 4, &unset, 0, nullptr, nullptr);
    runner.run({{"x", X}, {"y", Y}, {"r", R}}).wait();
    float r;
    clEnqueueReadBuffer(queue, R, CL_TRUE, 0, 4, &r, 0, nullptr, nullptr);
    std::printf("launch %d: r = %g (expected 26)\n", launch, r);
  }
}
