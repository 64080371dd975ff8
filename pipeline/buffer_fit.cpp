#include "pipeline/buffer_fit.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "support/error.h"

namespace mdh {

namespace {

std::string gigabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

uint64_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) : 0;
}

void check_buffers_fit(const BoundMdh& bound, const DeviceInfo& device, uint64_t host_memory) {
  const Mdh& mdh = *bound.mdh;
  uint64_t device_total = 0;
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    const uint64_t bytes = bound.byte_size(static_cast<int>(b));
    if (device.max_alloc_bytes > 0 && bytes > device.max_alloc_bytes)
      throw UserError("buffer " + mdh.buffers[b].name + " of " + mdh.name + " needs " + gigabytes(bytes) +
                      " at these sizes, more than the largest allocation of " + device.name + " (" +
                      gigabytes(device.max_alloc_bytes) + ")");
    device_total += bytes;
  }
  if (device.global_mem_bytes > 0 && device_total > device.global_mem_bytes)
    throw UserError("the buffers of " + mdh.name + " need " + gigabytes(device_total) +
                    " at these sizes, more than the global memory of " + device.name + " (" +
                    gigabytes(device.global_mem_bytes) + ")");
  // The host holds every buffer, and the reference output in double precision (at most twice a float output).
  uint64_t host_total = device_total + 2 * bound.byte_size(bound.output.buffer);
  if (device.type & CL_DEVICE_TYPE_CPU) host_total += device_total;  // the device's copies live in host memory
  if (host_memory > 0 && host_total > host_memory)
    throw UserError("a run of " + mdh.name + " at these sizes holds about " + gigabytes(host_total) +
                    " on the host, more than its " + gigabytes(host_memory) + " of memory");
}

}  // namespace mdh
