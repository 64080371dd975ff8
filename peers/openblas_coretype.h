// Which OpenBLAS kernels a CPU should run when OpenBLAS's own detection falls back to its oldest x86-64 ones.
// OpenBLAS picks kernels by the CPU's family and model; a virtual machine that reports a model OpenBLAS does not know
// ("Intel(R) Xeon(R) Processor") gets Prescott's even on AVX-512 hardware, and OpenBLAS's documentation advises
// OPENBLAS_CORETYPE for such CPUs. The choice follows the instruction sets the CPU reports.
#pragma once

#include <optional>
#include <string>

namespace mdh::peers {

struct CpuVectorFeatures {
  bool avx2_fma = false;  // AVX2 and FMA
  bool avx512 = false;    // AVX-512 F, BW, DQ and VL (Skylake-X's set)
};

/// The OPENBLAS_CORETYPE to run with where OpenBLAS chose `corename` on a CPU with `features`: SkylakeX or Haswell
/// where it fell back to Prescott (or another pre-AVX core) and the CPU has their instruction sets; none otherwise.
std::optional<std::string> coretype_for_fallback(const std::string& corename, const CpuVectorFeatures& features);

/// This CPU's features, from the compiler's cpuid builtins.
CpuVectorFeatures host_vector_features();

}  // namespace mdh::peers
