// peer_clblast: CLBlast SGEMM (NN, NT), SGEMV and SDOT on any OpenCL device, with the parameters CLBlast ships or,
// with --tuned DIR, the ones its own tuners found for this device (peers/tune_clblast.sh).
// Device time: the sum of the profiled durations of every kernel CLBlast enqueues during the call (pad, transpose,
// main kernel, epilogue), recorded by peers/kernel_event_recorder.h. Call time: host wall time from the call until
// clFinish returns.
#include <clblast.h>

#include <memory>

#include "peers/clblast_tuned.h"
#include "peers/kernel_event_recorder.h"
#include "peers/peer_common.h"

namespace mdh::peers {
namespace {

struct ClblastState {
  DeviceBuffer a, b, c;
  size_t kernels_last_call = 0;
};

void check(clblast::StatusCode status, const std::string& what) {
  if (status != clblast::StatusCode::kSuccess)
    throw UserError("CLBlast " + what + " failed with status " + std::to_string(static_cast<int>(status)));
}

DeviceBuffer upload(Context& context, const HostBuffer& host) {
  DeviceBuffer buffer = context.create_buffer(host.bytes.size());
  buffer.write(host.bytes);
  return buffer;
}

// An output buffer of zeros. CLBlast computes beta * C even for beta = 0 (the BLAS rule that C is then not read does
// not hold there), so uninitialised memory holding NaN bit patterns gave NaN in some outputs on PoCL.
DeviceBuffer zeroed_output(Context& context, size_t elements) {
  DeviceBuffer buffer = context.create_buffer(elements * sizeof(float));
  buffer.write(std::vector<unsigned char>(elements * sizeof(float), 0));
  return buffer;
}

PeerSetup prepare_clblast(PeerCase& pc) {
  Context& context = pc.context();
  PeerSetup setup;
  const auto tuned = pc.options().extra.find("tuned");
  setup.peer = tuned == pc.options().extra.end() ? "clblast" : "clblast-tuned";
  setup.library_version = "CLBlast " + std::to_string(CLBLAST_VERSION_MAJOR) + "." +
                          std::to_string(CLBLAST_VERSION_MINOR) + "." + std::to_string(CLBLAST_VERSION_PATCH);
  setup.device_name = context.device().name;
  setup.notes["opencl_device"] = context.device().selector() + " " + context.device().name + " (" +
                                 context.device().platform_name + ", " + context.device().driver_version + ")";
  setup.device_time_includes =
      "sum of the profiled durations of every kernel CLBlast enqueues in the call (pad/transpose/main/epilogue)";
  setup.call_time_includes =
      "host wall time from the CLBlast call until clFinish returns (buffers already on the "
      "device; first-call kernel compilation excluded by warm-ups), in a call of its own after each timed one, "
      "without events";
  if (tuned != pc.options().extra.end()) {
    ClblastTuning tuning = read_clblast_tuning(tuned->second, context.device().name);
    setup.notes["tuned_from"] = tuned->second;
    setup.notes["tuning_sources"] = tuning.sources;
    setup.notes["tuned_parameters"] = apply_clblast_tuning(context.device().device, tuning);
  } else {
    setup.notes["tuned_parameters"] = "shipped database";
  }

  auto state = std::make_shared<ClblastState>();
  const std::string& routine = pc.options().routine;
  std::function<clblast::StatusCode(cl_command_queue*, cl_event*)> call;
  using clblast::Layout;
  using clblast::Transpose;
  if (routine == "gemm" || routine == "gemm_nt") {
    const bool nt = routine == "gemm_nt";
    pc.require_md_hom(nt ? "gemm_nt" : "gemm");
    const size_t m = static_cast<size_t>(pc.size("I")), n = static_cast<size_t>(pc.size("J")),
                 k = static_cast<size_t>(pc.size("K"));
    state->a = upload(context, pc.input("A"));
    state->b = upload(context, pc.input("B"));
    state->c = zeroed_output(context, m * n);
    setup.layouts = nt ? "kRowMajor; A MxK kNo (lda=K); B NxK kYes (ldb=K); C MxN (ldc=N)"
                       : "kRowMajor; A MxK kNo (lda=K); B KxN kNo (ldb=N); C MxN (ldc=N)";
    call = [state, m, n, k, nt](cl_command_queue* queue, cl_event* event) {
      return clblast::Gemm<float>(Layout::kRowMajor, Transpose::kNo, nt ? Transpose::kYes : Transpose::kNo, m, n, k,
                                  1.0f, state->a.get(), 0, k, state->b.get(), 0, nt ? k : n, 0.0f, state->c.get(), 0, n,
                                  queue, event);
    };
  } else if (routine == "gemv") {
    pc.require_md_hom("gemv");
    const size_t m = static_cast<size_t>(pc.size("I")), k = static_cast<size_t>(pc.size("K"));
    state->a = upload(context, pc.input("A"));
    state->b = upload(context, pc.input("x"));
    state->c = zeroed_output(context, m);
    setup.layouts = "kRowMajor; A MxK kNo (lda=K); x, y contiguous (inc=1)";
    call = [state, m, k](cl_command_queue* queue, cl_event* event) {
      return clblast::Gemv<float>(Layout::kRowMajor, Transpose::kNo, m, k, 1.0f, state->a.get(), 0, k, state->b.get(),
                                  0, 1, 0.0f, state->c.get(), 0, 1, queue, event);
    };
  } else if (routine == "dot") {
    pc.require_md_hom("dot");
    const size_t n = static_cast<size_t>(pc.size("K"));
    state->a = upload(context, pc.input("x"));
    state->b = upload(context, pc.input("y"));
    state->c = context.create_buffer(sizeof(float));
    setup.layouts = "x, y contiguous (inc=1); result in a 1-element device buffer";
    call = [state, n](cl_command_queue* queue, cl_event* event) {
      return clblast::Dot<float>(n, state->c.get(), 0, state->a.get(), 0, 1, state->b.get(), 0, 1, queue, event);
    };
  } else {
    throw UserError("peer_clblast has no routine '" + routine + "' (it offers gemm, gemm_nt, gemv, dot)");
  }

  cl_command_queue queue = context.queue();
  setup.run_once = [call, state, queue, routine] {
    cl_command_queue q = queue;
    cl_event event = nullptr;
    start_kernel_recording();
    const double start = now_ns();
    clblast::StatusCode status = call(&q, &event);
    cl_int finished = clFinish(q);
    const double wall = now_ns() - start;
    std::vector<cl_event> kernels = stop_kernel_recording();
    if (event) clReleaseEvent(event);
    check(status, routine);
    if (finished != CL_SUCCESS) throw UserError("clFinish after CLBlast failed: " + std::to_string(finished));
    if (kernels.empty())
      throw UserError("no kernel of CLBlast was recorded; the clEnqueueNDRangeKernel interposer is not in effect");
    state->kernels_last_call = kernels.size();
    const double device = static_cast<double>(sum_kernel_ns_and_release(kernels));
    return RunTimes{device, wall};
  };
  setup.plain_call = [call, queue, routine] {
    cl_command_queue q = queue;
    const double start = now_ns();
    clblast::StatusCode status = call(&q, nullptr);
    cl_int finished = clFinish(q);
    const double wall = now_ns() - start;
    check(status, routine);
    if (finished != CL_SUCCESS) throw UserError("clFinish after CLBlast failed: " + std::to_string(finished));
    return wall;
  };
  // Only the first and the last call are recorded: the calls between them enqueue no events, as an application's.
  setup.steady_calls = [call, queue, routine](int n) {
    cl_command_queue q = queue;
    std::vector<cl_event> recorded;
    for (int i = 0; i < n; ++i) {
      const bool record = i == 0 || i == n - 1;
      if (record) start_kernel_recording();
      clblast::StatusCode status = call(&q, nullptr);
      if (record) {
        std::vector<cl_event> events = stop_kernel_recording();
        recorded.insert(recorded.end(), events.begin(), events.end());
      }
      check(status, routine);
    }
    cl_int finished = clFinish(q);
    const double span = static_cast<double>(span_ns_and_release(recorded));
    if (finished != CL_SUCCESS) throw UserError("clFinish after CLBlast failed: " + std::to_string(finished));
    return span;
  };
  setup.steady_time_includes =
      "n CLBlast calls enqueued back to back on one in-order queue: from the first kernel's profiled START of the "
      "first call to the last kernel's END of the last call (launch gaps and every helper kernel included)";
  setup.read_output = [&pc, state] {
    HostBuffer out = pc.make_output();
    state->c.read(out.bytes.data(), out.bytes.size());
    return out;
  };
  setup.late_notes = [state] { return nlohmann::json{{"kernels_per_call", state->kernels_last_call}}; };
  return setup;
}

}  // namespace
}  // namespace mdh::peers

int main(int argc, char** argv) {
  return mdh::peers::peer_main(argc, argv, "peer_clblast",
                               {{"tuned", "apply CLBlast tuner results (clblast_*_32.json) from DIR"}},
                               mdh::peers::prepare_clblast);
}
