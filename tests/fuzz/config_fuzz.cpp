// libFuzzer target: any byte string as a configuration file of apps/gemm.mdh at 1024^3 (parse_config: JSON, the
// config forms of every version and `mdh tune` results, the checks against the md_hom and a device), and a
// configuration that passes on to kernel generation. A UserError is the reader doing its job; every other exception,
// crash, hang or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mdh/bind.h"
#include "mdh/parser.h"
#include "pipeline/kernel.h"

namespace {

const char kGemm[] = R"(md_hom gemm
size   I J K
input  A : float[I][K]
input  B : float[K][J]
output C : float[I][J]
view   (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]
scalar (a, b) = a * b
combine (++, ++, +)
)";

const mdh::BoundMdh& gemm() {
  static const mdh::BoundMdh bound =
      mdh::bind(mdh::parse_spec(kGemm, "gemm.mdh"), {{"I", 1024}, {"J", 1024}, {"K", 1024}});
  return bound;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const mdh::DeviceLimits limits;
  try {
    const mdh::KernelConfig config = mdh::parse_config(text, "fuzz.json", gemm(), limits);
    mdh::prepare_kernel(gemm(), limits, mdh::KernelChoice::typed(config));
  } catch (const mdh::UserError&) {
  }
  return 0;
}
