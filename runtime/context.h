// One OpenCL device in use: its context, an in-order profiling queue, a cache of built programs and kernels,
// and device buffers. Everything owned here is released when the Context goes.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/binary_cache.h"
#include "runtime/device.h"
#include "runtime/opencl_handle.h"

namespace mdh {

class Context;

/// A device buffer of a fixed byte size. Reads and writes are blocking and cover the whole buffer.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Context& context, size_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : queue_(other.queue_), mem_(std::move(other.mem_)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    queue_ = other.queue_;
    mem_ = std::move(other.mem_);
    bytes_ = std::exchange(other.bytes_, 0);
    return *this;
  }

  cl_mem get() const { return mem_.get(); }
  size_t bytes() const { return bytes_; }

  /// Copies `bytes()` bytes from host memory to the device.
  void write(const void* host, size_t bytes);
  void write(const std::vector<unsigned char>& host) { write(host.data(), host.size()); }
  /// Sets every byte to `byte` on the device (no host copy, no transfer) and waits until it is done.
  void fill(unsigned char byte);
  /// Copies the whole buffer to host memory.
  void read(void* host, size_t bytes) const;
  std::vector<unsigned char> read() const;

 private:
  cl_command_queue queue_ = nullptr;  // borrowed from the Context, which must outlive the buffer
  ClMem mem_;
  size_t bytes_ = 0;
};

class Context {
 public:
  explicit Context(const DeviceInfo& device);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& device() const { return device_; }
  cl_context context() const { return context_.get(); }
  cl_command_queue queue() const { return queue_.get(); }

  /// The program built from `source` with `options` for this device; built once, then cached for the
  /// Context's lifetime. A build failure throws UserError carrying the build log (the generated code's #line
  /// directives make the log point at spec lines).
  cl_program program(const std::string& source, const std::string& options);
  /// The log of the build that made program(source, options), which must have been called: the driver's log of the
  /// compile, also for a program loaded from the binary cache (the cache keeps it beside the binary, since the
  /// driver's log of loading a binary says nothing of the compile that made it).
  const std::string& build_log(const std::string& source, const std::string& options) const;
  /// Kernel `name` of a program returned by program(); cached. A missing kernel throws UserError.
  cl_kernel kernel(cl_program program, const std::string& name);

  /// A scratch buffer of at least `bytes` for slot `index`; reused across calls (scratch contents are never
  /// assumed, so a larger buffer from an earlier plan serves as well).
  cl_mem scratch(size_t index, size_t bytes);
  /// Frees the scratch buffers (e.g. between tuning runs of very different sizes).
  void release_scratch() {
    scratch_.clear();
    scratch_left_zero_by_ = nullptr;
  }
  /// Which program's kernels ran last on the scratch buffers, to completion: they leave the buffers a plan marks
  /// `zeroed` at zero, so the next call of the same program needs no fill (as mdh_runner.hpp's Runner zeroes them
  /// once). nullptr: unknown (new buffers, another program, or a call that failed).
  cl_program scratch_left_zero_by() const { return scratch_left_zero_by_; }
  void set_scratch_left_zero_by(cl_program program) { scratch_left_zero_by_ = program; }

  DeviceBuffer create_buffer(size_t bytes) { return DeviceBuffer(*this, bytes); }
  /// Blocks until every command of the queue has finished.
  void finish();

  size_t cached_program_count() const { return programs_.size(); }

  /// Built programs are also looked up in and stored to this folder (see runtime/binary_cache.h).
  void use_binary_cache(std::shared_ptr<const BinaryCache> cache) { binary_cache_ = std::move(cache); }
  /// How many programs were loaded from the binary cache instead of compiled.
  size_t binary_cache_hits() const { return binary_cache_hits_; }
  /// Whether program() stores a program it built into the binary cache right away (the default), or leaves that to
  /// store_binary: PoCL serialises a program's binary once, at the first query, so a process that launches the
  /// kernels to compile them (runtime/first_launch.h) must not query it before.
  void store_binaries_at_build(bool on) { store_binaries_at_build_ = on; }
  /// Stores the binary of program(source, options), which must have been called, into the binary cache as the
  /// driver gives it now (PoCL's with the work-group functions that launches compiled). Nothing without a cache.
  void store_binary(const std::string& source, const std::string& options);

  /// Whether builds capture what the driver prints to stderr meanwhile (runtime/driver_output.h), so that a failed
  /// build's message comes first. On by default; off for contexts that compile in parallel threads, since a capture
  /// makes builds of the whole process take turns.
  void capture_driver_output(bool on) { capture_driver_output_ = on; }

 private:
  DeviceInfo device_;
  ClContext context_;
  ClQueue queue_;
  struct BuiltProgram {
    ClProgram program;
    std::string build_log;
  };
  // Keyed by (source, options): the device is this Context's. Declared before kernels_ so that kernels are
  // released first.
  std::map<std::pair<std::string, std::string>, BuiltProgram> programs_;
  std::map<std::pair<cl_program, std::string>, ClKernel> kernels_;
  std::vector<DeviceBuffer> scratch_;
  cl_program scratch_left_zero_by_ = nullptr;
  std::shared_ptr<const BinaryCache> binary_cache_;
  size_t binary_cache_hits_ = 0;
  bool capture_driver_output_ = true;
  bool store_binaries_at_build_ = true;
};

/// The driver's build log of `program` for `device`, as it is ("" when the driver gives none).
std::string program_build_log(cl_program program, cl_device_id device);
/// The program binary the driver gives for a program built for one device (CL_PROGRAM_BINARIES): PTX text on
/// NVIDIA, PoCL's own container on PoCL. Empty when the driver gives none.
std::vector<unsigned char> program_binary(cl_program program);

/// The build log with the noise trimmed: surrounding blank lines and compiler summary lines such as
/// "1 error generated." are dropped; every other line is kept as is.
std::string trim_build_log(const std::string& log);

}  // namespace mdh
