// Session 30 (issue 12): the OpenCL twin of ../session29/read_ceiling.cu. How fast can an OpenCL kernel, timed the way
// mdh's runtime times its kernels (event profiling, CL_PROFILING_COMMAND_END - START), read DOT 2^24's two 64 MiB
// vectors and GEMV 4096^2's 64 MiB matrix on this GPU? A reduction written for nothing but streaming (float4 loads,
// kUnroll independent loads in flight per work-item, grid-stride, one partial sum stored per work-group), for a range
// of grids; the median of 50 timed launches after 5 warm-ups, in three protocols:
//   alone:  each launch enqueued alone and waited for (clFinish), as runtime/execute.cpp times the tuner's runs;
//   reset:  each launch after a fill of its output and a clFinish, as the benchmark times every mdh row and peer;
//   stream: 50 launches enqueued back to back, then one clFinish.
// Beside it, a 1 GiB float4 copy timed alone, the limit the tables use (device_peak's copy).
// Build: g++ -O2 -std=c++17 read_ceiling_cl.cpp -lOpenCL. Run: read_ceiling_cl [platform-substring] (default NVIDIA).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char* kSource = R"CL(
#define UNROLL 4
__kernel void read_sum(__global const float4* restrict a, __global const float4* restrict b, ulong n, int two,
                       __global float* restrict partial) {
  float acc[UNROLL] = {0.0f, 0.0f, 0.0f, 0.0f};
  const ulong stride = get_global_size(0);
  ulong i = get_global_id(0);
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
    float4 x[UNROLL], y[UNROLL];
    for (int u = 0; u < UNROLL; ++u) x[u] = a[i + u * stride];
    if (two) {
      for (int u = 0; u < UNROLL; ++u) y[u] = b[i + u * stride];
      for (int u = 0; u < UNROLL; ++u) acc[u] += dot(x[u], y[u]);
    } else {
      for (int u = 0; u < UNROLL; ++u) acc[u] += x[u].x + x[u].y + x[u].z + x[u].w;
    }
  }
  for (; i < n; i += stride) acc[0] += two ? dot(a[i], b[i]) : a[i].x + a[i].y + a[i].z + a[i].w;
  __local float sums[1024];
  const int l = get_local_id(0);
  sums[l] = acc[0] + acc[1] + acc[2] + acc[3];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = get_local_size(0) / 2; h > 0; h /= 2) {
    if (l < h) sums[l] += sums[l + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) partial[get_group_id(0)] = sums[0];
}
__kernel void copy4(__global const float4* restrict s, __global float4* restrict t) {
  t[get_global_id(0)] = s[get_global_id(0)];
}
)CL";

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "error: %s failed (%d)\n", what, status);
    std::exit(1);
  }
}

double event_ms(cl_event e) {
  cl_ulong start = 0, end = 0;
  check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "profiling start");
  check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "profiling end");
  return (end - start) * 1e-6;
}

enum class Protocol { alone, reset, stream };
const char* name(Protocol p) {
  return p == Protocol::alone ? "alone" : p == Protocol::reset ? "reset" : "stream";
}

struct Bench {
  cl_command_queue queue;
  double median_ms(cl_kernel kernel, size_t global, size_t local, Protocol protocol, cl_mem output,
                   size_t output_bytes) {
    auto launch = [&] {
      cl_event e;
      check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &e), "launch");
      return e;
    };
    for (int w = 0; w < 5; ++w) clReleaseEvent(launch());
    check(clFinish(queue), "finish");
    std::vector<cl_event> events;
    for (int r = 0; r < 50; ++r) {
      if (protocol == Protocol::reset) {
        const float pattern = -1.0f;
        check(clEnqueueFillBuffer(queue, output, &pattern, sizeof pattern, 0, output_bytes, 0, nullptr, nullptr),
              "fill");
        check(clFinish(queue), "finish");
      }
      events.push_back(launch());
      if (protocol != Protocol::stream) check(clFinish(queue), "finish");
    }
    check(clFinish(queue), "finish");
    std::vector<double> ms;
    for (cl_event e : events) {
      ms.push_back(event_ms(e));
      clReleaseEvent(e);
    }
    std::sort(ms.begin(), ms.end());
    return 0.5 * (ms[24] + ms[25]);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string want = argc > 1 ? argv[1] : "NVIDIA";
  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  for (cl_platform_id p : ids) {
    char pname[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pname, pname, nullptr);
    if (std::string(pname).find(want) == std::string::npos) continue;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS) break;
  }
  if (!device) {
    std::fprintf(stderr, "error: no OpenCL platform named like '%s'\n", want.c_str());
    return 1;
  }
  char dname[256] = {};
  cl_uint units = 0;
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname, dname, nullptr);
  clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    char log[16384] = {};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
    std::fprintf(stderr, "error: build failed:\n%s\n", log);
    return 1;
  }
  cl_kernel read_sum = clCreateKernel(program, "read_sum", &status);
  check(status, "clCreateKernel read_sum");
  cl_kernel copy4 = clCreateKernel(program, "copy4", &status);
  check(status, "clCreateKernel copy4");
  Bench bench{queue};

  const size_t copy_bytes = size_t(1) << 30;
  cl_mem s = clCreateBuffer(context, CL_MEM_READ_WRITE, copy_bytes, nullptr, &status);
  check(status, "buffer");
  cl_mem t = clCreateBuffer(context, CL_MEM_READ_WRITE, copy_bytes, nullptr, &status);
  check(status, "buffer");
  const float one = 1.0f;
  check(clEnqueueFillBuffer(queue, s, &one, sizeof one, 0, copy_bytes, 0, nullptr, nullptr), "fill");
  check(clEnqueueFillBuffer(queue, t, &one, sizeof one, 0, copy_bytes, 0, nullptr, nullptr), "fill");
  check(clSetKernelArg(copy4, 0, sizeof s, &s), "arg");
  check(clSetKernelArg(copy4, 1, sizeof t, &t), "arg");
  const double copy_ms = bench.median_ms(copy4, copy_bytes / 16, 256, Protocol::alone, nullptr, 0);
  const double copy_gbs = 2.0 * copy_bytes / (copy_ms * 1e6);
  std::printf("%s, %u compute units; copy of 1 GiB: %.4f ms, %.0f GB/s (read + written)\n", dname, units, copy_ms,
              copy_gbs);

  const cl_ulong n = (cl_ulong(64) << 20) / 16;  // float4s per 64-MiB operand
  const size_t max_groups = 32 * units;
  cl_mem partial = clCreateBuffer(context, CL_MEM_READ_WRITE, max_groups * sizeof(float), nullptr, &status);
  check(status, "buffer");
  for (int operands : {1, 2}) {
    const cl_int two = operands == 2;
    check(clSetKernelArg(read_sum, 0, sizeof s, &s), "arg");
    check(clSetKernelArg(read_sum, 1, sizeof t, &t), "arg");
    check(clSetKernelArg(read_sum, 2, sizeof n, &n), "arg");
    check(clSetKernelArg(read_sum, 3, sizeof two, &two), "arg");
    check(clSetKernelArg(read_sum, 4, sizeof partial, &partial), "arg");
    for (Protocol protocol : {Protocol::alone, Protocol::reset, Protocol::stream}) {
      double best = 1e30;
      size_t best_groups = 0, best_local = 0;
      for (size_t local : {128, 256, 512, 1024})
        for (size_t per_unit : {1, 2, 4, 8, 16, 32}) {
          const size_t groups = units * per_unit;
          if (groups * local * 4 > n) continue;
          const double ms = bench.median_ms(read_sum, groups * local, local, protocol, partial, groups * sizeof(float));
          if (protocol == Protocol::alone) {
            const double gbs = operands * 64.0 * (1 << 20) / (ms * 1e6);
            std::printf("read %d x 64 MiB, %4zu groups of %4zu: %.4f ms, %.0f GB/s, %.1f%% of the copy\n", operands,
                        groups, local, ms, gbs, 100 * gbs / copy_gbs);
          }
          if (ms < best) best = ms, best_groups = groups, best_local = local;
        }
      const double gbs = operands * 64.0 * (1 << 20) / (best * 1e6);
      std::printf("BEST read %d x 64 MiB (%s): %.4f ms, %.0f GB/s, %.1f%% of the copy (%zu groups of %zu)\n", operands,
                  name(protocol), best, gbs, 100 * gbs / copy_gbs, best_groups, best_local);
    }
  }
  return 0;
}
