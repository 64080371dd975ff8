// What cuBLAS and cuBLASLt compute a GEMM spec in: the data types of A, B and C and the compute type, from the
// spec's element types and the precision asked for. Float operands are FP32 (TF32 products on request); half and
// bfloat16 inputs go to the tensor cores as CUDA_R_16F/CUDA_R_16BF with float accumulation. No CUDA call here, so
// every check runs before a device is needed.
#pragma once

#include <cublas_api.h>
#include <library_types.h>

#include <string>

#include "mdh/bind.h"
#include "peers/peer_common.h"

namespace mdh::peers {

struct CublasGemmTypes {
  cudaDataType_t inputs = CUDA_R_32F;  // A and B
  cudaDataType_t output = CUDA_R_32F;  // C (cuBLASLt: and D)
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale = CUDA_R_32F;  // alpha and beta
  // Half or bfloat16 inputs: cublasGemmEx rather than cublasSgemm, the operands uploaded as the spec's 2-byte bit
  // patterns.
  bool stored_in_two_bytes = false;
};

/// The types for inputs of `inputs` and an output of `output` in `precision`. Float inputs need a float output
/// (compute 32F, or 32F_FAST_TF32 in tf32); half inputs a float or half output, bfloat16 inputs a float or bfloat16
/// output (compute 32F in either precision: products of half or bfloat16 values are exact in FP32 and TF32 alike).
/// UserError for any other pair.
CublasGemmTypes cublas_gemm_types(ScalarType inputs, ScalarType output, ComputePrecision precision);

/// "CUDA_R_32F", "CUDA_R_16F", "CUDA_R_16BF"; "CUBLAS_COMPUTE_32F", "CUBLAS_COMPUTE_32F_FAST_TF32" (what records say).
std::string cuda_data_type_name(cudaDataType_t type);
std::string cublas_compute_type_name(cublasComputeType_t type);

/// A GEMM case of cublas or cublaslt: gemm (C = A B) or gemm_nt (C = A B^T) and its types.
struct CublasGemmCase {
  bool nt = false;
  CublasGemmTypes types;
};

/// The routine (gemm or gemm_nt), the spec's md_hom (gemm or gemm_nt, or their _half/_bfloat16 forms) and the
/// types of its A, B and C: UserError where they do not fit.
CublasGemmCase cublas_gemm_case(const PeerCase& pc);

}  // namespace mdh::peers
