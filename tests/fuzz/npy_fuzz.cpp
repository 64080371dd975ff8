// libFuzzer target: any byte string as an .npy input file (parse_npy: magic, version, header dict, dtype, shape and
// data size). The first byte picks the buffer the file must fit (float[3][4], double[5] or uchar[2][2][2]), the rest
// is the file. A UserError is the reader doing its job; every other exception, crash, hang or sanitizer report is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mdh/bind.h"
#include "mdh/parser.h"
#include "runtime/host_buffer.h"
#include "runtime/npy.h"

namespace {

const char kBuffers[] = R"(md_hom buffers
input  A : float[3][4]
input  B : double[5]
input  C : uchar[2][2][2]
output D : float[3]
view   (i < 3) : A[i][0], B[i], C[0][0][0] -> D[i]
scalar (a, b, c) = a
combine (++)
)";

const mdh::BoundMdh& buffers() {
  static const mdh::BoundMdh bound = mdh::bind(mdh::parse_spec(kBuffers, "buffers.mdh"), {});
  return bound;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  mdh::HostBuffer buffer = mdh::make_host_buffer(buffers(), data[0] % 3);
  const std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    mdh::parse_npy(file, buffer, "input", "fuzz.npy");
  } catch (const mdh::UserError&) {
  }
  return 0;
}
