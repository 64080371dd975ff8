// An application's use of a tuned GEMM: run what `mdh export apps/gemm.mdh ... -o DIR` wrote on this program's own
// OpenCL buffers through mdh_runner.hpp, and check C = A·B against a host loop. Usage: tuned_gemm DIR
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "mdh_runner.hpp"

int main(int argc, char** argv) try {
  if (argc != 2) return std::fprintf(stderr, "usage: tuned_gemm DIR   (written by mdh export apps/gemm.mdh)\n"), 2;
  mdh_runner::Plan plan = mdh_runner::Plan::load(argv[1], "gemm");
  const size_t I = plan.size("I"), J = plan.size("J"), K = plan.size("K");

  // The application's OpenCL objects on mdh's default device: the first GPU, else the first CPU, else any.
  cl_platform_id platforms[16];
  cl_uint platform_count = 0;
  mdh_runner::check(clGetPlatformIDs(16, platforms, &platform_count), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  for (cl_device_type type :
       {cl_device_type{CL_DEVICE_TYPE_GPU}, cl_device_type{CL_DEVICE_TYPE_CPU}, cl_device_type{CL_DEVICE_TYPE_ALL}})
    for (cl_uint p = 0; p < platform_count && !device; ++p) clGetDeviceIDs(platforms[p], type, 1, &device, nullptr);
  cl_int status = device ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
  mdh_runner::check(status, "finding an OpenCL device");
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  mdh_runner::check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  mdh_runner::check(status, "clCreateCommandQueue");

  std::vector<float> a(I * K), b(K * J), c(I * J);
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& x : a) x = uniform(random);
  for (float& x : b) x = uniform(random);
  const auto buffer = [&](cl_mem_flags flags, std::vector<float>& host) {
    cl_mem mem = clCreateBuffer(context, flags, host.size() * sizeof(float),
                                (flags & CL_MEM_COPY_HOST_PTR) ? host.data() : nullptr, &status);
    mdh_runner::check(status, "clCreateBuffer");
    return mem;
  };
  cl_mem A = buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a), B = buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b);
  cl_mem C = buffer(CL_MEM_WRITE_ONLY, c);

  mdh_runner::Runner gemm(context, device, queue, std::move(plan));
  const uint64_t device_ns = gemm.run({{"A", A}, {"B", B}, {"C", C}}).device_ns();
  mdh_runner::check(clEnqueueReadBuffer(queue, C, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 0, nullptr, nullptr),
                    "reading C");

  // Tolerance as mdh's verification (runtime/README.md): reordered float sums of K terms, relative to the output's
  // scale.
  std::vector<double> ref(I * J, 0.0);
  double scale = 0, max_error = 0;
  for (size_t i = 0; i < I; ++i)
    for (size_t j = 0; j < J; ++j) {
      for (size_t k = 0; k < K; ++k) ref[i * J + j] += double(a[i * K + k]) * b[k * J + j];
      scale = std::fmax(scale, std::fabs(ref[i * J + j]));
    }
  bool pass = true;
  const double tolerance = 16 * std::ldexp(1.0, -23) * std::sqrt(std::fmax(double(K), 64.0));
  for (size_t n = 0; n < c.size(); ++n) {
    const double error = std::fabs(c[n] - ref[n]);
    max_error = std::fmax(max_error, error);  // a NaN fails the comparison below
    pass = pass && error <= tolerance * (std::fabs(ref[n]) + scale);
  }
  std::printf("gemm %zux%zux%zu: %zu kernel(s), %.3f ms on the device, max error %.3g: %s\n", I, J, K,
              gemm.plan().kernels.size(), device_ns * 1e-6, max_error, pass ? "PASS" : "FAIL");
  for (cl_mem m : {A, B, C}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return pass ? 0 : 1;
} catch (const mdh_runner::Error& e) {
  std::fprintf(stderr, "tuned_gemm: %s\n", e.what());
  return 2;
}
