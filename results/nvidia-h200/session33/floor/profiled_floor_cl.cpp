// Session 33 (issue 12): how much of a profiled OpenCL kernel time on this GPU is the kernel's, and how much any
// kernel pays. An empty kernel (it reads one float and writes nothing) at the grids of mdh's committed GEMM
// 10x500x64 and DOT configurations, at one work-group and at 264 x 1024; then a read-only stream (float4 loads,
// one partial sum per work-item, grid-strided) over 64 MiB and 128 MiB at 18 grids. Each: median and minimum of
// CL_PROFILING_COMMAND_END - START over 2,000 launches after 200 warm-ups, each launch waited for (as peer_mdh
// times a call). Its CUDA twin, timed as peer_cuda times cuBLAS (two event records), is event_floor.cu.
// Build: g++ -O2 -std=c++17 profiled_floor_cl.cpp -lOpenCL.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
// --any-device: a short run on whatever device comes first (a test on PoCL), 30 launches per measure.
bool any_device_test = false;

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "error: %s failed (%d)\n", what, status);
    std::exit(1);
  }
}

// Median and minimum device time in us of `kernel` at `groups` work-groups of `local`.
std::pair<double, double> profiled_us(cl_command_queue queue, cl_kernel kernel, size_t groups, size_t local) {
  const size_t global = groups * local;
  std::vector<double> us;
  for (int r = 0; r < (any_device_test ? 30 : 2200); ++r) {
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &e), "launch");
    check(clFinish(queue), "finish");
    cl_ulong start = 0, end = 0;
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "start");
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "end");
    clReleaseEvent(e);
    if (r >= (any_device_test ? 5 : 200)) us.push_back(static_cast<double>(end - start) * 1e-3);
  }
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front()};
}
}  // namespace

int main(int argc, char** argv) {
  any_device_test = argc > 1 && std::string(argv[1]) == "--any-device";
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
  if (!device && any_device_test)
    check(clGetDeviceIDs(ids[0], CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  if (!device) return std::fprintf(stderr, "error: no NVIDIA OpenCL device\n"), 1;
  size_t resolution = 0;
  clGetDeviceInfo(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof resolution, &resolution, nullptr);
  std::printf("profiling timer resolution: %zu ns\n", resolution);
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");
  const char* source =
      "__kernel void empty(__global const float* p, __global float* out) { if (p[0] == 12345.0f) out[0] = 1.0f; }\n"
      "__kernel void stream(__global const float4* p, __global float* out, const int n) {\n"
      "  const int stride = get_global_size(0);\n"
      "  float4 s = (float4)(0.0f);\n"
      "  for (int i = get_global_id(0); i < n; i += stride) s += p[i];\n"
      "  out[get_global_id(0)] = s.x + s.y + s.z + s.w;\n"
      "}\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &status);
  check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  const size_t big = size_t(128) << 20;
  cl_mem data = clCreateBuffer(context, CL_MEM_READ_WRITE, big, nullptr, &status);
  check(status, "clCreateBuffer");
  const cl_uchar zero = 0;
  check(clEnqueueFillBuffer(queue, data, &zero, 1, 0, big, 0, nullptr, nullptr), "fill");
  cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, size_t(4) << 20, nullptr, &status);
  check(status, "clCreateBuffer");
  cl_kernel empty = clCreateKernel(program, "empty", &status);
  check(clSetKernelArg(empty, 0, sizeof data, &data), "arg");
  check(clSetKernelArg(empty, 1, sizeof out, &out), "arg");
  struct Grid {
    const char* what;
    size_t groups, local;
  };
  for (int round = 1; round <= 2; ++round) {
    for (Grid g : {Grid{"one work-group of 32", 1, 32}, Grid{"GEMM 10x500x64's grid, 160 x 128", 160, 128},
                   Grid{"DOT's grid, 256 x 512", 256, 512}, Grid{"264 x 1024", 264, 1024}}) {
      auto [median, min] = profiled_us(queue, empty, g.groups, g.local);
      std::printf("round %d, empty kernel, %s: median %.2f us, min %.2f us\n", round, g.what, median, min);
    }
    cl_kernel stream = clCreateKernel(program, "stream", &status);
    check(clSetKernelArg(stream, 0, sizeof data, &data), "arg");
    check(clSetKernelArg(stream, 1, sizeof out, &out), "arg");
    for (size_t mib : {64, 128}) {
      const size_t float4s = (mib << 20) / 16;
      double best = 1e30;
      size_t best_groups = 0, best_local = 0;
      const int n = static_cast<int>(float4s);
      check(clSetKernelArg(stream, 2, sizeof n, &n), "arg");
      for (size_t local : {256, 512, 1024})
        for (size_t groups : {132, 256, 264, 512, 528, 1024}) {
          auto [median, min] = profiled_us(queue, stream, groups, local);
          if (median < best) best = median, best_groups = groups, best_local = local;
        }
      std::printf("round %d, read-only stream of %zu MiB: best median %.2f us (%zu x %zu), %.1f GB/s\n", round, mib,
                  best, best_groups, best_local, static_cast<double>(mib << 20) / (best * 1e3));
    }
    clReleaseKernel(stream);
  }
  return 0;
}
