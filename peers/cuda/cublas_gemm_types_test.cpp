// The cuBLAS GEMM peers' choices that need no GPU: the data and compute types for each pair of element types and
// precision, and which specs and routines a GEMM peer takes (on PoCL, which holds the inputs).
#include "cublas_gemm_types.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <tuple>

namespace mdh::peers {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CublasGemmTypes, FloatInputsComputeInFp32OrTf32) {
  for (const auto& [precision, compute] : {std::tuple{ComputePrecision::fp32, CUBLAS_COMPUTE_32F},
                                           std::tuple{ComputePrecision::tf32, CUBLAS_COMPUTE_32F_FAST_TF32}}) {
    const CublasGemmTypes t = cublas_gemm_types(ScalarType::Float, ScalarType::Float, precision);
    EXPECT_EQ(t.inputs, CUDA_R_32F);
    EXPECT_EQ(t.output, CUDA_R_32F);
    EXPECT_EQ(t.compute, compute);
    EXPECT_EQ(t.scale, CUDA_R_32F);
    EXPECT_FALSE(t.stored_in_two_bytes);
  }
}

// Half and bfloat16 inputs keep their type on the device and accumulate in float whatever the precision: TF32 would
// round none of their products.
TEST(CublasGemmTypes, TwoByteInputsAccumulateInFloat) {
  const std::tuple<ScalarType, ScalarType, cudaDataType_t, cudaDataType_t> cases[] = {
      {ScalarType::Half, ScalarType::Float, CUDA_R_16F, CUDA_R_32F},
      {ScalarType::Half, ScalarType::Half, CUDA_R_16F, CUDA_R_16F},
      {ScalarType::Bfloat16, ScalarType::Float, CUDA_R_16BF, CUDA_R_32F},
      {ScalarType::Bfloat16, ScalarType::Bfloat16, CUDA_R_16BF, CUDA_R_16BF}};
  for (const auto& [inputs, output, input_type, output_type] : cases)
    for (const ComputePrecision precision : {ComputePrecision::fp32, ComputePrecision::tf32}) {
      SCOPED_TRACE(std::string(opencl_name(inputs)) + " -> " + opencl_name(output) + " " + precision_name(precision));
      const CublasGemmTypes t = cublas_gemm_types(inputs, output, precision);
      EXPECT_EQ(t.inputs, input_type);
      EXPECT_EQ(t.output, output_type);
      EXPECT_EQ(t.compute, CUBLAS_COMPUTE_32F);
      EXPECT_EQ(t.scale, CUDA_R_32F);
      EXPECT_TRUE(t.stored_in_two_bytes);
    }
}

TEST(CublasGemmTypes, PairsCublasDoesNotComputeAreUserErrors) {
  const auto types = [](ScalarType in, ScalarType out) {
    return error_of([&] { cublas_gemm_types(in, out, ComputePrecision::fp32); });
  };
  EXPECT_EQ(types(ScalarType::Half, ScalarType::Bfloat16),
            "cuBLAS GEMMs of half inputs write float or half, not bfloat16");
  EXPECT_EQ(types(ScalarType::Bfloat16, ScalarType::Half),
            "cuBLAS GEMMs of bfloat16 inputs write float or bfloat16, not half");
  EXPECT_EQ(types(ScalarType::Float, ScalarType::Half), "cuBLAS GEMMs of float inputs write float, not half");
  EXPECT_EQ(types(ScalarType::Double, ScalarType::Double),
            "cuBLAS GEMMs take float, half or bfloat16 inputs, not double");
}

TEST(CublasGemmTypes, NamesAreCublasOwn) {
  EXPECT_EQ(cuda_data_type_name(CUDA_R_32F), "CUDA_R_32F");
  EXPECT_EQ(cuda_data_type_name(CUDA_R_16F), "CUDA_R_16F");
  EXPECT_EQ(cuda_data_type_name(CUDA_R_16BF), "CUDA_R_16BF");
  EXPECT_EQ(cublas_compute_type_name(CUBLAS_COMPUTE_32F), "CUBLAS_COMPUTE_32F");
  EXPECT_EQ(cublas_compute_type_name(CUBLAS_COMPUTE_32F_FAST_TF32), "CUBLAS_COMPUTE_32F_FAST_TF32");
}

PeerOptions options(const std::string& routine, const std::string& spec, const std::string& sizes,
                    ComputePrecision precision = ComputePrecision::fp32) {
  PeerOptions o;
  o.routine = routine;
  o.spec = spec;
  o.sizes = sizes;
  o.precision = precision;
  return o;
}

std::string app(const std::string& name) {
  return std::string(MDH_SOURCE_DIR) + "/apps/" + name;
}

/// A spec file in a fresh folder: a GEMM named `name` with inputs of `a`, `b` and an output of `c`.
std::string gemm_spec(const std::string& name, const std::string& a, const std::string& b, const std::string& c) {
  const fs::path dir = fs::temp_directory_path() / ("mdh_peer_cuda_tests_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / (name + "_" + a + "_" + b + "_" + c + ".mdh");
  std::ofstream(path) << "md_hom " << name << "\nsize I J K\ninput A : " << a << "[I][K]\ninput B : " << b
                      << "[K][J]\noutput C : " << c << "[I][J]\nview (i < I, j < J, k < K) : A[i][k], B[k][j] -> "
                      << "C[i][j]\nscalar (x, y) = x * y\ncombine (++, ++, +)\n";
  return path.string();
}

TEST(CublasGemmCase, TheShippedGemmsInTheirTypes) {
  const std::tuple<const char*, const char*, bool, cudaDataType_t> cases[] = {
      {"gemm", "gemm.mdh", false, CUDA_R_32F},
      {"gemm_nt", "gemm_nt.mdh", true, CUDA_R_32F},
      {"gemm", "gemm_half.mdh", false, CUDA_R_16F},
      {"gemm", "gemm_bfloat16.mdh", false, CUDA_R_16BF}};
  for (const auto& [routine, spec, nt, inputs] : cases) {
    SCOPED_TRACE(spec);
    PeerCase pc(options(routine, app(spec), "I=5,J=7,K=3", ComputePrecision::tf32));
    const CublasGemmCase c = cublas_gemm_case(pc);
    EXPECT_EQ(c.nt, nt);
    EXPECT_EQ(c.types.inputs, inputs);
    EXPECT_EQ(c.types.output, CUDA_R_32F);
    EXPECT_EQ(c.types.compute, inputs == CUDA_R_32F ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  }
  PeerCase half_out(options("gemm", gemm_spec("gemm_half", "half", "half", "half"), "I=4,J=4,K=4"));
  EXPECT_EQ(cublas_gemm_case(half_out).types.output, CUDA_R_16F);
}

TEST(CublasGemmCase, ARoutineOrSpecThatDoesNotFitIsAUserError) {
  const std::string half = app("gemm_half.mdh");
  PeerCase nt(options("gemm_nt", half, "I=4,J=4,K=4"));
  EXPECT_EQ(error_of([&] { cublas_gemm_case(nt); }),
            "routine 'gemm_nt' expects the md_hom 'gemm_nt' (or 'gemm_nt_half', 'gemm_nt_bfloat16' with inputs of "
            "that type), but " +
                half + " declares 'gemm_half'");
  // The name says half, the inputs are bfloat16: a mix-up, not a GEMM of either.
  const std::string misnamed = gemm_spec("gemm_half", "bfloat16", "bfloat16", "float");
  PeerCase wrong_name(options("gemm", misnamed, "I=4,J=4,K=4"));
  EXPECT_NE(error_of([&] { cublas_gemm_case(wrong_name); }).find("but " + misnamed + " declares 'gemm_half'"),
            std::string::npos);
  const std::string mixed = gemm_spec("gemm", "half", "bfloat16", "float");
  PeerCase mixed_inputs(options("gemm", mixed, "I=4,J=4,K=4"));
  EXPECT_EQ(
      error_of([&] { cublas_gemm_case(mixed_inputs); }),
      "a cuBLAS GEMM takes A and B of one scalar type and a scalar C; " + mixed + " declares half, bfloat16 and float");
  PeerCase crossed(options("gemm", gemm_spec("gemm_bfloat16", "bfloat16", "bfloat16", "half"), "I=4,J=4,K=4"));
  EXPECT_EQ(error_of([&] { cublas_gemm_case(crossed); }),
            "cuBLAS GEMMs of bfloat16 inputs write float or bfloat16, not half");
  PeerCase gemv(options("gemv", app("gemv.mdh"), "I=4,K=4"));
  EXPECT_EQ(error_of([&] { cublas_gemm_case(gemv); }), "a cuBLAS GEMM has no routine 'gemv' (gemm, gemm_nt)");
}

}  // namespace
}  // namespace mdh::peers
