// mdh_runner.hpp: runs a kernel that `mdh export` wrote (NAME.cl + NAME.launch.json) on an application's own
// OpenCL context, queue and buffers. Header-only; needs nothing but the OpenCL C headers and nlohmann/json.hpp.
//
//   auto plan = mdh_runner::Plan::load("exported/", "gemm");          // reads exported/gemm.cl and .launch.json
//   mdh_runner::Runner gemm(context, device, queue, std::move(plan));  // builds once, allocates scratch buffers
//   gemm.run({{"A", a}, {"B", b}, {"C", c}});                         // every kernel of the plan, in order
//
// mdh keeps this file in runtime/ and `mdh export` copies it verbatim; it includes nothing of mdh.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mdh_runner {

/// Every failure: an unreadable or malformed file, an OpenCL error (named, with the build log for a failed build),
/// a missing, unknown or too small buffer, a param that was not set or has the wrong size.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A buffer of the spec: the application passes it as a cl_mem of at least `bytes` bytes, row-major.
struct Buffer {
  std::string name;
  std::string kind;  // "input", "table" or "output"
  std::string type;  // OpenCL C element type, e.g. "float"
  uint64_t element_bytes = 0;
  std::vector<int64_t> extents;
  uint64_t bytes = 0;
};

/// A `param` of the spec: passed by value, set with Runner::set_param.
struct Param {
  std::string name;
  std::string type;
  uint64_t bytes = 0;
};

struct Arg {
  enum class Kind { Buffer, Scratch, Param };
  Kind kind = Kind::Buffer;
  std::string name;  // Buffer, Param
  int scratch = -1;  // Scratch: index into Plan::scratch_bytes
};

struct Launch {
  std::string kernel_name;
  cl_uint work_dims = 1;
  size_t global_size[3] = {1, 1, 1};
  bool has_local_size = false;  // false: OpenCL chooses the work-group size
  size_t local_size[3] = {1, 1, 1};
  std::vector<Arg> args;
};

/// The exported program and how to launch it.
struct Plan {
  std::string md_hom;
  std::string source;
  std::string build_options;
  std::map<std::string, int64_t> sizes;  // the size binding it was generated for, e.g. I, J, K
  std::vector<Buffer> buffers;           // empty for launch files of older mdh versions (sizes are then unchecked)
  std::vector<Param> params;
  std::vector<uint64_t> scratch_bytes;
  std::vector<bool> scratch_zeroed;  // per scratch buffer: it must be zero before the first launch (kernels keep it so)
  std::vector<Launch> kernels;       // enqueued in this order

  const Buffer& buffer(const std::string& name) const {
    for (const Buffer& b : buffers)
      if (b.name == name) return b;
    throw Error("mdh_runner: " + md_hom + " has no buffer '" + name + "'");
  }
  int64_t size(const std::string& name) const {
    auto found = sizes.find(name);
    if (found == sizes.end()) throw Error("mdh_runner: " + md_hom + " has no size '" + name + "'");
    return found->second;
  }

  /// `launch` is what `mdh generate --launch` / `mdh export` wrote; `where` names it in messages.
  static Plan from_json(std::string source, const nlohmann::json& launch,
                        const std::string& where = "launch description") {
    Plan plan;
    plan.source = std::move(source);
    try {
      plan.md_hom = launch.value("md_hom", std::string("kernel"));
      plan.build_options = launch.at("build_options").get<std::string>();
      if (launch.contains("sizes")) plan.sizes = launch.at("sizes").get<std::map<std::string, int64_t>>();
      if (launch.contains("buffers"))
        for (const auto& b : launch.at("buffers"))
          plan.buffers.push_back(
              {b.at("name"), b.at("kind"), b.at("type"), b.at("element_bytes"), b.at("extents"), b.at("bytes")});
      if (launch.contains("params"))
        for (const auto& p : launch.at("params")) plan.params.push_back({p.at("name"), p.at("type"), p.at("bytes")});
      for (const auto& s : launch.at("scratch")) {
        plan.scratch_bytes.push_back(s.at("bytes").get<uint64_t>());
        plan.scratch_zeroed.push_back(s.value("zeroed", false));
      }
      for (const auto& k : launch.at("kernels")) {
        Launch l;
        l.kernel_name = k.at("name").get<std::string>();
        l.work_dims = k.at("work_dims").get<cl_uint>();
        const auto global = k.at("global_size").get<std::vector<uint64_t>>();
        if (l.work_dims < 1 || l.work_dims > 3 || global.size() != l.work_dims)
          throw Error(where + ": kernel '" + l.kernel_name + "': work_dims and global_size disagree");
        for (cl_uint d = 0; d < l.work_dims; ++d) l.global_size[d] = static_cast<size_t>(global[d]);
        if (!k.at("local_size").is_null()) {
          const auto local = k.at("local_size").get<std::vector<uint64_t>>();
          if (local.size() != l.work_dims)
            throw Error(where + ": kernel '" + l.kernel_name + "': local_size has the wrong length");
          l.has_local_size = true;
          for (cl_uint d = 0; d < l.work_dims; ++d) l.local_size[d] = static_cast<size_t>(local[d]);
        }
        for (const auto& a : k.at("args")) {
          const std::string kind = a.at("kind");
          Arg arg;
          if (kind == "buffer") {
            arg.kind = Arg::Kind::Buffer, arg.name = a.at("name");
          } else if (kind == "param") {
            arg.kind = Arg::Kind::Param, arg.name = a.at("name");
          } else if (kind == "scratch") {
            arg.kind = Arg::Kind::Scratch, arg.scratch = a.at("scratch");
          } else {
            throw Error(where + ": unknown argument kind '" + kind + "'");
          }
          if (arg.kind == Arg::Kind::Scratch &&
              (arg.scratch < 0 || static_cast<size_t>(arg.scratch) >= plan.scratch_bytes.size()))
            throw Error(where + ": kernel '" + l.kernel_name + "' names scratch buffer " + std::to_string(arg.scratch) +
                        " of " + std::to_string(plan.scratch_bytes.size()));
          l.args.push_back(arg);
        }
        plan.kernels.push_back(std::move(l));
      }
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + ": " + e.what());
    }
    if (plan.kernels.empty()) throw Error(where + ": no kernels");
    return plan;
  }

  /// Reads the OpenCL C file and the launch description.
  static Plan load_files(const std::string& cl_path, const std::string& launch_path) {
    nlohmann::json launch;
    try {
      launch = nlohmann::json::parse(read_file(launch_path));
    } catch (const nlohmann::json::exception& e) {
      throw Error(launch_path + ": not valid JSON: " + e.what());
    }
    return from_json(read_file(cl_path), launch, launch_path);
  }

  /// Reads DIRECTORY/MD_HOM.cl and DIRECTORY/MD_HOM.launch.json, as `mdh export` names them.
  static Plan load(const std::string& directory, const std::string& md_hom) {
    const std::string base = directory + (directory.empty() || directory.back() == '/' ? "" : "/") + md_hom;
    return load_files(base + ".cl", base + ".launch.json");
  }

 private:
  static std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot read the file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

inline std::string error_name(cl_int code) {
  switch (code) {
    case CL_DEVICE_NOT_AVAILABLE:
      return "CL_DEVICE_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
      return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE:
      return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT:
      return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE:
      return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT:
      return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BUILD_OPTIONS:
      return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM_EXECUTABLE:
      return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME:
      return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_ARG_INDEX:
      return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE:
      return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE:
      return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_DIMENSION:
      return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
      return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
      return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_EVENT_WAIT_LIST:
      return "CL_INVALID_EVENT_WAIT_LIST";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_PROFILING_INFO_NOT_AVAILABLE:
      return "CL_PROFILING_INFO_NOT_AVAILABLE";
    default:
      return "OpenCL error " + std::to_string(code);
  }
}

inline void check(cl_int code, const std::string& what) {
  if (code != CL_SUCCESS) throw Error("mdh_runner: " + what + ": " + error_name(code));
}

/// The events of one run of a plan, one per kernel, released on destruction.
class Events {
 public:
  Events() = default;
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  Events(Events&& other) noexcept : events_(std::move(other.events_)), names_(std::move(other.names_)) {
    other.events_.clear();
  }
  Events& operator=(Events&& other) noexcept {
    std::swap(events_, other.events_);
    std::swap(names_, other.names_);
    return *this;
  }
  ~Events() {
    for (cl_event e : events_) clReleaseEvent(e);
  }

  /// Blocks until every kernel finished; throws naming the first kernel that failed.
  void wait() const {
    if (events_.empty()) return;
    const cl_int wait_status = clWaitForEvents(static_cast<cl_uint>(events_.size()), events_.data());
    for (size_t k = 0; k < events_.size(); ++k) {
      cl_int status = CL_COMPLETE;
      check(clGetEventInfo(events_[k], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
            "clGetEventInfo");
      if (status < 0) check(status, "running kernel '" + names_[k] + "'");
    }
    check(wait_status, "waiting for the kernels");
  }

  /// Device time of all kernels together (sum of END - START), in nanoseconds. Needs a queue created with
  /// CL_QUEUE_PROFILING_ENABLE and finished kernels (call wait() first).
  uint64_t device_ns() const {
    uint64_t total = 0;
    for (size_t k = 0; k < events_.size(); ++k) {
      cl_ulong start = 0, end = 0;
      const std::string what =
          "profiling kernel '" + names_[k] + "' (was the queue created with CL_QUEUE_PROFILING_ENABLE?)";
      check(clGetEventProfilingInfo(events_[k], CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), what);
      check(clGetEventProfilingInfo(events_[k], CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), what);
      total += end > start ? end - start : 0;
    }
    return total;
  }

  /// One event per kernel, in plan order (still owned by this object).
  const std::vector<cl_event>& events() const { return events_; }

 private:
  friend class Runner;
  std::vector<cl_event> events_;
  std::vector<std::string> names_;
};

/// One exported plan, built for one device. Not thread-safe: kernel arguments are set at each enqueue, and the
/// scratch buffers are shared by all runs, so two runs must not overlap (use one Runner per concurrent stream).
class Runner {
 public:
  /// Builds the program (Error with the build log on failure), creates its kernels and scratch buffers. The
  /// handles are retained, so the caller may release its own references.
  Runner(cl_context context, cl_device_id device, cl_command_queue queue, Plan plan)
      : plan_(std::move(plan)), device_(device) {
    try {
      check(clRetainContext(context), "clRetainContext");
      context_ = context;
      check(clRetainCommandQueue(queue), "clRetainCommandQueue");
      queue_ = queue;
      build();
    } catch (...) {
      release();
      throw;
    }
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner() { release(); }

  const Plan& plan() const { return plan_; }

  /// Sets a `param` of the spec; T must have the param's size (e.g. float for a `float` param).
  template <class T>
  void set_param(const std::string& name, const T& value) {
    set_param_bytes(name, &value, sizeof value);
  }
  void set_param_bytes(const std::string& name, const void* data, size_t bytes) {
    bool taken = false;
    for (const Launch& launch : plan_.kernels)
      for (const Arg& arg : launch.args) taken = taken || (arg.kind == Arg::Kind::Param && arg.name == name);
    if (!taken) throw Error("mdh_runner: " + plan_.md_hom + " takes no param '" + name + "'");
    for (const Param& p : plan_.params)
      if (p.name == name && p.bytes != bytes)
        throw Error("mdh_runner: param '" + name + "' is a " + p.type + " of " + std::to_string(p.bytes) +
                    " bytes, given " + std::to_string(bytes));
    const unsigned char* begin = static_cast<const unsigned char*>(data);
    params_[name].assign(begin, begin + bytes);
  }

  /// Enqueues every kernel of the plan in order, each waiting for the one before (so out-of-order queues work
  /// too), the first for `wait_list`. `buffers` maps each spec buffer the kernels take to a cl_mem of at least
  /// Buffer::bytes bytes. Returns without waiting.
  Events enqueue(const std::map<std::string, cl_mem>& buffers, const std::vector<cl_event>& wait_list = {}) {
    check_arguments(buffers);  // before the first enqueue: a run starts whole or not at all
    Events events;
    for (const Launch& launch : plan_.kernels) {
      cl_kernel kernel = kernels_.at(launch.kernel_name);
      for (size_t a = 0; a < launch.args.size(); ++a) {
        const Arg& arg = launch.args[a];
        const cl_uint index = static_cast<cl_uint>(a);
        const std::string what = "setting argument " + std::to_string(a) + " of kernel '" + launch.kernel_name + "'";
        if (arg.kind == Arg::Kind::Buffer) {
          const cl_mem mem = buffers.at(arg.name);
          check(clSetKernelArg(kernel, index, sizeof(cl_mem), &mem), what);
        } else if (arg.kind == Arg::Kind::Scratch) {
          check(clSetKernelArg(kernel, index, sizeof(cl_mem), &scratch_[arg.scratch]), what);
        } else {
          const std::vector<unsigned char>& value = params_.at(arg.name);
          check(clSetKernelArg(kernel, index, value.size(), value.data()), what);
        }
      }
      const std::vector<cl_event> waits =
          events.events_.empty() ? wait_list : std::vector<cl_event>{events.events_.back()};
      cl_event event = nullptr;
      check(clEnqueueNDRangeKernel(queue_, kernel, launch.work_dims, nullptr, launch.global_size,
                                   launch.has_local_size ? launch.local_size : nullptr,
                                   static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(), &event),
            "launching kernel '" + launch.kernel_name + "'");
      events.events_.push_back(event);
      events.names_.push_back(launch.kernel_name);
    }
    return events;
  }

  /// enqueue, then wait. Events::device_ns() of the result is the plan's device time (on a profiling queue).
  Events run(const std::map<std::string, cl_mem>& buffers) {
    Events events = enqueue(buffers);
    events.wait();
    return events;
  }

 private:
  void build() {
    const char* text = plan_.source.c_str();
    const size_t length = plan_.source.size();
    cl_int status = CL_SUCCESS;
    program_ = clCreateProgramWithSource(context_, 1, &text, &length, &status);
    check(status, "clCreateProgramWithSource");
    status = clBuildProgram(program_, 1, &device_, plan_.build_options.c_str(), nullptr, nullptr);
    if (status != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      if (size) clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr);
      throw Error("mdh_runner: building " + plan_.md_hom + ": " + error_name(status) + "\n" + log);
    }
    for (const Launch& launch : plan_.kernels) {
      if (kernels_.count(launch.kernel_name)) continue;
      cl_kernel kernel = clCreateKernel(program_, launch.kernel_name.c_str(), &status);
      check(status, "creating kernel '" + launch.kernel_name + "'");
      kernels_[launch.kernel_name] = kernel;
    }
    // Scratch buffers are read only after they are written, except those marked zeroed (counts of work-groups),
    // which start at zero and which the kernels leave at zero.
    for (size_t s = 0; s < plan_.scratch_bytes.size(); ++s) {
      const size_t bytes = static_cast<size_t>(plan_.scratch_bytes[s] ? plan_.scratch_bytes[s] : 1);
      std::vector<unsigned char> zeros;
      if (s < plan_.scratch_zeroed.size() && plan_.scratch_zeroed[s]) zeros.assign(bytes, 0);
      cl_mem mem = clCreateBuffer(context_, CL_MEM_READ_WRITE | (zeros.empty() ? 0 : CL_MEM_COPY_HOST_PTR), bytes,
                                  zeros.empty() ? nullptr : zeros.data(), &status);
      check(status, "allocating a scratch buffer of " + std::to_string(bytes) + " bytes");
      scratch_.push_back(mem);
    }
  }

  // Every buffer a kernel takes must be given, and every given name must be a buffer of the plan (a typo would
  // otherwise only show as a missing buffer); sizes are checked where the launch file states them. Every param
  // must be set.
  void check_arguments(const std::map<std::string, cl_mem>& buffers) const {
    for (const auto& [name, mem] : buffers) {
      bool taken = false;
      for (const Launch& launch : plan_.kernels)
        for (const Arg& arg : launch.args) taken = taken || (arg.kind == Arg::Kind::Buffer && arg.name == name);
      if (!taken)
        throw Error("mdh_runner: " + plan_.md_hom + " takes no buffer '" + name + "' (buffers: " + buffer_names() +
                    ")");
      if (!mem) throw Error("mdh_runner: buffer '" + name + "' is a null cl_mem");
      for (const Buffer& b : plan_.buffers) {
        if (b.name != name) continue;
        size_t size = 0;
        check(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr),
              "reading the size of buffer '" + name + "'");
        if (size < b.bytes)
          throw Error("mdh_runner: buffer '" + name + "' has " + std::to_string(size) + " bytes; " + plan_.md_hom +
                      " needs " + std::to_string(b.bytes) + " (" + b.type + extents_text(b.extents) + ")");
      }
    }
    for (const Launch& launch : plan_.kernels)
      for (const Arg& arg : launch.args)
        if (arg.kind == Arg::Kind::Buffer && !buffers.count(arg.name))
          throw Error("mdh_runner: buffer '" + arg.name + "' is missing (kernel '" + launch.kernel_name +
                      "' takes it; buffers: " + buffer_names() + ")");
        else if (arg.kind == Arg::Kind::Param && !params_.count(arg.name))
          throw Error("mdh_runner: param '" + arg.name + "' is not set (Runner::set_param)");
  }

  std::string buffer_names() const {
    std::string names;
    for (const Launch& launch : plan_.kernels)
      for (const Arg& arg : launch.args)
        if (arg.kind == Arg::Kind::Buffer && (", " + names + ", ").find(", " + arg.name + ", ") == std::string::npos)
          names += (names.empty() ? "" : ", ") + arg.name;
    return names;
  }

  static std::string extents_text(const std::vector<int64_t>& extents) {
    std::string text;
    for (int64_t e : extents) text.append(1, '[').append(std::to_string(e)).append(1, ']');
    return text;
  }

  void release() {
    for (cl_mem mem : scratch_) clReleaseMemObject(mem);
    for (const auto& [name, kernel] : kernels_) clReleaseKernel(kernel);
    if (program_) clReleaseProgram(program_);
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
    scratch_.clear();
    kernels_.clear();
    program_ = nullptr;
    queue_ = nullptr;
    context_ = nullptr;
  }

  Plan plan_;
  cl_context context_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::map<std::string, cl_kernel> kernels_;
  std::vector<cl_mem> scratch_;
  std::map<std::string, std::vector<unsigned char>> params_;
};

}  // namespace mdh_runner
