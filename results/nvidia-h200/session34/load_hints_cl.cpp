// Session 34 (issue 12): does DOT 2^24 gain from what PTX lets a load or a fence say, beyond what NVIDIA's OpenCL
// compiler emits on its own? A hand-written DOT (float4 loads of x and y, 4 of each in flight per work-item,
// grid-strided, a local tree per work-group, then red.global.add.f32 of the group's sum, a fence, the count, and the
// last group copies the sum: the end mdh's WG_COMBINE atomic emits) with each way of loading:
//   plain        *(p)                                    (what mdh emits today)
//   nc           ld.global.nc.v4.f32                     (the read-only path, said explicitly)
//   nc_L2_256B   ld.global.nc.L2::256B.v4.f32            (ask the L2 to fetch 256 bytes around each miss, sm_80+)
//   nc_na_256B   ld.global.nc.L1::no_allocate.L2::256B   (same, without allocating in L1)
//   L2_128B      ld.global.nc.L2::128B.v4.f32
//   cs           ld.global.cs.v4.f32                     (streaming: evict first)
// and each fence between the red and the count: membar.gl (mdh today) or fence.acq_rel.gpu. Plus the ceiling:
// the plain loads with no end at all (one partial per work-group, no result). Each variant's result is checked
// against a double sum on the host. Timed as peer_mdh times a call: median of CL_PROFILING_COMMAND_END - START
// over 1,000 launches after 100 warm-ups, each launch waited for; three rounds, the variants interleaved. Also at
// 2^23 elements (64 MiB, GEMV 4096^2's bytes).
// Build: g++ -O2 -std=c++17 load_hints_cl.cpp -lOpenCL. --any-device: a short run on the first device (PoCL),
// where the PTX variants are skipped. --sm-grids (call 6): plain loads only, at 2^24, on grids of 1-8 work-groups
// per compute unit against 256 x 512 (the committed DOT configuration's grid).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
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
  const int warmups = any_device_test ? 2 : 100, runs = any_device_test ? 5 : 1000;
  std::vector<double> us;
  for (int r = 0; r < warmups + runs; ++r) {
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, &e), "launch");
    check(clFinish(queue), "finish");
    cl_ulong start = 0, end = 0;
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "start");
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "end");
    clReleaseEvent(e);
    if (r >= warmups) us.push_back(static_cast<double>(end - start) * 1e-3);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

// The kernel's source for one load and one end. LOAD(p) yields the float4 at p; END is "none", "membar" or "acqrel".
std::string dot_source(const std::string& name, const std::string& load_asm, const std::string& end) {
  std::string s;
  if (load_asm.empty()) {
    s += "#define LOAD_" + name + "(p) (*(p))\n";
  } else {
    s += "float4 load_" + name + "(const __global float4* p) {\n  float4 v;\n  asm(\"" + load_asm +
         " {%0,%1,%2,%3}, [%4];\" : \"=f\"(v.x), \"=f\"(v.y), \"=f\"(v.z), \"=f\"(v.w) : \"l\"(p));\n  return v;\n}\n"
         "#define LOAD_" +
         name + "(p) load_" + name + "(p)\n";
  }
  const std::string k = "dot_" + name + "_" + end;
  s += "__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))\n"
       "void " +
       k +
       "(__global const float4* restrict x, __global const float4* restrict y, __global float* acc,\n"
       "    __global int* count, __global float* out, const int n4) {\n"
       "  const int stride = get_global_size(0);\n"
       "  float4 s = (float4)(0.0f);\n"
       "  int i = get_global_id(0);\n"
       "  for (; i + 3*stride < n4; i += 4*stride) {\n"
       "    const float4 a0 = LOAD_" +
       name + "(x + i), a1 = LOAD_" + name + "(x + i + stride), a2 = LOAD_" + name + "(x + i + 2*stride), a3 = LOAD_" +
       name +
       "(x + i + 3*stride);\n"
       "    const float4 b0 = LOAD_" +
       name + "(y + i), b1 = LOAD_" + name + "(y + i + stride), b2 = LOAD_" + name + "(y + i + 2*stride), b3 = LOAD_" +
       name +
       "(y + i + 3*stride);\n"
       "    s = fma(a0, b0, s); s = fma(a1, b1, s); s = fma(a2, b2, s); s = fma(a3, b3, s);\n"
       "  }\n"
       "  for (; i < n4; i += stride) s = fma(LOAD_" +
       name + "(x + i), LOAD_" + name +
       "(y + i), s);\n"
       "  __local float part[LOCAL];\n"
       "  const int lid = get_local_id(0);\n"
       "  part[lid] = s.x + s.y + s.z + s.w;\n"
       "  barrier(CLK_LOCAL_MEM_FENCE);\n"
       "  for (int h = LOCAL / 2; h > 0; h /= 2) {\n"
       "    if (lid < h) part[lid] += part[lid + h];\n"
       "    barrier(CLK_LOCAL_MEM_FENCE);\n"
       "  }\n";
  if (end == "none") {
    s += "  if (lid == 0) out[1 + get_group_id(0)] = part[0];\n}\n";
    return s;
  }
  const std::string fence = end == "membar" ? "membar.gl;" : "fence.acq_rel.gpu;";
  s += "  if (lid == 0) {\n"
       "    asm volatile(\"red.global.add.f32 [%0], %1;\" :: \"l\"(acc), \"f\"(part[0]) : \"memory\");\n"
       "    asm volatile(\"" +
       fence +
       "\" ::: \"memory\");\n"
       "    if (atomic_inc(count) == get_num_groups(0) - 1) {\n"
       "      asm volatile(\"" +
       fence +
       "\" ::: \"memory\");\n"
       "      out[0] = *(volatile __global float*)acc;\n"
       "      *(volatile __global float*)acc = 0.0f;\n"
       "      *count = 0;\n"
       "    }\n"
       "  }\n"
       "}\n";
  return s;
}

struct Load {
  const char* name;
  const char* ptx;  // empty: a plain dereference
};
}  // namespace

int main(int argc, char** argv) {
  any_device_test = argc > 1 && std::string(argv[1]) == "--any-device";
  const bool sm_grids = argc > 1 && std::string(argv[1]) == "--sm-grids";
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
  if (!device && any_device_test)
    check(clGetDeviceIDs(ids[0], CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  if (!device) return std::fprintf(stderr, "error: no NVIDIA OpenCL device\n"), 1;
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");

  const int n = any_device_test ? (1 << 16) : (1 << 24);
  std::vector<float> hx(n), hy(n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i) hx[i] = dist(rng), hy[i] = dist(rng);
  auto buffer = [&](size_t bytes, void* host) {
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, host, &status);
    check(status, "clCreateBuffer");
    return m;
  };
  cl_mem x = buffer(sizeof(float) * n, hx.data()), y = buffer(sizeof(float) * n, hy.data());
  std::vector<float> zeros(1 + 4096, 0.0f);
  cl_mem acc = buffer(sizeof(float), zeros.data()), count = buffer(sizeof(int), zeros.data());
  cl_mem out = buffer(sizeof(float) * zeros.size(), zeros.data());

  std::vector<Load> loads = {{"plain", ""}};
  if (nvidia && !sm_grids) {
    loads.push_back({"nc", "ld.global.nc.v4.f32"});
    loads.push_back({"nc_L2_256B", "ld.global.nc.L2::256B.v4.f32"});
    loads.push_back({"nc_na_256B", "ld.global.nc.L1::no_allocate.L2::256B.v4.f32"});
    loads.push_back({"L2_128B", "ld.global.nc.L2::128B.v4.f32"});
    loads.push_back({"cs", "ld.global.cs.v4.f32"});
  }
  struct Variant {
    std::string load, end;
    cl_kernel kernel = nullptr;
  };
  struct Grid {
    size_t groups, local;
  };
  std::vector<Grid> grids =
      any_device_test ? std::vector<Grid>{{8, 64}} : std::vector<Grid>{{256, 512}, {264, 512}, {528, 256}, {264, 1024}};
  if (sm_grids) {
    cl_uint units = 0;
    check(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr), "compute units");
    std::printf("compute units: %u\n", units);
    grids = {{256, 512},
             {units, 1024},
             {2 * size_t(units), 512},
             {4 * size_t(units), 256},
             {8 * size_t(units), 128},
             {3 * size_t(units), 256},
             {6 * size_t(units), 256},
             {2 * size_t(units), 1024},
             {512, 256}};
  }
  // DOT 2^24 (128 MiB, the benchmark's case) and 2^23 (64 MiB: GEMV 4096^2's bytes).
  for (const int elements : sm_grids ? std::vector<int>{n} : std::vector<int>{n, n / 2})
    for (Grid g : grids) {
      const int n4 = elements / 4;
      double exact = 0.0, magnitude = 0.0;
      for (int i = 0; i < elements; ++i) {
        exact += double(hx[i]) * hy[i];
        magnitude += std::fabs(double(hx[i]) * hy[i]);
      }
      std::vector<Variant> variants;
      for (const Load& l : loads) {
        std::vector<std::string> ends = {"membar"};
        if (std::string(l.name) == "plain") ends = {"none", "membar"};
        if (nvidia && !sm_grids) ends.push_back("acqrel");
        if (!nvidia) ends = {"none"};
        for (const std::string& end : ends) {
          const std::string source = dot_source(l.name, l.ptx, end);
          const char* text = source.c_str();
          cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &status);
          check(status, "clCreateProgramWithSource");
          const std::string options = "-DLOCAL=" + std::to_string(g.local);
          if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
            char log[8192] = {};
            clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
            std::printf("%s/%s does not build: %s\n", l.name, end.c_str(), log);
            continue;
          }
          Variant v{l.name, end};
          v.kernel = clCreateKernel(program, ("dot_" + std::string(l.name) + "_" + end).c_str(), &status);
          check(status, "clCreateKernel");
          const cl_mem args[] = {x, y, acc, count, out};
          for (cl_uint a = 0; a < 5; ++a) check(clSetKernelArg(v.kernel, a, sizeof args[a], &args[a]), "arg");
          check(clSetKernelArg(v.kernel, 5, sizeof n4, &n4), "arg");
          variants.push_back(v);
        }
      }
      // Check each result once (the ends that produce one); the ceiling's partials are summed on the host.
      for (Variant& v : variants) {
        const size_t global = g.groups * g.local;
        check(clEnqueueNDRangeKernel(queue, v.kernel, 1, nullptr, &global, &g.local, 0, nullptr, nullptr), "launch");
        std::vector<float> result(1 + g.groups);
        check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof(float) * result.size(), result.data(), 0, nullptr,
                                  nullptr),
              "read");
        double got = 0.0;
        if (v.end == "none")
          for (size_t i = 1; i <= g.groups; ++i) got += result[i];
        else
          got = result[0];
        const bool right = std::fabs(got - exact) <= 1e-5 * magnitude;
        std::printf("n %d, %zu x %zu %s/%s: result %.6f, exact %.6f: %s\n", elements, g.groups, g.local, v.load.c_str(),
                    v.end.c_str(), got, exact, right ? "right" : "WRONG");
      }
      std::vector<std::vector<double>> medians(variants.size());
      for (int round = 0; round < 3; ++round)
        for (size_t i = 0; i < variants.size(); ++i)
          medians[i].push_back(profiled_median_us(queue, variants[i].kernel, g.groups, g.local));
      for (size_t i = 0; i < variants.size(); ++i) {
        std::sort(medians[i].begin(), medians[i].end());
        std::printf("n %d, %zu x %zu %-11s %-7s rounds %.2f %.2f %.2f us, middle %.2f us, %.1f GB/s\n", elements,
                    g.groups, g.local, variants[i].load.c_str(), variants[i].end.c_str(), medians[i][0], medians[i][1],
                    medians[i][2], medians[i][1], (8.0 * elements + 4) / (medians[i][1] * 1e3));
      }
    }
  return 0;
}
