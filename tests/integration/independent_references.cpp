#include "tests/integration/independent_references.h"

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

namespace mdh::test {

namespace {
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatrix to_matrix(const std::vector<float>& v, int64_t rows, int64_t cols) {
  RowMatrix m(rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) m(r, c) = v[r * cols + c];
  return m;
}

std::vector<double> to_vector(const RowMatrix& m) {
  std::vector<double> out(m.size());
  for (int64_t r = 0; r < m.rows(); ++r)
    for (int64_t c = 0; c < m.cols(); ++c) out[r * m.cols() + c] = m(r, c);
  return out;
}
}  // namespace

std::vector<double> dot_reference(const std::vector<float>& x, const std::vector<float>& y) {
  Eigen::VectorXd ex = to_matrix(x, static_cast<int64_t>(x.size()), 1);
  Eigen::VectorXd ey = to_matrix(y, static_cast<int64_t>(y.size()), 1);
  return {ex.dot(ey)};
}

std::vector<double> gemv_reference(const std::vector<float>& A, const std::vector<float>& x, int64_t rows,
                                   int64_t cols) {
  RowMatrix y = to_matrix(A, rows, cols) * to_matrix(x, cols, 1);
  return to_vector(y);
}

std::vector<double> gemm_reference(const std::vector<float>& A, const std::vector<float>& B, int64_t I, int64_t J,
                                   int64_t K, bool transposed_b) {
  RowMatrix a = to_matrix(A, I, K);
  RowMatrix c = transposed_b ? RowMatrix(a * to_matrix(B, J, K).transpose()) : RowMatrix(a * to_matrix(B, K, J));
  return to_vector(c);
}

std::vector<double> gaussian_reference(const std::vector<float>& img, int64_t I, int64_t J) {
  static const double kWeights[5][5] = {
      {2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
  std::vector<double> out(I * J);
  const int64_t width = J + 4;
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < J; ++j) {
      double s = 0;
      for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 5; ++c) s += kWeights[r][c] * img[(i + r) * width + (j + c)];
      out[i * J + j] = s / 159.0;
    }
  return out;
}

std::vector<double> jacobi3d_reference(const std::vector<float>& a, int64_t I, int64_t J, int64_t K) {
  std::vector<double> out(I * J * K);
  auto at = [&](int64_t i, int64_t j, int64_t k) -> double { return a[(i * (J + 2) + j) * (K + 2) + k]; };
  // Grid point (i, j, k) of the output is (i+1, j+1, k+1) of the haloed input; E/W along k, S/N along j, B/F along i.
  // The spec writes the weights as float literals; use the same float values so that only rounding differs.
  const double e = 0.161f, w = 0.162f, s = 0.163f, n = 0.164f, b = 0.165f, f = 0.166f, c = 1.67f;
  for (int64_t i = 0; i < I; ++i)
    for (int64_t j = 0; j < J; ++j)
      for (int64_t k = 0; k < K; ++k)
        out[(i * J + j) * K + k] = e * at(i + 1, j + 1, k + 2) + w * at(i + 1, j + 1, k) + s * at(i + 1, j + 2, k + 1) +
                                   n * at(i + 1, j, k + 1) + b * at(i + 2, j + 1, k + 1) + f * at(i, j + 1, k + 1) -
                                   c * at(i + 1, j + 1, k + 1);
  return out;
}

std::vector<double> mcc_reference(const std::vector<float>& input, const std::vector<float>& filter, int64_t N,
                                  int64_t P, int64_t Q, int64_t K, int64_t C, int64_t R, int64_t S) {
  const int64_t H = P + R - 1, W = Q + S - 1;
  std::vector<double> out(N * P * Q * K);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t p = 0; p < P; ++p)
      for (int64_t q = 0; q < Q; ++q)
        for (int64_t k = 0; k < K; ++k) {
          double acc = 0;
          for (int64_t r = 0; r < R; ++r)
            for (int64_t s = 0; s < S; ++s)
              for (int64_t c = 0; c < C; ++c)
                acc += double(input[((n * H + p + r) * W + q + s) * C + c]) * filter[((k * R + r) * S + s) * C + c];
          out[((n * P + p) * Q + q) * K + k] = acc;
        }
  return out;
}

std::vector<double> contraction_reference(const std::string& name, const std::vector<float>& A,
                                          const std::vector<float>& B, const std::vector<int64_t>& extents) {
  // name = "<out>-<a>-<b>", each part a string of index letters; the letter not in <out> is the reduction.
  auto dash1 = name.find('-'), dash2 = name.rfind('-');
  if (dash1 == std::string::npos || dash1 == dash2) throw std::invalid_argument("contraction name " + name);
  const std::string out = name.substr(0, dash1), ia = name.substr(dash1 + 1, dash2 - dash1 - 1),
                    ib = name.substr(dash2 + 1);
  auto extent = [&](char letter) { return extents.at(letter - 'a'); };
  // Row-major offset of a buffer indexed by `letters` at the index values idx['a'..'g'].
  auto offset = [&](const std::string& letters, const int64_t* idx) {
    int64_t o = 0;
    for (char l : letters) o = o * extent(l) + idx[l - 'a'];
    return o;
  };
  int64_t points = 1;
  for (char l : out) points *= extent(l);
  const char g = 'g';
  std::vector<double> result(points);
  int64_t idx[7] = {0, 0, 0, 0, 0, 0, 0};
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
      idx[out[d] - 'a'] = rest % extent(out[d]);
      rest /= extent(out[d]);
    }
    double acc = 0;
    for (idx[g - 'a'] = 0; idx[g - 'a'] < extent(g); ++idx[g - 'a'])
      acc += double(A[offset(ia, idx)]) * B[offset(ib, idx)];
    result[offset(out, idx)] = acc;
  }
  return result;
}

double prl_pair_weight(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const std::vector<float>& freq,
                       size_t i, size_t j) {
  constexpr int kFields = 14;
  const float m[kFields] = {0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f,
                            0.975f, 0.975f, 0.99f,  0.99f,  0.99f,  0.999f, 0.9f};
  double w = 0;
  for (int f = 0; f < kFields; ++f) {
    const uint8_t x = a[i * kFields + f], y = b[j * kFields + f];
    const double u = freq[f * 256 + x];
    w += x == y ? std::log(m[f] / u) : std::log((1.0 - m[f]) / (1.0 - u));
  }
  return w;
}

std::vector<PrlMatch> prl_reference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                    const std::vector<float>& freq) {
  const size_t n = a.size() / 14, count_b = b.size() / 14;
  std::vector<PrlMatch> best(n, PrlMatch{-INFINITY, -1});
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < count_b; ++j) {
      const double w = prl_pair_weight(a, b, freq, i, j);
      if (w > best[i].weight) best[i] = {w, static_cast<int>(j)};  // strict: ties keep the smaller index
    }
  return best;
}

}  // namespace mdh::test
