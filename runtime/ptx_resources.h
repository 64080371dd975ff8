// What a PTX program (NVIDIA's OpenCL program binary) declares per kernel: virtual registers, local and shared
// memory. The fallback of `mdh inspect` where the build log has no ptxas lines: PTX is what the driver's front end
// emits before ptxas allocates registers, so these are upper-bound hints, not the allocation (see ptxas_log.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mdh {

struct PtxEntryResources {
  std::string kernel_name;
  uint64_t virtual_registers = 0;  // the sum of the `.reg .T %x<N>;` declarations (N each; 1 for a plain name)
  uint64_t local_bytes = 0;        // `.local` arrays: the per-work-item stack (private arrays not kept in registers)
  uint64_t shared_bytes = 0;       // `.shared` arrays declared in the entry (OpenCL __local, "demoted variables")
};

/// The PTX text of NVIDIA's OpenCL program binary: the binary ends in NUL bytes (a C string's terminator), which
/// ptxas takes for text ("Unexpected EOF"), so they are dropped; anything else is kept as it is.
std::string ptx_text_of_binary(const std::vector<unsigned char>& binary);

/// One record per `.entry` of `ptx`, in order; empty for text without entries (e.g. a binary that is not PTX).
std::vector<PtxEntryResources> parse_ptx_entries(const std::string& ptx);

}  // namespace mdh
