// Session 37 (issue 12): does a read-only stream of DOT's 128 MiB get closer to the copy bandwidth with PTX load
// hints, or with more loads in flight per work-item? Variants of session 33's grid-strided float4 stream (one partial
// sum per work-item): plain OpenCL loads; four independent loads per iteration; inline PTX `ld.global.nc.v4.f32`;
// the same with `.L2::256B` (prefetch the 256-byte sector group into the L2); with `.L1::no_allocate`; with both.
// Each at several grids: median of CL_PROFILING_COMMAND_END - START over 1,000 launches after 100 warm-ups, each
// launch waited for (as peer_mdh times a call); two rounds. Build: g++ -O2 -std=c++17 load_hints_cl.cpp -lOpenCL.
// --any-device: the plain variants only, 30 launches each, on the first device (a test on PoCL).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
bool any_device_test = false;

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "error: %s failed (%d)\n", what, status);
    std::exit(1);
  }
}

double profiled_median_us(cl_command_queue queue, cl_kernel kernel, size_t groups, size_t local) {
  const size_t global = groups * local;
  std::vector<double> us;
  for (int r = 0; r < (any_device_test ? 30 : 1100); ++r) {
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &e), "launch");
    check(clFinish(queue), "finish");
    cl_ulong start = 0, end = 0;
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "start");
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "end");
    clReleaseEvent(e);
    if (r >= (any_device_test ? 5 : 100)) us.push_back(static_cast<double>(end - start) * 1e-3);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

// One stream kernel per load form; LOAD(p) yields the float4 at p.
std::string stream_kernel(const std::string& name, const std::string& load) {
  return "__kernel void " + name +
         "(__global const float4* restrict p, __global float* restrict out, const int n) {\n"
         "  const int stride = get_global_size(0);\n"
         "  float4 s = (float4)(0.0f);\n"
         "  for (int i = get_global_id(0); i < n; i += stride) { const __global float4* q = p + i; s += " +
         load +
         "; }\n"
         "  out[get_global_id(0)] = s.x + s.y + s.z + s.w;\n"
         "}\n";
}

std::string ptx_load_function(const std::string& name, const std::string& instruction) {
  return "inline float4 " + name +
         "(const __global float4* q) {\n"
         "  float4 v;\n"
         "  asm volatile(\"" +
         instruction +
         " {%0, %1, %2, %3}, [%4];\" : \"=f\"(v.x), \"=f\"(v.y), \"=f\"(v.z), \"=f\"(v.w) : \"l\"(q));\n"
         "  return v;\n"
         "}\n";
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
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");

  struct Variant {
    std::string name, load;
    bool ptx;
  };
  std::vector<Variant> variants = {
      {"plain", "*q", false},
      {"nc", "load_nc(q)", true},
      {"nc_L2_256B", "load_nc_L2_256B(q)", true},
      {"nc_L1_no_allocate", "load_nc_L1_no_allocate(q)", true},
      {"nc_L1_no_allocate_L2_256B", "load_nc_L1_no_allocate_L2_256B(q)", true},
      {"global_L2_256B", "load_global_L2_256B(q)", true},
  };
  std::string source;
  if (!any_device_test)
    source += ptx_load_function("load_nc", "ld.global.nc.v4.f32") +
              ptx_load_function("load_nc_L2_256B", "ld.global.nc.L2::256B.v4.f32") +
              ptx_load_function("load_nc_L1_no_allocate", "ld.global.nc.L1::no_allocate.v4.f32") +
              ptx_load_function("load_nc_L1_no_allocate_L2_256B", "ld.global.nc.L1::no_allocate.L2::256B.v4.f32") +
              ptx_load_function("load_global_L2_256B", "ld.global.L2::256B.v4.f32");
  for (const Variant& v : variants)
    if (!v.ptx || !any_device_test) source += stream_kernel(v.name, v.load);
  // Four independent loads per iteration: more bytes in flight per work-item with the same grid.
  source +=
      "__kernel void plain_x4(__global const float4* restrict p, __global float* restrict out, const int n) {\n"
      "  const int stride = get_global_size(0);\n"
      "  float4 s0 = (float4)(0.0f), s1 = s0, s2 = s0, s3 = s0;\n"
      "  int i = get_global_id(0);\n"
      "  for (; i + 3 * stride < n; i += 4 * stride) {\n"
      "    s0 += p[i]; s1 += p[i + stride]; s2 += p[i + 2 * stride]; s3 += p[i + 3 * stride];\n"
      "  }\n"
      "  for (; i < n; i += stride) s0 += p[i];\n"
      "  const float4 s = s0 + s1 + s2 + s3;\n"
      "  out[get_global_id(0)] = s.x + s.y + s.z + s.w;\n"
      "}\n";
  variants.push_back({"plain_x4", "", false});

  const char* text = source.c_str();
  cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &status);
  check(status, "clCreateProgramWithSource");
  if (clBuildProgram(program, 1, &device, "", nullptr, nullptr) != CL_SUCCESS) {
    std::vector<char> log(1 << 16);
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log.size(), log.data(), nullptr);
    std::fprintf(stderr, "build failed:\n%s\n", log.data());
    return 1;
  }
  const size_t bytes = size_t(128) << 20;
  cl_mem data = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
  check(status, "clCreateBuffer");
  const cl_uchar zero = 0;
  check(clEnqueueFillBuffer(queue, data, &zero, 1, 0, bytes, 0, nullptr, nullptr), "fill");
  cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, size_t(4) << 20, nullptr, &status);
  check(status, "clCreateBuffer");
  const int n = static_cast<int>(bytes / 16);
  struct Grid {
    size_t groups, local;
  };
  const std::vector<Grid> grids = {{256, 512}, {132, 1024}, {264, 512}, {264, 1024}, {528, 512}, {1056, 256}};
  for (int round = 1; round <= 2; ++round)
    for (const Variant& v : variants) {
      if (v.ptx && any_device_test) continue;
      cl_kernel kernel = clCreateKernel(program, v.name.c_str(), &status);
      check(status, "clCreateKernel");
      check(clSetKernelArg(kernel, 0, sizeof data, &data), "arg");
      check(clSetKernelArg(kernel, 1, sizeof out, &out), "arg");
      check(clSetKernelArg(kernel, 2, sizeof n, &n), "arg");
      std::printf("round %d, %-28s", round, v.name.c_str());
      double best = 1e30;
      for (Grid g : grids) {
        const double us = profiled_median_us(queue, kernel, g.groups, g.local);
        best = std::min(best, us);
        std::printf(" %zux%zu %.2f", g.groups, g.local, us);
      }
      std::printf(" | best %.2f us, %.1f GB/s\n", best, static_cast<double>(bytes) / (best * 1e3));
      std::fflush(stdout);
      clReleaseKernel(kernel);
    }
  return 0;
}
