#include "runtime/context.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

#include "runtime/driver_output.h"
#include "runtime/opencl_error.h"
#include "support/error.h"

namespace mdh {

std::string program_build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS) return "";
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) return "";
  return log.c_str();
}

std::vector<unsigned char> program_binary(cl_program program) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0)
    return {};
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr) != CL_SUCCESS) return {};
  return binary;
}

namespace {
bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// Clang's closing summary ("1 error generated.", "2 warnings and 1 error generated.") repeats what the
// lines above already say.
// PoCL closes its log with "Device <name> failed to build the program", which the message already says.
bool is_summary_line(const std::string& line) {
  if (line.rfind("Device ", 0) == 0 && line.find(" failed to build the program") != std::string::npos) return true;
  return line.size() > 11 && line.compare(line.size() - 11, 11, " generated.") == 0 &&
         (line.find("error") != std::string::npos || line.find("warning") != std::string::npos);
}
}  // namespace

std::string trim_build_log(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (is_summary_line(line)) continue;
    // Clang-based compilers (PoCL) print "error: FILE:LINE:COL: message" for code under a #line directive;
    // put it in the usual "FILE:LINE:COL: error: message" order so spec positions read like every other diagnostic.
    static const std::regex kMisplacedSeverity(R"(^(error|warning|note): ([^ :][^:]*:[0-9]+:[0-9]+): (.*)$)");
    line = std::regex_replace(line, kMisplacedSeverity, "$2: $1: $3");
    lines.push_back(line);
  }
  size_t begin = 0, end = lines.size();
  while (begin < end && is_blank(lines[begin])) ++begin;
  while (end > begin && is_blank(lines[end - 1])) --end;
  std::string out;
  for (size_t k = begin; k < end; ++k) out += lines[k] + (k + 1 < end ? "\n" : "");
  return out;
}

// ---------------------------------------------------------------------------------------------- DeviceBuffer

DeviceBuffer::DeviceBuffer(Context& context, size_t bytes) : queue_(context.queue()), bytes_(bytes) {
  MDH_INTERNAL_ASSERT(bytes > 0, "device buffers must not be empty");
  if (bytes > context.device().max_alloc_bytes)
    throw UserError("a device buffer of " + std::to_string(bytes) + " bytes exceeds the maximum allocation of " +
                    std::to_string(context.device().max_alloc_bytes) + " bytes of device '" + context.device().name +
                    "'");
  cl_int status = CL_SUCCESS;
  mem_ = ClMem(clCreateBuffer(context.context(), CL_MEM_READ_WRITE, bytes, nullptr, &status));
  check(status, "clCreateBuffer (" + std::to_string(bytes) + " bytes)");
}

void DeviceBuffer::write(const void* host, size_t bytes) {
  MDH_INTERNAL_ASSERT(bytes == bytes_,
                      "write of " + std::to_string(bytes) + " bytes into a buffer of " + std::to_string(bytes_));
  check(clEnqueueWriteBuffer(queue_, mem_.get(), CL_TRUE, 0, bytes, host, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
}

void DeviceBuffer::fill(unsigned char byte) {
  if (bytes_ == 0) return;
  check(clEnqueueFillBuffer(queue_, mem_.get(), &byte, sizeof byte, 0, bytes_, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
  check(clFinish(queue_), "clFinish");
}

void DeviceBuffer::read(void* host, size_t bytes) const {
  MDH_INTERNAL_ASSERT(bytes == bytes_,
                      "read of " + std::to_string(bytes) + " bytes from a buffer of " + std::to_string(bytes_));
  check(clEnqueueReadBuffer(queue_, mem_.get(), CL_TRUE, 0, bytes, host, 0, nullptr, nullptr), "clEnqueueReadBuffer");
}

std::vector<unsigned char> DeviceBuffer::read() const {
  std::vector<unsigned char> host(bytes_);
  read(host.data(), host.size());
  return host;
}

// ---------------------------------------------------------------------------------------------- Context

Context::Context(const DeviceInfo& device) : device_(device) {
  cl_int status = CL_SUCCESS;
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(device.platform),
                                        0};
  context_ = ClContext(clCreateContext(properties, 1, &device_.device, nullptr, nullptr, &status));
  check(status, "clCreateContext for device '" + device.name + "'");
  // In order, so that the kernels of a plan run one after the other; profiling for kernel times.
  queue_ = ClQueue(clCreateCommandQueue(context_.get(), device_.device, CL_QUEUE_PROFILING_ENABLE, &status));
  check(status, "clCreateCommandQueue for device '" + device.name + "'");
}

cl_program Context::program(const std::string& source, const std::string& options) {
  auto key = std::make_pair(source, options);
  if (auto found = programs_.find(key); found != programs_.end()) return found->second.program.get();

  cl_int status = CL_SUCCESS;
  if (binary_cache_) {
    if (auto cached_binary = binary_cache_->load(device_, source, options)) {
      const unsigned char* data = cached_binary->binary.data();
      size_t size = cached_binary->binary.size();
      cl_int binary_status = CL_SUCCESS;
      ClProgram cached(
          clCreateProgramWithBinary(context_.get(), 1, &device_.device, &size, &data, &binary_status, &status));
      if (status == CL_SUCCESS && binary_status == CL_SUCCESS &&
          clBuildProgram(cached.get(), 1, &device_.device, options.c_str(), nullptr, nullptr) == CL_SUCCESS) {
        ++binary_cache_hits_;
        cl_program handle = cached.get();
        programs_.emplace(std::move(key), BuiltProgram{std::move(cached), std::move(cached_binary->build_log)});
        return handle;
      }
      // A binary the driver no longer accepts: build from source as if it were not there.
    }
  }
  const char* text = source.c_str();
  size_t length = source.size();
  ClProgram program(clCreateProgramWithSource(context_.get(), 1, &text, &length, &status));
  check(status, "clCreateProgramWithSource");
  std::optional<DriverOutputCapture> capture;
  if (capture_driver_output_) capture.emplace();
  status = clBuildProgram(program.get(), 1, &device_.device, options.c_str(), nullptr, nullptr);
  const std::string driver_output = capture ? capture->finish() : "";
  if (status == CL_BUILD_PROGRAM_FAILURE || status == CL_INVALID_BUILD_OPTIONS) {
    std::string log = trim_build_log(program_build_log(program.get(), device_.device));
    std::string message = status == CL_BUILD_PROGRAM_FAILURE ? "OpenCL build failed on device '" + device_.name + "'"
                                                             : "OpenCL rejected the build options '" + options + "'";
    message += log.empty() ? std::string(" (empty build log)") : ":\n" + log;
    // What the driver printed by itself is mostly the log again and clang's summary; keep anything beyond that.
    const std::string printed = trim_build_log(driver_output);
    if (!printed.empty() && log.find(printed) == std::string::npos) message += "\nthe driver also printed:\n" + printed;
    throw UserError(message);
  }
  if (!driver_output.empty()) std::cerr << driver_output << std::flush;  // warnings of a successful build
  check(status, "clBuildProgram");
  std::string log = program_build_log(program.get(), device_.device);
  BuiltProgram built{std::move(program), std::move(log)};
  if (binary_cache_ && store_binaries_at_build_)
    if (std::vector<unsigned char> binary = program_binary(built.program.get()); !binary.empty())
      binary_cache_->store(device_, source, options, {std::move(binary), built.build_log});
  cl_program handle = built.program.get();
  programs_.emplace(std::move(key), std::move(built));
  return handle;
}

void Context::store_binary(const std::string& source, const std::string& options) {
  const auto found = programs_.find(std::make_pair(source, options));
  MDH_INTERNAL_ASSERT(found != programs_.end(), "store_binary of a program that was never built");
  if (!binary_cache_) return;
  if (std::vector<unsigned char> binary = program_binary(found->second.program.get()); !binary.empty())
    binary_cache_->store(device_, source, options, {std::move(binary), found->second.build_log});
}

const std::string& Context::build_log(const std::string& source, const std::string& options) const {
  const auto found = programs_.find(std::make_pair(source, options));
  MDH_INTERNAL_ASSERT(found != programs_.end(), "build_log of a program that was never built");
  return found->second.build_log;
}

cl_kernel Context::kernel(cl_program program, const std::string& name) {
  auto key = std::make_pair(program, name);
  if (auto found = kernels_.find(key); found != kernels_.end()) return found->second.get();
  cl_int status = CL_SUCCESS;
  ClKernel kernel(clCreateKernel(program, name.c_str(), &status));
  check(status, "clCreateKernel '" + name + "'");
  cl_kernel handle = kernel.get();
  kernels_.emplace(std::move(key), std::move(kernel));
  return handle;
}

cl_mem Context::scratch(size_t index, size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);  // OpenCL has no empty buffers; a plan may declare an unused 0-byte slot
  if (scratch_.size() <= index) scratch_.resize(index + 1);
  if (scratch_[index].bytes() < bytes) {
    scratch_left_zero_by_ = nullptr;   // a new buffer's contents are undefined
    scratch_[index] = DeviceBuffer();  // free the smaller one before allocating the larger
    scratch_[index] = DeviceBuffer(*this, bytes);
  }
  return scratch_[index].get();
}

void Context::finish() {
  check(clFinish(queue_.get()), "clFinish");
}

}  // namespace mdh
