// Session 33 (issue 12): profiled_floor_cl.cpp's empty kernel in CUDA, timed as peer_cuda times a cuBLAS call:
// cudaEventRecord before and after the launch on the stream, cudaEventSynchronize, cudaEventElapsedTime. Median and
// minimum over 2,000 launches after 200 warm-ups, at the same grids.
// Build: nvcc -O2 -o event_floor event_floor.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty(const float* p, float* out) {
  if (p[0] == 12345.0f) out[0] = 1.0f;
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

int main() {
  float *p = nullptr, *out = nullptr;
  check(cudaMalloc(&p, 64), "cudaMalloc");
  check(cudaMalloc(&out, 64), "cudaMalloc");
  check(cudaMemset(p, 0, 64), "cudaMemset");
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  struct Grid {
    const char* what;
    int groups, local;
  };
  const Grid grids[] = {{"one block of 32", 1, 32},
                        {"GEMM 10x500x64's grid, 160 x 128", 160, 128},
                        {"DOT's grid, 256 x 512", 256, 512},
                        {"264 x 1024", 264, 1024}};
  for (int round = 1; round <= 2; ++round)
    for (const Grid& g : grids) {
      std::vector<float> us;
      for (int r = 0; r < 2200; ++r) {
        check(cudaEventRecord(a, 0), "record");
        empty<<<g.groups, g.local>>>(p, out);
        check(cudaEventRecord(b, 0), "record");
        check(cudaEventSynchronize(b), "sync");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, a, b), "elapsed");
        if (r >= 200) us.push_back(ms * 1e3f);
      }
      std::sort(us.begin(), us.end());
      std::printf("round %d, CUDA events, empty kernel, %s: median %.2f us, min %.2f us\n", round, g.what,
                  us[us.size() / 2], us.front());
    }
  return 0;
}
