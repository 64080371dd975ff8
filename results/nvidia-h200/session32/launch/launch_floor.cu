// Session 32: the CUDA twin of launch_floor_cl.cpp. An empty kernel (one block of 32), host wall time from the launch
// until cudaDeviceSynchronize returns, median of 2,000 after 200 warm-ups: alone, and between two event records on the
// stream as peer_cuda times a call. Build: nvcc -O2 -o launch_floor launch_floor.cu.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty(float* p) {
  if (p[0] == 12345.0f) p[1] = 1.0f;
}

int main() {
  float* p = nullptr;
  cudaMalloc(&p, 64);
  cudaMemset(p, 0, 64);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int round = 1; round <= 2; ++round) {
    for (bool events : {true, false}) {
      std::vector<double> us;
      for (int r = 0; r < 2200; ++r) {
        const auto begin = std::chrono::steady_clock::now();
        if (events) cudaEventRecord(start, stream);
        empty<<<1, 32, 0, stream>>>(p);
        if (events) cudaEventRecord(stop, stream);
        cudaDeviceSynchronize();
        const auto end = std::chrono::steady_clock::now();
        if (r >= 200) us.push_back(std::chrono::duration<double, std::micro>(end - begin).count());
      }
      std::sort(us.begin(), us.end());
      std::printf("round %d, CUDA, %s events: launch to cudaDeviceSynchronize %.1f us\n", round,
                  events ? "with" : "without", us[us.size() / 2]);
    }
  }
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) return std::fprintf(stderr, "error: %s\n", cudaGetErrorString(error)), 1;
  return 0;
}
