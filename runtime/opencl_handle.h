// Reference-counted RAII wrappers for OpenCL objects: copying retains, destruction releases, so no handle leaks
// on any path, exceptions included.
#pragma once

#include <CL/cl.h>

#include <utility>

namespace mdh {

template <class Handle, cl_int (*Retain)(Handle), cl_int (*Release)(Handle)>
class OpenClHandle {
 public:
  OpenClHandle() = default;
  /// Takes ownership of one reference (what clCreate* returns).
  explicit OpenClHandle(Handle h) : handle_(h) {}
  OpenClHandle(const OpenClHandle& other) : handle_(other.handle_) {
    if (handle_) Retain(handle_);
  }
  OpenClHandle(OpenClHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  OpenClHandle& operator=(OpenClHandle other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  ~OpenClHandle() {
    if (handle_) Release(handle_);
  }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  Handle handle_ = nullptr;
};

using ClContext = OpenClHandle<cl_context, clRetainContext, clReleaseContext>;
using ClQueue = OpenClHandle<cl_command_queue, clRetainCommandQueue, clReleaseCommandQueue>;
using ClProgram = OpenClHandle<cl_program, clRetainProgram, clReleaseProgram>;
using ClKernel = OpenClHandle<cl_kernel, clRetainKernel, clReleaseKernel>;
using ClMem = OpenClHandle<cl_mem, clRetainMemObject, clReleaseMemObject>;
using ClEvent = OpenClHandle<cl_event, clRetainEvent, clReleaseEvent>;

}  // namespace mdh
