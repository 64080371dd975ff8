// The convolution peers. cudnn: Gaussian (a one-channel conv2d), Jacobi 3D (a conv3d with a dense 3x3x3 filter: cuDNN
// has no sparse stencil) and MCC, each the fastest of NCHW and NHWC and of every algorithm cuDNN 9 offers in FP32
// (and with --precision tf32 in TF32 too). im2col_cublas: MCC as an im2col kernel of ours plus one cuBLAS SGEMM (in
// TF32 by the handle's math mode where asked), both timed.
#include <cmath>
#include <limits>
#include <string>

#include "cuda_state.h"
#include "cudnn_conv.h"
#include "im2col.h"

namespace mdh::peers {
namespace {

constexpr size_t kConvWorkspaceBytes = 512ull << 20;  // any algorithm needing up to 512 MiB may compete

/// A convolution as the spec declares it: shape, filter (host, in the spec's layout), input name, whether its
/// memory layout is NHWC with channels (MCC) or single-channel (where NCHW and NHWC are the same bytes).
struct ConvProblem {
  ConvShape shape;
  std::vector<float> filter;
  std::vector<int> output_spatial;
  std::string input_name;
  bool multi_channel = false;
  std::string layouts;
};

ConvProblem conv_problem(PeerCase& pc) {
  const std::string& routine = pc.options().routine;
  ConvProblem c;
  if (routine == "gaussian") {
    pc.require_md_hom("gaussian");
    const int i = static_cast<int>(pc.size("I")), j = static_cast<int>(pc.size("J"));
    c.shape.input_spatial = {i + 4, j + 4};
    c.shape.filter_spatial = {5, 5};
    const float g[5][5] = {{2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
    for (const auto& row : g)
      for (float v : row) c.filter.push_back(v / 159.0f);
    c.output_spatial = {i, j};
    c.input_name = "img";
    c.layouts =
        "1x1x(I+4)x(J+4) input (halo included, no padding), 1x1x5x5 filter (weights/159), 1x1xIxJ output "
        "(one channel: NCHW and NHWC are the same bytes); cross-correlation";
  } else if (routine == "jacobi3d") {
    pc.require_md_hom("jacobi3d");
    const int i = static_cast<int>(pc.size("I")), j = static_cast<int>(pc.size("J")),
              k = static_cast<int>(pc.size("K"));
    c.shape.input_spatial = {i + 2, j + 2, k + 2};
    c.shape.filter_spatial = {3, 3, 3};
    c.filter.assign(27, 0.0f);  // the 7-point stencil as a dense 3x3x3 filter: zeros off the axes
    auto at = [&c](int a, int b, int d) -> float& { return c.filter[static_cast<size_t>(a * 9 + b * 3 + d)]; };
    at(1, 1, 2) = 0.161f, at(1, 1, 0) = 0.162f, at(1, 2, 1) = 0.163f, at(1, 0, 1) = 0.164f;
    at(2, 1, 1) = 0.165f, at(0, 1, 1) = 0.166f, at(1, 1, 1) = -1.67f;
    c.output_spatial = {i, j, k};
    c.input_name = "a";
    c.layouts =
        "1x1x(I+2)x(J+2)x(K+2) input, 1x1x3x3x3 filter holding the 7-point weights and 20 zeros (cuDNN "
        "computes all 27 taps), 1x1xIxJxK output; cross-correlation";
  } else if (routine == "mcc") {
    pc.require_md_hom("mcc");
    const int n = static_cast<int>(pc.size("N")), p = static_cast<int>(pc.size("P")),
              q = static_cast<int>(pc.size("Q")), k = static_cast<int>(pc.size("K")),
              ch = static_cast<int>(pc.size("C")), r = static_cast<int>(pc.size("R")),
              sz = static_cast<int>(pc.size("S"));
    c.shape.batch = n, c.shape.in_channels = ch, c.shape.out_channels = k;
    c.shape.input_spatial = {p + r - 1, q + sz - 1};
    c.shape.filter_spatial = {r, sz};
    c.filter = float_values(pc.input("F"));
    c.output_spatial = {p, q};
    c.input_name = "I";
    c.multi_channel = true;
    c.layouts = "the spec's NHWC input N x (P+R-1) x (Q+S-1) x C (pre-padded), KRSC filter, NHWC output N x P x Q x K";
  } else {
    throw UserError("no convolution routine '" + routine + "' (gaussian, jacobi3d, mcc)");
  }
  return c;
}

std::vector<int> nc_spatial(int n, int c, const std::vector<int>& spatial) {
  std::vector<int> dims = {n, c};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  return dims;
}

/// One format's convolution with the buffers it needs beyond the spec's: for MCC in NCHW, the input and output in
/// NCHW (transformed from and to the spec's NHWC in every call, timed) and the filter in KCRS (set-up).
struct FormatRun {
  ConvFormat format = ConvFormat::nchw;
  std::unique_ptr<CudnnConvolution> conv;
  std::unique_ptr<TensorLayout> x_spec, x_lib, y_spec, y_lib;  // only where the layouts differ
  float* x = nullptr;                                          // the input in the library's format
  float* w = nullptr;
  float* y = nullptr;  // the output in the library's format
};

/// One call in `run`'s format: the input transformed from the spec's layout where the format differs, the
/// convolution, the output transformed back.
void enqueue_format(CudaState& s, const FormatRun& run, const ConvAlgorithm& algorithm, const float* x_spec,
                    void* workspace) {
  const float one = 1.0f, zero = 0.0f;
  if (run.x_spec)
    check_cudnn(cudnnTransformTensor(s.cudnn, &one, run.x_spec->get(), x_spec, &zero, run.x_lib->get(), run.x),
                "cudnnTransformTensor(input)");
  run.conv->run(algorithm, run.x, run.w, run.y, workspace);
  if (run.y_spec)
    check_cudnn(cudnnTransformTensor(s.cudnn, &one, run.y_lib->get(), run.y, &zero, run.y_spec->get(), s.output),
                "cudnnTransformTensor(output)");
}

}  // namespace

void prepare_cudnn(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  ConvProblem problem = conv_problem(pc);
  check_cudnn(cudnnCreate(&s.cudnn), "cudnnCreate");
  check_cudnn(cudnnSetStream(s.cudnn, s.stream), "cudnnSetStream");
  const float* x_spec = s.upload(float_values(pc.input(problem.input_name)), problem.input_name);
  const float* w_spec = s.upload(problem.filter, "filter");
  s.output_count = static_cast<size_t>(pc.make_output().element_count());
  s.output = s.allocate(s.output_count, "output");
  void* workspace = s.allocate(kConvWorkspaceBytes / sizeof(float), "cuDNN workspace");
  const ConvShape& shape = problem.shape;

  auto runs = std::make_shared<std::vector<FormatRun>>();
  nlohmann::json report = nlohmann::json::object();
  struct Choice {
    size_t run = 0;
    ConvAlgorithm algorithm;
    double ns = std::numeric_limits<double>::infinity();
  } best;
  for (ConvFormat format : {ConvFormat::nchw, ConvFormat::nhwc}) {
    nlohmann::json& r = report[format_name(format)];
    try {
      FormatRun run;
      run.format = format;
      run.conv = std::make_unique<CudnnConvolution>(s.cudnn, shape, format, setup.precision == ComputePrecision::tf32);
      if (run.conv->output_spatial() != problem.output_spatial)
        throw UserError("cuDNN computed another output shape than the spec's");
      const bool transform = problem.multi_channel && format == ConvFormat::nchw;
      if (transform) {
        const std::vector<int> x_dims = nc_spatial(shape.batch, shape.in_channels, shape.input_spatial),
                               y_dims = nc_spatial(shape.batch, shape.out_channels, problem.output_spatial),
                               w_dims = nc_spatial(shape.out_channels, shape.in_channels, shape.filter_spatial);
        run.x_spec = std::make_unique<TensorLayout>(x_dims, ConvFormat::nhwc);
        run.x_lib = std::make_unique<TensorLayout>(x_dims, ConvFormat::nchw);
        run.y_spec = std::make_unique<TensorLayout>(y_dims, ConvFormat::nhwc);
        run.y_lib = std::make_unique<TensorLayout>(y_dims, ConvFormat::nchw);
        run.x = s.allocate(problem.shape.batch * static_cast<size_t>(shape.in_channels) *
                               static_cast<size_t>(shape.input_spatial[0] * shape.input_spatial[1]),
                           "input in NCHW");
        run.y = s.allocate(s.output_count, "output in NCHW");
        run.w = s.allocate(problem.filter.size(), "filter in KCRS");
        const TensorLayout w_krsc(w_dims, ConvFormat::nhwc), w_kcrs(w_dims, ConvFormat::nchw);
        const float one = 1.0f, zero = 0.0f;
        check_cudnn(cudnnTransformTensor(s.cudnn, &one, w_krsc.get(), w_spec, &zero, w_kcrs.get(), run.w),
                    "cudnnTransformTensor(filter KRSC -> KCRS)");
      } else {
        run.x = const_cast<float*>(x_spec);
        run.w = const_cast<float*>(w_spec);
        run.y = s.output;
      }
      std::vector<ConvAlgorithm> algorithms =
          run.conv->algorithms(run.x, run.w, run.y, workspace, kConvWorkspaceBytes, r);
      r["timed"] = nlohmann::json::array();
      runs->push_back(std::move(run));
      const FormatRun& added = runs->back();
      for (const ConvAlgorithm& a : algorithms) {
        nlohmann::json timed = {{"algo", static_cast<int>(a.algo)},
                                {"math_type", static_cast<int>(a.math)},
                                {"workspace_bytes", a.workspace_bytes},
                                {"found_by", a.found_by}};
        try {  // an algorithm the heuristic offers may still refuse this convolution
          const double ns = s.time_candidate_ns([&] { enqueue_format(s, added, a, x_spec, workspace); });
          timed["time_ns"] = ns;
          if (ns < best.ns) best = Choice{runs->size() - 1, a, ns};
        } catch (const UserError& e) {
          timed["error"] = e.what();
        }
        r["timed"].push_back(timed);
      }
    } catch (const UserError& e) {
      r["unavailable"] = e.what();  // e.g. a format this convolution has no kernel for
    }
  }
  if (!std::isfinite(best.ns))
    throw UserError(std::string("cuDNN offered no ") + precision_name(setup.precision) +
                    " algorithm in either format: " + report.dump());
  const FormatRun& chosen = (*runs)[best.run];
  setup.notes["cudnn"] = {{"chosen",
                           {{"format", format_name(chosen.format)},
                            {"algo", static_cast<int>(best.algorithm.algo)},
                            {"math_type", static_cast<int>(best.algorithm.math)},
                            {"workspace_bytes", best.algorithm.workspace_bytes},
                            {"found_by", best.algorithm.found_by}}},
                          {"candidates", report},
                          {"workspace_limit_bytes", kConvWorkspaceBytes}};
  setup.layouts = problem.layouts + (chosen.x_spec ? "; computed in NCHW: cudnnTransformTensor of the input NHWC -> "
                                                     "NCHW and of the output NCHW -> NHWC in every call (timed), the "
                                                     "filter KRSC -> KCRS once at set-up (a constant weight tensor)"
                                                   : std::string("; computed in ") + format_name(chosen.format) +
                                                         ", the spec's own layout (nothing transformed)");
  setup.notes["timed"] = chosen.x_spec ? "cudnnTransformTensor NHWC -> NCHW of the input, the convolution, "
                                         "cudnnTransformTensor NCHW -> NHWC of the output (not the filter's, set-up)"
                                       : "the convolution alone, in the spec's own layout";
  s.keep_alive.push_back(runs);
  const ConvAlgorithm algorithm = best.algorithm;
  const FormatRun* run = &chosen;
  s.enqueue = [&s, run, algorithm, x_spec, workspace] { enqueue_format(s, *run, algorithm, x_spec, workspace); };
}

void prepare_im2col_cublas(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  if (pc.options().routine != "mcc")
    throw UserError("peer_cuda --peer im2col_cublas has no routine '" + pc.options().routine + "' (it offers mcc)");
  ConvProblem problem = conv_problem(pc);
  const ConvShape& shape = problem.shape;
  Im2colShape im;
  im.batch = shape.batch, im.channels = shape.in_channels;
  im.height = shape.input_spatial[0], im.width = shape.input_spatial[1];
  im.filter_height = shape.filter_spatial[0], im.filter_width = shape.filter_spatial[1];
  im.out_height = problem.output_spatial[0], im.out_width = problem.output_spatial[1];
  const float* x = s.upload(float_values(pc.input(problem.input_name)), problem.input_name);
  const float* w = s.upload(problem.filter, "filter KRSC");
  const int64_t rows = static_cast<int64_t>(im.batch) * im.out_height * im.out_width;            // N*P*Q
  const int64_t depth = static_cast<int64_t>(im.filter_height) * im.filter_width * im.channels;  // R*S*C
  const int out_channels = shape.out_channels;
  float* columns = s.allocate(static_cast<size_t>(rows * depth), "im2col matrix");
  s.output_count = static_cast<size_t>(rows) * static_cast<size_t>(out_channels);
  s.output = s.allocate(s.output_count, "output");
  setup.layouts = problem.layouts +
                  "; im2col: columns[(n,p,q)][(r,s,c)] row-major (N*P*Q x R*S*C), then row-major O (N*P*Q x K) = "
                  "columns * F^T: cublasSgemm(OP_T, OP_N, K, N*P*Q, R*S*C, F, ld R*S*C, columns, ld R*S*C, O, ld K)";
  setup.notes["im2col_bytes"] = rows * depth * 4;
  setup.notes["timed"] = "the im2col kernel and the SGEMM";
  s.enqueue = [&s, x, w, columns, im, rows, depth, out_channels] {
    check_cuda(launch_im2col_nhwc(x, columns, im, s.stream), "im2col kernel");
    const float alpha = 1.0f, beta = 0.0f;
    check_cublas(cublasSgemm(s.cublas, CUBLAS_OP_T, CUBLAS_OP_N, out_channels, static_cast<int>(rows),
                             static_cast<int>(depth), &alpha, w, static_cast<int>(depth), columns,
                             static_cast<int>(depth), &beta, s.output, out_channels),
                 "cublasSgemm");
  };
}

}  // namespace mdh::peers
