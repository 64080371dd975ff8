// Session 34 (issue 12): which part of the shape of mdh's DOT 2^24 kernel costs time against a hand-written DOT
// with the same end (red.global.add.f32, membar.gl, count, last group copies)? Each variant changes one thing of
// the hand-written kernel (float4 loads of x and y, 4 of each in flight per work-item, work-groups interleaved
// over the data: grid-stride, sum in a register):
//   cyclic         the hand-written kernel (load_hints_cl.cpp's plain/membar)
//   block          each work-group streams its own contiguous chunk (mdh's distribution of local tiles)
//   block_local_y  block, and y goes through local memory a tile at a time between two barriers (mdh's committed
//                  configuration: MEM_INP_L_y local), x read directly
//   block_scalar_x block_local_y, and x read as one float per load (VECTOR_WIDTH_x has no effect without a cache)
//   block_local_acc block_scalar_x, and each work-item's sum lives in local memory (MEM_RES_P local)
// Timed as peer_mdh times a call: median of CL_PROFILING_COMMAND_END - START over 1,000 launches after 100
// warm-ups, each waited for; three rounds, variants interleaved; every result checked against a double sum.
// Build: g++ -O2 -std=c++17 dot_shape_cl.cpp -lOpenCL. --any-device: a short run on the first device (PoCL, with
// an atomic_cmpxchg loop instead of red and mem_fence instead of membar.gl).
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

// One source with every variant; LOCAL (work-items per group) and TILE (elements per work-group tile, a multiple of
// 16 * LOCAL) come as -D. n is a multiple of TILE * groups.
const char* kSource = R"CL(
#ifdef NVIDIA
#define ACCUMULATE(p, v) asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory")
#define DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
void accumulate(volatile __global float* p, float v) {
  volatile __global uint* bits = (volatile __global uint*)p;
  uint seen = *bits, expected;
  do { expected = seen; seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + v)); } while (seen != expected);
}
#define ACCUMULATE(p, v) accumulate(p, v)
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

// The group's sum of part[], then the end mdh's WG_COMBINE atomic emits.
#define FINISH(t)                                                            \
  __local float part[LOCAL];                                                 \
  part[lid] = (t);                                                           \
  barrier(CLK_LOCAL_MEM_FENCE);                                              \
  for (int h = LOCAL / 2; h > 0; h /= 2) {                                   \
    if (lid < h) part[lid] += part[lid + h];                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                            \
  }                                                                          \
  if (lid == 0) {                                                            \
    ACCUMULATE(acc, part[0]);                                                \
    DEVICE_FENCE();                                                          \
    if (atomic_inc(count) == get_num_groups(0) - 1) {                        \
      DEVICE_FENCE();                                                        \
      out[0] = *(volatile __global float*)acc;                               \
      *(volatile __global float*)acc = 0.0f;                                 \
      *count = 0;                                                            \
    }                                                                        \
  }

#define ARGS __global const float* restrict x, __global const float* restrict y, __global float* acc, \
             __global int* count, __global float* out, const int n

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void cyclic(ARGS) {
  const int lid = get_local_id(0);
  const __global float4* x4 = (const __global float4*)x;
  const __global float4* y4 = (const __global float4*)y;
  const int stride = get_global_size(0), n4 = n / 4;
  float4 s = (float4)(0.0f);
  for (int i = get_global_id(0); i < n4; i += 4 * stride) {
    const float4 a0 = x4[i], a1 = x4[i + stride], a2 = x4[i + 2 * stride], a3 = x4[i + 3 * stride];
    const float4 b0 = y4[i], b1 = y4[i + stride], b2 = y4[i + 2 * stride], b3 = y4[i + 3 * stride];
    s = fma(a0, b0, s); s = fma(a1, b1, s); s = fma(a2, b2, s); s = fma(a3, b3, s);
  }
  FINISH(s.x + s.y + s.z + s.w)
}

// Each group's chunk is n / groups elements, in tiles of TILE; a work-item takes float4s lid, lid + LOCAL, ...
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void block(ARGS) {
  const int lid = get_local_id(0);
  const int chunk = n / get_num_groups(0);
  const __global float4* x4 = (const __global float4*)(x + get_group_id(0) * chunk);
  const __global float4* y4 = (const __global float4*)(y + get_group_id(0) * chunk);
  float4 s = (float4)(0.0f);
  for (int i = lid; i < chunk / 4; i += 4 * LOCAL) {
    const float4 a0 = x4[i], a1 = x4[i + LOCAL], a2 = x4[i + 2 * LOCAL], a3 = x4[i + 3 * LOCAL];
    const float4 b0 = y4[i], b1 = y4[i + LOCAL], b2 = y4[i + 2 * LOCAL], b3 = y4[i + 3 * LOCAL];
    s = fma(a0, b0, s); s = fma(a1, b1, s); s = fma(a2, b2, s); s = fma(a3, b3, s);
  }
  FINISH(s.x + s.y + s.z + s.w)
}

// mdh's committed shape: y's tile copied into local memory (float4, all work-items), x read per element directly.
#define BLOCK_LOCAL_Y(XLOAD, ACC_DECL, ACC, ACC_VALUE)                                  \
  const int lid = get_local_id(0);                                                     \
  const int chunk = n / get_num_groups(0);                                             \
  const __global float* xg = x + get_group_id(0) * chunk;                              \
  const __global float* yg = y + get_group_id(0) * chunk;                              \
  __local float cache_y[TILE] __attribute__((aligned(16)));                            \
  ACC_DECL;                                                                            \
  for (int t = 0; t < chunk; t += TILE) {                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                      \
    for (int j = 0; j < TILE / 4 / LOCAL; ++j) {                                       \
      const int c = lid + j * LOCAL;                                                   \
      *(__local float4*)(cache_y + 4 * c) = *(const __global float4*)(yg + t + 4 * c); \
    }                                                                                  \
    barrier(CLK_LOCAL_MEM_FENCE);                                                      \
    XLOAD                                                                              \
  }                                                                                    \
  FINISH(ACC_VALUE)

#define X_FLOAT4(ACC)                                                         \
  for (int j = 0; j < TILE / 4 / LOCAL; ++j) {                               \
    const int c = lid + j * LOCAL;                                           \
    const float4 a = *(const __global float4*)(xg + t + 4 * c);              \
    const float4 b = *(__local float4*)(cache_y + 4 * c);                    \
    ACC = fma(a.x, b.x, ACC); ACC = fma(a.y, b.y, ACC); ACC = fma(a.z, b.z, ACC); ACC = fma(a.w, b.w, ACC); \
  }
#define X_SCALAR(ACC)                                                         \
  for (int j = 0; j < TILE / LOCAL; ++j) ACC = fma(xg[t + lid + j * LOCAL], cache_y[lid + j * LOCAL], ACC);

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void block_local_y(ARGS) {
  BLOCK_LOCAL_Y(X_FLOAT4(s), float s = 0.0f, s, s)
}
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void block_scalar_x(ARGS) {
  BLOCK_LOCAL_Y(X_SCALAR(s), float s = 0.0f, s, s)
}
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1))) void block_local_acc(ARGS) {
  __local float res_p[LOCAL];
  BLOCK_LOCAL_Y(X_SCALAR(res_p[lid]), res_p[get_local_id(0)] = 0.0f, res_p[lid], res_p[lid])
}
)CL";
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
  const bool nvidia = device != nullptr;
  if (!device && any_device_test)
    check(clGetDeviceIDs(ids[0], CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  if (!device) return std::fprintf(stderr, "error: no NVIDIA OpenCL device\n"), 1;
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");

  const int n = any_device_test ? (1 << 18) : (1 << 24);
  std::vector<float> hx(n), hy(n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  double exact = 0.0, magnitude = 0.0;
  for (int i = 0; i < n; ++i) {
    hx[i] = dist(rng), hy[i] = dist(rng);
    exact += double(hx[i]) * hy[i];
    magnitude += std::fabs(double(hx[i]) * hy[i]);
  }
  auto buffer = [&](size_t bytes, void* host) {
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, host, &status);
    check(status, "clCreateBuffer");
    return m;
  };
  cl_mem x = buffer(sizeof(float) * n, hx.data()), y = buffer(sizeof(float) * n, hy.data());
  float zero[2] = {0.0f, 0.0f};
  cl_mem acc = buffer(sizeof(float), zero), count = buffer(sizeof(int), zero), out = buffer(sizeof(float), zero);

  struct Grid {
    size_t groups, local, tile;
  };
  // 256 x 512 with tiles of 8192: the committed configuration's grid and tiles. 512 x 256, 4096: its neighbour.
  const std::vector<Grid> grids =
      any_device_test ? std::vector<Grid>{{8, 64, 1024}} : std::vector<Grid>{{256, 512, 8192}, {512, 256, 4096}};
  const char* names[] = {"cyclic", "block", "block_local_y", "block_scalar_x", "block_local_acc"};
  for (Grid g : grids) {
    cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &status);
    check(status, "clCreateProgramWithSource");
    const std::string options =
        "-DLOCAL=" + std::to_string(g.local) + " -DTILE=" + std::to_string(g.tile) + (nvidia ? " -DNVIDIA" : "");
    if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      char log[16384] = {};
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
      std::fprintf(stderr, "error: build failed: %s\n", log);
      return 1;
    }
    std::vector<cl_kernel> kernels;
    for (const char* name : names) {
      cl_kernel k = clCreateKernel(program, name, &status);
      check(status, name);
      const cl_mem args[] = {x, y, acc, count, out};
      for (cl_uint a = 0; a < 5; ++a) check(clSetKernelArg(k, a, sizeof args[a], &args[a]), "arg");
      check(clSetKernelArg(k, 5, sizeof n, &n), "arg");
      const size_t global = g.groups * g.local;
      check(clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &g.local, 0, nullptr, nullptr), "launch");
      float got = 0.0f;
      check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr), "read");
      std::printf("%zu x %zu, tiles of %zu, %s: result %.6f, exact %.6f: %s\n", g.groups, g.local, g.tile, name, got,
                  exact, std::fabs(got - exact) <= 1e-5 * magnitude ? "right" : "WRONG");
      kernels.push_back(k);
    }
    std::vector<std::vector<double>> medians(kernels.size());
    for (int round = 0; round < 3; ++round)
      for (size_t i = 0; i < kernels.size(); ++i)
        medians[i].push_back(profiled_median_us(queue, kernels[i], g.groups, g.local));
    for (size_t i = 0; i < kernels.size(); ++i) {
      std::sort(medians[i].begin(), medians[i].end());
      std::printf("%zu x %zu %-16s rounds %.2f %.2f %.2f us, middle %.2f us, %.1f GB/s\n", g.groups, g.local, names[i],
                  medians[i][0], medians[i][1], medians[i][2], medians[i][1], (8.0 * n + 4) / (medians[i][1] * 1e3));
    }
  }
  return 0;
}
