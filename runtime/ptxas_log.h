// What NVIDIA's PTX assembler says about each kernel when asked to be verbose (OpenCL build option
// `-cl-nv-verbose`, passed on as `ptxas --verbose`): registers, spills, stack, shared and constant memory, read
// from the lines it leaves in the build log. Plain text in, plain data out; no OpenCL calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mdh {

/// Asks NVIDIA's driver to pass `--verbose` to ptxas, whose lines then stand in the build log (cl_nv_compiler_options).
inline constexpr const char* kNvidiaVerboseBuildOption = "-cl-nv-verbose";

/// One entry function (an OpenCL kernel) as ptxas reported it. A value ptxas did not print stays empty; shared
/// and constant memory that it does not mention are 0 bytes (ptxas leaves zero sizes out of its "Used" line).
struct PtxasKernelReport {
  std::string kernel_name;  // the entry function: the OpenCL kernel's name ("" when the log never named it)
  std::string arch;         // "sm_90"
  std::optional<uint64_t> registers;
  std::optional<uint64_t> stack_frame_bytes;
  std::optional<uint64_t> spill_store_bytes;
  std::optional<uint64_t> spill_load_bytes;
  std::optional<uint64_t> shared_bytes;    // "N bytes smem": static shared memory (OpenCL __local)
  std::optional<uint64_t> constant_bytes;  // the sum of the "N bytes cmem[k]" banks
  std::optional<uint64_t> barriers;        // "used N barriers" (newer ptxas only)

  /// Whether the kernel spills registers to local memory (either direction reported non-zero).
  bool spills() const { return spill_store_bytes.value_or(0) > 0 || spill_load_bytes.value_or(0) > 0; }
};

/// The kernels a ptxas --verbose log reports, in the order it compiled them. Lines of the forms
///   ptxas info    : Compiling entry function 'NAME' for 'ARCH'
///   ptxas info    : Function properties for NAME
///   ptxas         .     S bytes stack frame, T bytes spill stores, U bytes spill loads
///   ptxas info    : Used R registers, used B barriers, M bytes smem, C bytes cmem[0]
/// are read wherever they stand (any prefix, CRLF endings; nvcc's form without the "ptxas ." before the
/// properties line too); every other line is ignored. Properties of functions that are not entries (non-inlined
/// callees) are not attributed to a kernel. Empty for a log without such lines (PoCL, or NVIDIA without
/// -cl-nv-verbose).
std::vector<PtxasKernelReport> parse_ptxas_log(const std::string& log);

}  // namespace mdh
