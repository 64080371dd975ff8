// peer_openblas: cblas_sgemm / cblas_sgemv / cblas_sdot from the system's OpenBLAS on the CPU, on mdh's inputs.
// Device time = call time = host wall time of the one cblas call (the result is in host memory when it returns);
// steady time: the host clock around calls back to back. Runs without an inherited OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE,
// and with the CPU's own kernels where OpenBLAS does not recognise it (main).
#include <cblas.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "peers/openblas_coretype.h"
#include "peers/peer_common.h"

namespace mdh::peers {
namespace {

struct BlasOperands {
  std::vector<float> a, b, c;
};

PeerSetup prepare_openblas(PeerCase& pc) {
  PeerSetup setup;
  setup.peer = "openblas";
  setup.library_version = openblas_get_config();
  setup.device_name = host_cpu_name(std::to_string(openblas_get_num_threads()) + " OpenBLAS threads, " +
                                    std::to_string(std::thread::hardware_concurrency()) + " hardware threads, " +
                                    openblas_get_corename() + " kernels");
  setup.device_time_includes = "same as call time: host wall time of the cblas call";
  setup.call_time_includes = "host wall time of the cblas call (operands already in host memory)";
  setup.notes["threads"] = openblas_get_num_threads();
  setup.notes["core"] = openblas_get_corename();  // the kernels OpenBLAS chose for this CPU
  if (const char* detected = std::getenv("MDH_OPENBLAS_CORETYPE"))
    setup.notes["environment"] =
        std::string("OPENBLAS_CORETYPE=") + openblas_get_corename() + ": OpenBLAS's detection chose " + detected +
        " kernels for this CPU, which has the instruction sets of " + openblas_get_corename() + " (main)";
  else
    setup.notes["environment"] = "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset before OpenBLAS loaded (main)";
  setup.steady_time_includes =
      "host steady clock around n cblas calls back to back (each returns with its result in host memory)";

  auto ops = std::make_shared<BlasOperands>();
  const std::string& routine = pc.options().routine;
  std::function<void()> call;
  if (routine == "gemm" || routine == "gemm_nt") {
    const bool nt = routine == "gemm_nt";
    pc.require_md_hom(nt ? "gemm_nt" : "gemm");
    const int m = static_cast<int>(pc.size("I")), n = static_cast<int>(pc.size("J")),
              k = static_cast<int>(pc.size("K"));
    ops->a = float_values(pc.input("A"));
    ops->b = float_values(pc.input("B"));
    ops->c.assign(static_cast<size_t>(m) * n, 0.0f);
    setup.layouts = nt ? "CblasRowMajor; A MxK NoTrans (lda=K); B NxK Trans (ldb=K); C MxN (ldc=N)"
                       : "CblasRowMajor; A MxK NoTrans (lda=K); B KxN NoTrans (ldb=N); C MxN (ldc=N)";
    call = [ops, m, n, k, nt] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, nt ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, ops->a.data(), k,
                  ops->b.data(), nt ? k : n, 0.0f, ops->c.data(), n);
    };
  } else if (routine == "gemv") {
    pc.require_md_hom("gemv");
    const int m = static_cast<int>(pc.size("I")), k = static_cast<int>(pc.size("K"));
    ops->a = float_values(pc.input("A"));
    ops->b = float_values(pc.input("x"));
    ops->c.assign(static_cast<size_t>(m), 0.0f);
    setup.layouts = "CblasRowMajor; A MxK NoTrans (lda=K); x, y contiguous (inc=1)";
    call = [ops, m, k] {
      cblas_sgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0f, ops->a.data(), k, ops->b.data(), 1, 0.0f, ops->c.data(), 1);
    };
  } else if (routine == "dot") {
    pc.require_md_hom("dot");
    const int n = static_cast<int>(pc.size("K"));
    ops->a = float_values(pc.input("x"));
    ops->b = float_values(pc.input("y"));
    ops->c.assign(1, 0.0f);
    setup.layouts = "x, y contiguous (inc=1); result returned as float";
    call = [ops, n] { ops->c[0] = cblas_sdot(n, ops->a.data(), 1, ops->b.data(), 1); };
  } else {
    throw UserError("peer_openblas has no routine '" + routine + "' (it offers gemm, gemm_nt, gemv, dot)");
  }
  setup.run_once = [call] {
    const double start = now_ns();
    call();
    const double wall = now_ns() - start;
    return RunTimes{wall, wall};
  };
  setup.steady_calls = host_steady_calls(call);
  setup.read_output = [&pc, ops] { return float_output(pc, ops->c); };
  return setup;
}

}  // namespace
}  // namespace mdh::peers

int main(int argc, char** argv) {
  // OpenBLAS reads these when it loads, before main: an inherited OPENBLAS_CORETYPE pins kernels older than the CPU
  // (Prescott's on a Skylake-X), OPENBLAS_L2_SIZE its blocking. Where either is set, run again without them; where
  // OpenBLAS's detection then falls back to pre-AVX kernels on a CPU it does not know, run again with the kernels the
  // CPU's instruction sets support (openblas_coretype.h). MDH_OPENBLAS_CORETYPE marks that last run.
  const char* chosen = std::getenv("MDH_OPENBLAS_CORETYPE");
  if (!chosen && (std::getenv("OPENBLAS_CORETYPE") || std::getenv("OPENBLAS_L2_SIZE"))) {
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv("OPENBLAS_L2_SIZE");
    execv("/proc/self/exe", argv);
    std::perror("peer_openblas: cannot run itself again without OPENBLAS_CORETYPE");
    return 2;
  }
  if (!chosen) {
    if (const auto core =
            mdh::peers::coretype_for_fallback(openblas_get_corename(), mdh::peers::host_vector_features())) {
      setenv("OPENBLAS_CORETYPE", core->c_str(), 1);
      setenv("MDH_OPENBLAS_CORETYPE", openblas_get_corename(), 1);
      execv("/proc/self/exe", argv);
      std::perror("peer_openblas: cannot run itself again with OPENBLAS_CORETYPE");
      return 2;
    }
  }
  return mdh::peers::peer_main(argc, argv, "peer_openblas", {}, mdh::peers::prepare_openblas);
}
