#include "cublas_gemm_types.h"

namespace mdh::peers {

CublasGemmTypes cublas_gemm_types(ScalarType inputs, ScalarType output, ComputePrecision precision) {
  CublasGemmTypes t;
  switch (inputs) {
    case ScalarType::Float:
      if (output != ScalarType::Float)
        throw UserError(std::string("cuBLAS GEMMs of float inputs write float, not ") + opencl_name(output));
      t.compute = precision == ComputePrecision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      return t;
    case ScalarType::Half:
    case ScalarType::Bfloat16: {
      const bool half = inputs == ScalarType::Half;
      t.inputs = half ? CUDA_R_16F : CUDA_R_16BF;
      if (output == ScalarType::Float)
        t.output = CUDA_R_32F;
      else if (output == inputs)
        t.output = t.inputs;
      else
        throw UserError(std::string("cuBLAS GEMMs of ") + opencl_name(inputs) + " inputs write float or " +
                        opencl_name(inputs) + ", not " + opencl_name(output));
      t.compute = CUBLAS_COMPUTE_32F;  // the products are exact; TF32 would round nothing
      t.stored_in_two_bytes = true;
      return t;
    }
    default:
      throw UserError(std::string("cuBLAS GEMMs take float, half or bfloat16 inputs, not ") + opencl_name(inputs));
  }
}

std::string cuda_data_type_name(cudaDataType_t type) {
  switch (type) {
    case CUDA_R_32F:
      return "CUDA_R_32F";
    case CUDA_R_16F:
      return "CUDA_R_16F";
    case CUDA_R_16BF:
      return "CUDA_R_16BF";
    default:
      return "cudaDataType " + std::to_string(static_cast<int>(type));
  }
}

std::string cublas_compute_type_name(cublasComputeType_t type) {
  switch (type) {
    case CUBLAS_COMPUTE_32F:
      return "CUBLAS_COMPUTE_32F";
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      return "CUBLAS_COMPUTE_32F_FAST_TF32";
    default:
      return "cublasComputeType " + std::to_string(static_cast<int>(type));
  }
}

CublasGemmCase cublas_gemm_case(const PeerCase& pc) {
  const std::string& routine = pc.options().routine;
  if (routine != "gemm" && routine != "gemm_nt")
    throw UserError("a cuBLAS GEMM has no routine '" + routine + "' (gemm, gemm_nt)");
  CublasGemmCase c;
  c.nt = routine == "gemm_nt";
  pc.require_md_hom_of_any_storage(routine);
  const Mdh& mdh = pc.mdh();
  for (const char* name : {"A", "B", "C"})
    if (mdh.find_buffer(name) < 0) throw UserError(pc.options().spec + " has no buffer '" + name + "'");
  const ElementType& a = mdh.buffers[mdh.find_buffer("A")].type;
  const ElementType& b = mdh.buffers[mdh.find_buffer("B")].type;
  const ElementType& out = mdh.buffers[mdh.find_buffer("C")].type;
  if (a.is_struct() || b.is_struct() || out.is_struct() || a.scalar != b.scalar)
    throw UserError("a cuBLAS GEMM takes A and B of one scalar type and a scalar C; " + pc.options().spec +
                    " declares " + mdh.type_name(a) + ", " + mdh.type_name(b) + " and " + mdh.type_name(out));
  c.types = cublas_gemm_types(a.scalar, out.scalar, pc.options().precision);
  return c;
}

}  // namespace mdh::peers
