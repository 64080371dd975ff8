#include "peers/openblas_coretype.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace mdh::peers {

std::optional<std::string> coretype_for_fallback(const std::string& corename, const CpuVectorFeatures& features) {
  std::string core = corename;
  std::transform(core.begin(), core.end(), core.begin(), [](unsigned char ch) { return std::tolower(ch); });
  // OpenBLAS's x86-64 cores without AVX: what its detection returns for a model it does not know.
  constexpr std::array<const char*, 6> pre_avx = {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom"};
  if (std::find(pre_avx.begin(), pre_avx.end(), core) == pre_avx.end()) return std::nullopt;
  if (features.avx512) return "SkylakeX";
  if (features.avx2_fma) return "Haswell";
  return std::nullopt;
}

CpuVectorFeatures host_vector_features() {
  CpuVectorFeatures f;
#if defined(__x86_64__)
  __builtin_cpu_init();
  f.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  return f;
}

}  // namespace mdh::peers
