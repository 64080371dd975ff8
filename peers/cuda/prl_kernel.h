// The prl_cuda peer's kernel: best match in b for every record of a, records packed to 16 bytes (14 fields and two
// zero bytes), `lanes` threads per record of a splitting b between them and combining their bests by warp shuffles.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace mdh::peers {

constexpr int kPrlKernelFields = 14;

struct PrlMatch {
  float weight;
  int32_t index;
};

/// agree/differ: [14][256] weights of a field whose values agree or differ, by the value in a's record.
/// lanes: 1, 2, 4, 8, 16 or 32. Returns the launch status.
cudaError_t launch_prl(const uint4* a, int n, const uint4* b, int m, const float* agree, const float* differ,
                       PrlMatch* best, int lanes, cudaStream_t stream);

}  // namespace mdh::peers
