// Session 34 (issue 12): times DOT 2^24 kernels given as OpenCL C files, each with mdh's tunable kernel's signature
// dot_tunable(x, y, r, wg_counts, accumulators), on one card in one run: mdh's generated kernels and copies of them
// with one thing changed (variants.py writes them). Usage: dot_ab_cl FILE:GROUPS:LOCAL ... Each result is checked
// against a double sum; timed as peer_mdh times a call: median of CL_PROFILING_COMMAND_END - START over 1,000
// launches after 100 warm-ups, each waited for; three rounds, the files interleaved.
// Build: g++ -O2 -std=c++17 dot_ab_cl.cpp -lOpenCL. --any-device first: a short run on the first device (PoCL).
// --fill: each file also timed with the scratch buffers zeroed by clEnqueueFillBuffer before each launch.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
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

// `fill`: before each launch, zero the two scratch buffers with clEnqueueFillBuffer, as runtime/execute.cpp does
// before each call (call 10).
std::vector<cl_mem> fill;

double profiled_median_us(cl_command_queue queue, cl_kernel kernel, size_t groups, size_t local) {
  const size_t global = groups * local;
  const int warmups = any_device_test ? 2 : 100, runs = any_device_test ? 5 : 1000;
  std::vector<double> us;
  for (int r = 0; r < warmups + runs; ++r) {
    for (cl_mem m : fill) {
      const cl_uchar zero = 0;
      check(clEnqueueFillBuffer(queue, m, &zero, 1, 0, 4, 0, nullptr, nullptr), "fill");
    }
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
}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  bool with_fill = false;
  for (; first < argc && argv[first][0] == '-'; ++first) {
    if (std::string(argv[first]) == "--any-device") any_device_test = true;
    if (std::string(argv[first]) == "--fill") with_fill = true;
  }
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

  const int n = 1 << 24;  // the kernels are generated for 2^24
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
  cl_mem r = buffer(sizeof(float), zero), counts = buffer(sizeof(int), zero), acc = buffer(sizeof(float), zero);

  struct Entry {
    std::string file;
    size_t groups, local;
    cl_kernel kernel;
  };
  std::vector<Entry> entries;
  for (int a = first; a < argc; ++a) {
    std::string spec = argv[a];
    const size_t c2 = spec.rfind(':'), c1 = spec.rfind(':', c2 - 1);
    Entry e{spec.substr(0, c1), std::stoul(spec.substr(c1 + 1, c2 - c1 - 1)), std::stoul(spec.substr(c2 + 1)), nullptr};
    std::ifstream in(e.file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    const char* s = source.c_str();
    cl_program program = clCreateProgramWithSource(context, 1, &s, nullptr, &status);
    check(status, "clCreateProgramWithSource");
    if (clBuildProgram(program, 1, &device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
      char log[16384] = {};
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
      std::fprintf(stderr, "error: %s does not build: %s\n", e.file.c_str(), log);
      return 1;
    }
    e.kernel = clCreateKernel(program, "dot_tunable", &status);
    check(status, "clCreateKernel");
    const cl_mem args[] = {x, y, r, counts, acc};
    for (cl_uint i = 0; i < 5; ++i) check(clSetKernelArg(e.kernel, i, sizeof args[i], &args[i]), "arg");
    const size_t global = e.groups * e.local;
    for (int twice = 0; twice < 2; ++twice) {  // the second launch shows that the first left the scratch at zero
      check(clEnqueueNDRangeKernel(queue, e.kernel, 1, nullptr, &global, &e.local, 0, nullptr, nullptr), "launch");
      float got = 0.0f;
      check(clEnqueueReadBuffer(queue, r, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr), "read");
      std::printf("%s (%zu x %zu), launch %d: result %.6f, exact %.6f: %s\n", e.file.c_str(), e.groups, e.local,
                  twice + 1, got, exact, std::fabs(got - exact) <= 1e-5 * magnitude ? "right" : "WRONG");
    }
    entries.push_back(e);
  }
  // With --fill every file is timed twice per round: without and with the scratch fills before each launch.
  const int ways = with_fill ? 2 : 1;
  std::vector<std::vector<double>> medians(entries.size() * ways);
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < entries.size(); ++i)
      for (int w = 0; w < ways; ++w) {
        fill = w == 1 ? std::vector<cl_mem>{counts, acc} : std::vector<cl_mem>{};
        medians[i * ways + w].push_back(
            profiled_median_us(queue, entries[i].kernel, entries[i].groups, entries[i].local));
      }
  for (size_t k = 0; k < medians.size(); ++k) {
    std::sort(medians[k].begin(), medians[k].end());
    std::printf("%-40s%s rounds %.2f %.2f %.2f us, middle %.2f us, %.1f GB/s\n", entries[k / ways].file.c_str(),
                k % ways == 1 ? " (fills)" : "", medians[k][0], medians[k][1], medians[k][2], medians[k][1],
                (8.0 * n + 4) / (medians[k][1] * 1e3));
  }
  return 0;
}
