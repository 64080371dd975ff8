// Session 37 (issue 12): A/B of hand-edited forms of mdh's generated DOT kernel (2^24 floats, the committed
// configuration's launch: 256 work-groups of 512 along dimension 1), on one card, interleaved. Each round times every
// kernel file in turn: median of CL_PROFILING_COMMAND_END - START over 300 launches after 20 warm-ups, each launch
// waited for (as peer_mdh times a call), the result checked against a double-precision sum after every round.
// Usage: kernel_ab_cl ROUNDS FILE.cl... (kernel `dot_tunable`, arguments x, y, r, counts, accumulators).
// Build: g++ -O2 -std=c++17 kernel_ab_cl.cpp -lOpenCL. On PoCL (no NVIDIA platform) it takes the first device.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {
void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "error: %s failed (%d)\n", what, status);
    std::exit(1);
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: kernel_ab_cl ROUNDS FILE.cl...\n"), 2;
  const int rounds = std::atoi(argv[1]);
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
  const bool nvidia = device != nullptr;
  if (!device) check(clGetDeviceIDs(ids[0], CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");

  const size_t n = size_t(1) << 24;
  std::vector<float> x(n), y(n);
  double expected = 0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
    y[i] = static_cast<float>((i * 104729) % 997) / 997.0f;
    expected += static_cast<double>(x[i]) * y[i];
  }
  auto buffer = [&](size_t bytes, const void* host) {
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              const_cast<void*>(host), &status);
    check(status, "clCreateBuffer");
    return m;
  };
  cl_mem dx = buffer(n * 4, x.data()), dy = buffer(n * 4, y.data()), dr = buffer(4, nullptr);
  const int zero = 0;
  cl_mem counts = buffer(4, &zero), accumulators = buffer(4, &zero);

  std::vector<cl_kernel> kernels;
  for (int f = 2; f < argc; ++f) {
    std::ifstream in(argv[f]);
    if (!in) return std::fprintf(stderr, "error: cannot read %s\n", argv[f]), 2;
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    const char* s = source.c_str();
    cl_program program = clCreateProgramWithSource(context, 1, &s, nullptr, &status);
    check(status, "clCreateProgramWithSource");
    if (clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
      std::vector<char> log(1 << 20);
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log.size(), log.data(), nullptr);
      return std::fprintf(stderr, "error: %s does not build:\n%s\n", argv[f], log.data()), 1;
    }
    cl_kernel k = clCreateKernel(program, "dot_tunable", &status);
    check(status, "clCreateKernel");
    cl_mem args[] = {dx, dy, dr, counts, accumulators};
    for (cl_uint a = 0; a < 5; ++a) check(clSetKernelArg(k, a, sizeof(cl_mem), &args[a]), "clSetKernelArg");
    kernels.push_back(k);
  }
  const size_t global[2] = {1, 256 * 512}, local[2] = {1, 512};
  const int runs = nvidia ? 300 : 5, warmups = nvidia ? 20 : 1;
  std::vector<std::vector<double>> medians(kernels.size());
  for (int round = 1; round <= rounds; ++round)
    for (size_t k = 0; k < kernels.size(); ++k) {
      std::vector<double> us;
      for (int r = 0; r < warmups + runs; ++r) {
        cl_event e = nullptr;
        check(clEnqueueNDRangeKernel(queue, kernels[k], 2, nullptr, global, local, 0, nullptr, &e), "launch");
        check(clFinish(queue), "finish");
        cl_ulong start = 0, end = 0;
        check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "start");
        check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "end");
        clReleaseEvent(e);
        if (r >= warmups) us.push_back(static_cast<double>(end - start) * 1e-3);
      }
      std::sort(us.begin(), us.end());
      float result = 0;
      check(clEnqueueReadBuffer(queue, dr, CL_TRUE, 0, 4, &result, 0, nullptr, nullptr), "read");
      const double error = std::fabs(result - expected) / std::max(1.0, std::fabs(expected));
      medians[k].push_back(us[us.size() / 2]);
      std::printf("round %d, %s: median %.2f us, result %.6g (expected %.6g, relative error %.1e)%s\n", round,
                  argv[k + 2], us[us.size() / 2], result, expected, error, error > 1e-4 ? " WRONG" : "");
      std::fflush(stdout);
    }
  for (size_t k = 0; k < kernels.size(); ++k) {
    std::sort(medians[k].begin(), medians[k].end());
    std::printf("%s: median of %d rounds %.2f us (rounds %.2f-%.2f)\n", argv[k + 2], rounds,
                medians[k][medians[k].size() / 2], medians[k].front(), medians[k].back());
  }
  return 0;
}
