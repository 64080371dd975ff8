// Session 32 (issue 12, DOT 2^24 at 82% of the copy bandwidth against 85%): where do its last 5% to the OpenCL read
// ceiling (session 30's read_ceiling_cl.cpp, 87-90%) go? The ceiling kernel stores one partial sum per work-group
// and stops; mdh's DOT also finishes the reduction. This times, on the same card and grids, event-profiled and each
// launch alone (as runtime/execute.cpp times), the ceiling kernel (float4 loads, UNROLL in flight per work-item,
// grid-stride) with five ends of the reduction (MODE in the kernel source, call 2): partials only, the last-group
// fold with one fence, mdh's `last` as it was, acq_rel atomics, and atomic adds into an accumulator (red).
// Call 1 ran an earlier form of this file: partials and last as MODE 0 and 1 here, and a second kernel folding the
// partials, for UNROLL 4 and 8. Beside them a 1 GiB float4 copy (the tables' limit).
// Build: g++ -O2 -std=c++17 dot_tail_cl.cpp -lOpenCL. Run on a machine with NVIDIA's OpenCL driver.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

const char* kSource = R"CL(
// MODE 0 partials: one partial per group, nothing more (the ceiling kernel).
// MODE 1 last:     membar.gl by work-item 0, atomic_inc, the last group folds the partials (volatile reads).
// MODE 2 mdh:      as mdh's WG_COMBINE last: membar.gl by every work-item, barrier, atomic_inc, barrier, membar.gl
//                  by every work-item, then the fold.
// MODE 3 acqrel:   no membar: work-item 0 counts in with atom.acq_rel.gpu (release of its store, acquire of the
//                  others'), then the fold.
// MODE 4 red:      each group adds its sum into a zeroed accumulator with red.relaxed.gpu.add.f32, then counts in
//                  with atom.acq_rel.gpu; the last copies the accumulator into r and zeroes it.
__kernel void read_sum(__global const float4* restrict a, __global const float4* restrict b, ulong n,
                       __global float* restrict partial, __global volatile uint* count, __global float* r,
                       __global volatile float* accumulator) {
  float acc[UNROLL];
  for (int u = 0; u < UNROLL; ++u) acc[u] = 0.0f;
  const ulong stride = get_global_size(0);
  ulong i = get_global_id(0);
  for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
    float4 x[UNROLL], y[UNROLL];
    for (int u = 0; u < UNROLL; ++u) x[u] = a[i + u * stride];
    for (int u = 0; u < UNROLL; ++u) y[u] = b[i + u * stride];
    for (int u = 0; u < UNROLL; ++u) acc[u] += dot(x[u], y[u]);
  }
  for (; i < n; i += stride) acc[0] += dot(a[i], b[i]);
  __local float sums[1024];
  __local int last;
  const int l = get_local_id(0);
  float s = 0.0f;
  for (int u = 0; u < UNROLL; ++u) s += acc[u];
  sums[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = get_local_size(0) / 2; h > 0; h /= 2) {
    if (l < h) sums[l] += sums[l + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#if MODE == 4
  if (l == 0) {
    uint old;
    asm volatile("red.relaxed.gpu.global.add.f32 [%0], %1;" ::"l"(accumulator), "f"(sums[0]) : "memory");
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(count) : "memory");
    if (old == get_num_groups(0) - 1) {
      r[0] = *accumulator;
      *accumulator = 0.0f;
      *count = 0;
    }
  }
  return;
#else
  if (l == 0) partial[get_group_id(0)] = sums[0];
#if MODE == 0
  return;
#elif MODE == 1
  if (l == 0) {
    asm volatile("membar.gl;" ::: "memory");
    last = atomic_inc(count) == get_num_groups(0) - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#elif MODE == 2
  asm volatile("membar.gl;" ::: "memory");
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (l == 0) last = atomic_inc(count) == get_num_groups(0) - 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  asm volatile("membar.gl;" ::: "memory");
#elif MODE == 3
  if (l == 0) {
    uint old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(count) : "memory");
    last = old == get_num_groups(0) - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  if (!last) return;
  __global volatile float* p = partial;
  float f = 0.0f;
  for (uint g = l; g < get_num_groups(0); g += get_local_size(0)) f += p[g];
  sums[l] = f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int h = get_local_size(0) / 2; h > 0; h /= 2) {
    if (l < h) sums[l] += sums[l + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    r[0] = sums[0];
    *count = 0;
  }
#endif
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

// Median over 50 timed runs (after 5 warm-ups) of the summed event times of `launches` kernels, each run alone.
double median_ms(cl_command_queue queue, const std::vector<cl_kernel>& kernels, const std::vector<size_t>& global,
                 const std::vector<size_t>& local) {
  std::vector<double> ms;
  for (int r = 0; r < 55; ++r) {
    double sum = 0;
    std::vector<cl_event> events;
    for (size_t k = 0; k < kernels.size(); ++k) {
      cl_event e;
      check(clEnqueueNDRangeKernel(queue, kernels[k], 1, nullptr, &global[k], &local[k], 0, nullptr, &e), "launch");
      events.push_back(e);
    }
    check(clFinish(queue), "finish");
    for (cl_event e : events) sum += event_ms(e), clReleaseEvent(e);
    if (r >= 5) ms.push_back(sum);
  }
  std::sort(ms.begin(), ms.end());
  return 0.5 * (ms[24] + ms[25]);
}

}  // namespace

int main() {
  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  for (cl_platform_id p : ids) {
    char pname[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pname, pname, nullptr);
    if (std::string(pname).find("NVIDIA") == std::string::npos) continue;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &device, nullptr) == CL_SUCCESS) break;
  }
  if (!device) return std::fprintf(stderr, "error: no NVIDIA OpenCL device\n"), 1;
  cl_uint units = 0;
  clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  cl_int status;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  check(status, "clCreateCommandQueue");

  const size_t copy_bytes = size_t(1) << 30;
  cl_mem s = clCreateBuffer(context, CL_MEM_READ_WRITE, copy_bytes, nullptr, &status);
  check(status, "buffer");
  cl_mem t = clCreateBuffer(context, CL_MEM_READ_WRITE, copy_bytes, nullptr, &status);
  check(status, "buffer");
  const float one = 1.0f;
  check(clEnqueueFillBuffer(queue, s, &one, sizeof one, 0, copy_bytes, 0, nullptr, nullptr), "fill");
  check(clEnqueueFillBuffer(queue, t, &one, sizeof one, 0, copy_bytes, 0, nullptr, nullptr), "fill");
  const size_t max_groups = 64 * units;
  cl_mem partial = clCreateBuffer(context, CL_MEM_READ_WRITE, max_groups * sizeof(float), nullptr, &status);
  cl_mem count = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(cl_uint), nullptr, &status);
  cl_mem r = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(float), nullptr, &status);
  const cl_uint zero = 0;
  check(clEnqueueFillBuffer(queue, count, &zero, sizeof zero, 0, sizeof zero, 0, nullptr, nullptr), "fill");
  const cl_ulong n = (cl_ulong(64) << 20) / 16;  // float4s per 64-MiB operand: DOT 2^24

  cl_mem accumulator = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(float), nullptr, &status);
  const float fzero = 0.0f;
  check(clEnqueueFillBuffer(queue, accumulator, &fzero, sizeof fzero, 0, sizeof fzero, 0, nullptr, nullptr), "fill");
  const char* names[] = {"partials", "last", "mdh", "acqrel", "red"};
  const int unroll = 4;
  std::vector<cl_kernel> kernels;
  cl_kernel copy4 = nullptr;
  for (int mode = 0; mode < 5; ++mode) {
    cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &status);
    const std::string options = "-DUNROLL=" + std::to_string(unroll) + " -DMODE=" + std::to_string(mode);
    if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      char log[16384] = {};
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, nullptr);
      std::printf("mode %s: build failed:\n%s\n", names[mode], log);
      kernels.push_back(nullptr);
      continue;
    }
    kernels.push_back(clCreateKernel(program, "read_sum", &status));
    if (!copy4) copy4 = clCreateKernel(program, "copy4", &status);
  }
  check(clSetKernelArg(copy4, 0, sizeof s, &s), "arg");
  check(clSetKernelArg(copy4, 1, sizeof t, &t), "arg");
  for (int round = 1; round <= 2; ++round) {
    const double copy_ms = median_ms(queue, {copy4}, {copy_bytes / 16}, {256});
    const double copy_gbs = 2.0 * copy_bytes / (copy_ms * 1e6);
    std::printf("round %d: copy of 1 GiB %.4f ms, %.0f GB/s\n", round, copy_ms, copy_gbs);
    auto share = [&](double ms) { return 100.0 * (2 * 64.0 * (1 << 20) / (ms * 1e6)) / copy_gbs; };
    for (size_t local : {256, 512, 1024})
      for (size_t per_unit : {1, 2, 4, 8}) {
        const size_t groups = units * per_unit;
        if (groups * local > 2048 * units) continue;  // more than one wave
        std::printf("round %d, %5zu groups of %4zu:", round, groups, local);
        for (int mode = 0; mode < 5; ++mode) {
          if (!kernels[mode]) continue;
          cl_kernel k = kernels[mode];
          check(clSetKernelArg(k, 0, sizeof s, &s), "arg");
          check(clSetKernelArg(k, 1, sizeof t, &t), "arg");
          check(clSetKernelArg(k, 2, sizeof n, &n), "arg");
          check(clSetKernelArg(k, 3, sizeof partial, &partial), "arg");
          check(clSetKernelArg(k, 4, sizeof count, &count), "arg");
          check(clSetKernelArg(k, 5, sizeof r, &r), "arg");
          check(clSetKernelArg(k, 6, sizeof accumulator, &accumulator), "arg");
          const float nan = -1.0f;
          check(clEnqueueFillBuffer(queue, r, &nan, sizeof nan, 0, sizeof nan, 0, nullptr, nullptr), "fill");
          const double ms = median_ms(queue, {k}, {groups * local}, {local});
          float result = 0;
          check(clEnqueueReadBuffer(queue, r, CL_TRUE, 0, sizeof result, &result, 0, nullptr, nullptr), "read");
          std::printf(" | %s %.4f ms %.1f%%%s", names[mode], ms, share(ms),
                      mode == 0 || result == 16777216.0f ? "" : " WRONG");
        }
        std::printf("\n");
      }
  }
  return 0;
}
