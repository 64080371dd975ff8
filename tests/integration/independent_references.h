// Independent C++ references for the shipped apps: written from the workload definitions in
// shared/workloads.md, not from the spec files or the generated code, so that a wrong view, a wrong scalar
// function or a wrong kernel all show up. Results in double.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mdh::test {

std::vector<double> dot_reference(const std::vector<float>& x, const std::vector<float>& y);
/// A is rows x cols, row-major.
std::vector<double> gemv_reference(const std::vector<float>& A, const std::vector<float>& x, int64_t rows,
                                   int64_t cols);
/// C = A·B with A I x K; B K x J, or (transposed_b) J x K.
std::vector<double> gemm_reference(const std::vector<float>& A, const std::vector<float>& B, int64_t I, int64_t J,
                                   int64_t K, bool transposed_b);
/// 5x5 Gaussian on an (I+4) x (J+4) image, weights / 159.
std::vector<double> gaussian_reference(const std::vector<float>& img, int64_t I, int64_t J);
/// 7-point Jacobi on an (I+2) x (J+2) x (K+2) grid.
std::vector<double> jacobi3d_reference(const std::vector<float>& a, int64_t I, int64_t J, int64_t K);
/// NHWC input (pre-padded) x KRSC filter -> NPQK output, stride 1.
std::vector<double> mcc_reference(const std::vector<float>& input, const std::vector<float>& filter, int64_t N,
                                  int64_t P, int64_t Q, int64_t K, int64_t C, int64_t R, int64_t S);
/// A TCCG contraction named like "abcdef-gdab-efgc": C[abcdef] = sum_g A[...] * B[...], index letters name the
/// extents in `extents` ('a' -> extents[0], ...).
std::vector<double> contraction_reference(const std::string& name, const std::vector<float>& A,
                                          const std::vector<float>& B, const std::vector<int64_t>& extents);

/// PRL: for each record of `a` (14 fields each), the best match in `b` by the SAC'19 weight with the m
/// probabilities of workloads.md and the frequency table freq[14][256]; ties go to the smaller index.
struct PrlMatch {
  double weight;
  int index;
};
std::vector<PrlMatch> prl_reference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                    const std::vector<float>& freq);

/// The weight of the pair (record i of a, record j of b).
double prl_pair_weight(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const std::vector<float>& freq,
                       size_t i, size_t j);

}  // namespace mdh::test
