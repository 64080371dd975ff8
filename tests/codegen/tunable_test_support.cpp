#include "tests/codegen/tunable_test_support.h"

#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>

#include "codegen/config_json.h"
#include "codegen/reference_kernel.h"
#include "codegen/tunable_kernel.h"
#include "pipeline/tuning_search_space.h"
#include "tests/hopper_device_limits.h"

namespace mdh::testing {

namespace {

struct Device {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  // The first device of the first platform (PoCL in CI); MDH_TEST_DEVICE_TYPE=gpu|cpu picks the first device of
  // that type on any platform instead, so that the soak run can also exercise a GPU's real barriers and local memory.
  Device() {
    cl_platform_id platforms[16];
    cl_uint count = 0;
    if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS || count == 0)
      throw std::runtime_error("no OpenCL platform (install PoCL)");
    const char* wanted = std::getenv("MDH_TEST_DEVICE_TYPE");
    cl_device_type type = CL_DEVICE_TYPE_ALL;
    if (wanted && std::strcmp(wanted, "gpu") == 0)
      type = CL_DEVICE_TYPE_GPU;
    else if (wanted && std::strcmp(wanted, "cpu") == 0)
      type = CL_DEVICE_TYPE_CPU;
    else if (wanted && *wanted)
      throw std::runtime_error("MDH_TEST_DEVICE_TYPE must be gpu or cpu");
    const cl_uint searched = type == CL_DEVICE_TYPE_ALL ? 1 : std::min<cl_uint>(count, 16);
    for (cl_uint p = 0; p < searched && !device; ++p) {
      cl_uint found = 0;
      if (clGetDeviceIDs(platforms[p], type, 1, &device, &found) != CL_SUCCESS || found == 0) device = nullptr;
    }
    if (!device) throw std::runtime_error("no OpenCL device");
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) throw std::runtime_error("clCreateContext failed: " + std::to_string(err));
    queue = clCreateCommandQueue(context, device, 0, &err);
    if (err != CL_SUCCESS) throw std::runtime_error("clCreateCommandQueue failed: " + std::to_string(err));
  }
};

Device& device() {
  static Device d;
  return d;
}

std::string build_log(cl_program program) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device().device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device().device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

}  // namespace

// Tests decode and draw half and bfloat16 from their definitions, apart from the runtime's conversions
// (support/storage_float.h) and the kernels' (codegen/preamble.cpp).
double decode_storage_bits(ScalarType t, uint16_t bits) {
  const int fraction = t == ScalarType::Half ? 10 : 7;
  const int exponent_bits = 15 - fraction, bias = (1 << (exponent_bits - 1)) - 1;
  const int exponent = (bits >> fraction) & ((1 << exponent_bits) - 1);
  const int mantissa = bits & ((1 << fraction) - 1);
  const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
  if (exponent == (1 << exponent_bits) - 1) return mantissa != 0 ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - bias - fraction);
  return sign * std::ldexp(mantissa + (1 << fraction), exponent - bias - fraction);
}

uint16_t random_storage_bits(ScalarType t, std::mt19937_64& rng) {
  // Values in [0.125, 1): the two binades below 1, any fraction; no sums of them come near half's largest value.
  const int fraction = t == ScalarType::Half ? 10 : 7;
  const int bias = t == ScalarType::Half ? 15 : 127;
  const int exponent = bias - 3 + static_cast<int>(rng() % 3);
  return static_cast<uint16_t>((exponent << fraction) | static_cast<int>(rng() % (1u << fraction)));
}

namespace {

void fill_scalar(ScalarType t, unsigned char* at, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> real(0.05, 0.95);
  std::uniform_int_distribution<int> integer(-8, 8), natural(0, 15);
  switch (t) {
    case ScalarType::Float: {
      float v = static_cast<float>(real(rng));
      std::memcpy(at, &v, 4);
      return;
    }
    case ScalarType::Double: {
      double v = real(rng);
      std::memcpy(at, &v, 8);
      return;
    }
    case ScalarType::Int: {
      int32_t v = integer(rng);
      std::memcpy(at, &v, 4);
      return;
    }
    case ScalarType::Uint: {
      uint32_t v = natural(rng);
      std::memcpy(at, &v, 4);
      return;
    }
    case ScalarType::Long: {
      int64_t v = integer(rng);
      std::memcpy(at, &v, 8);
      return;
    }
    case ScalarType::Ulong: {
      uint64_t v = natural(rng);
      std::memcpy(at, &v, 8);
      return;
    }
    case ScalarType::Short: {
      int16_t v = static_cast<int16_t>(integer(rng));
      std::memcpy(at, &v, 2);
      return;
    }
    case ScalarType::Ushort: {
      uint16_t v = static_cast<uint16_t>(natural(rng));
      std::memcpy(at, &v, 2);
      return;
    }
    case ScalarType::Char: {
      int8_t v = static_cast<int8_t>(integer(rng));
      std::memcpy(at, &v, 1);
      return;
    }
    case ScalarType::Uchar: {
      uint8_t v = static_cast<uint8_t>(natural(rng));
      std::memcpy(at, &v, 1);
      return;
    }
    case ScalarType::Half:
    case ScalarType::Bfloat16: {
      const uint16_t v = random_storage_bits(t, rng);
      std::memcpy(at, &v, 2);
      return;
    }
  }
}

size_t scalar_count(const StructField& f) {
  size_t n = 1;
  for (int64_t e : f.array_extents) n *= static_cast<size_t>(e);
  return n;
}

// Compares one scalar; appends to `why` and returns false on a mismatch.
bool same_scalar(ScalarType t, const unsigned char* e, const unsigned char* a, double scale, double products,
                 std::string& why) {
  auto close = [&](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::fabs(x - y) <=
           1e-4 * std::max(std::fabs(x), std::fabs(y)) + 1e-5 * scale + products * (std::fabs(x) + scale);
  };
  double x = 0, y = 0;
  bool floating = false;
  switch (t) {
    case ScalarType::Half:
    case ScalarType::Bfloat16: {
      uint16_t p, q;
      std::memcpy(&p, e, 2);
      std::memcpy(&q, a, 2);
      x = decode_storage_bits(t, p);
      y = decode_storage_bits(t, q);
      // Both sides round a float result to the storage type once: one unit in its last place apart at most.
      if (std::fabs(x - y) <= std::ldexp(std::max(std::fabs(x), std::fabs(y)), -fraction_bits(t)) + 1e-5 * scale)
        return true;
      floating = true;
      break;
    }
    case ScalarType::Float: {
      float p, q;
      std::memcpy(&p, e, 4);
      std::memcpy(&q, a, 4);
      x = p;
      y = q;
      floating = true;
      break;
    }
    case ScalarType::Double: {
      std::memcpy(&x, e, 8);
      std::memcpy(&y, a, 8);
      floating = true;
      break;
    }
    default: {
      const size_t n = size_of(t);
      if (std::memcmp(e, a, n) == 0) return true;
      int64_t p = 0, q = 0;
      std::memcpy(&p, e, n);
      std::memcpy(&q, a, n);
      why = "expected " + std::to_string(p) + ", got " + std::to_string(q);
      return false;
    }
  }
  if (floating && close(x, y)) return true;
  std::ostringstream s;
  s.precision(9);
  s << "expected " << x << ", got " << y;
  why = s.str();
  return false;
}

double largest_magnitude(ScalarType t, const unsigned char* data, size_t count, size_t stride) {
  double m = 0;
  for (size_t k = 0; k < count; ++k) {
    double v = 0;
    if (t == ScalarType::Float) {
      float f;
      std::memcpy(&f, data + k * stride, 4);
      v = f;
    } else if (is_storage_only(t)) {
      uint16_t bits;
      std::memcpy(&bits, data + k * stride, 2);
      v = decode_storage_bits(t, bits);
    } else if (t == ScalarType::Double) {
      std::memcpy(&v, data + k * stride, 8);
    }
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  return m;
}

}  // namespace

int64_t for_each_valid_assignment(const TuningSpace& space, const std::function<void(const Assignment&)>& visit) {
  const tuner::SearchSpace search = make_search_space(space, 1);
  // Every candidate in mixed radix over the groups' trees; the valid ones are those the global constraints accept.
  tuner::Point point(search.group_count(), 0);
  int64_t count = 0;
  for (;;) {
    if (search.is_valid(point)) {
      ++count;
      visit(search.configuration(point).values());
    }
    size_t g = 0;
    while (g < point.size() && ++point[g] == search.group(g).leaf_count()) point[g++] = 0;
    if (g == point.size()) return count;
  }
}

DeviceLimits roomy_device_limits() {
  DeviceLimits l;
  l.max_work_group_size = 1024;
  l.max_work_item_sizes = {1024, 1024, 64};
  l.local_mem_bytes = 64 * 1024;
  return l;
}

DeviceLimits h200_device_limits() {
  return hopper_device_limits();
}

DeviceLimits first_device_limits() {
  DeviceLimits limits;
  size_t wg = 0, items[3] = {0, 0, 0};
  cl_ulong local = 0, alloc = 0;
  cl_uint units = 0;
  clGetDeviceInfo(device().device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
  clGetDeviceInfo(device().device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, nullptr);
  clGetDeviceInfo(device().device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
  clGetDeviceInfo(device().device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, nullptr);
  clGetDeviceInfo(device().device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
  limits.max_work_group_size = wg;
  limits.max_work_item_sizes = {items[0], items[1], items[2]};
  limits.local_mem_bytes = local;
  limits.max_alloc_bytes = alloc;
  limits.compute_units = units;
  cl_platform_id platform = nullptr;
  char platform_name[256] = {0};
  clGetDeviceInfo(device().device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
  if (platform) clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name, nullptr);
  limits.nvidia_driver = is_nvidia_platform(platform_name);
  return limits;
}

DeviceLimits first_device_vector_limits() {
  DeviceLimits limits = first_device_limits();
  cl_uint width = 1;
  clGetDeviceInfo(device().device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof width, &width, nullptr);
  limits.float_vector_width = std::max<cl_uint>(1, width);
  return limits;
}

std::map<std::string, Bytes> seeded_buffers(const BoundMdh& bound, uint64_t seed) {
  const Mdh& mdh = *bound.mdh;
  std::mt19937_64 rng(seed);
  std::map<std::string, Bytes> buffers;
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    const Buffer& buffer = mdh.buffers[b];
    const size_t element = mdh.size_of(buffer.type);
    const size_t count = static_cast<size_t>(bound.element_count(static_cast<int>(b)));
    Bytes bytes(element * count, 0);
    if (buffer.kind != BufferKind::Output) {
      for (size_t k = 0; k < count; ++k) {
        unsigned char* at = bytes.data() + k * element;
        if (!buffer.type.is_struct()) {
          fill_scalar(buffer.type.scalar, at, rng);
          continue;
        }
        const StructType& s = mdh.structs.at(mdh.find_struct(buffer.type.struct_name));
        for (const auto& f : s.fields)
          for (size_t n = 0; n < scalar_count(f); ++n) fill_scalar(f.type, at + f.offset + n * size_of(f.type), rng);
      }
    }
    buffers[buffer.name] = std::move(bytes);
  }
  return buffers;
}

RunResult run_plan_with_scratch(const BoundMdh& bound, const LaunchPlan& plan,
                                const std::map<std::string, Bytes>& buffers, const std::string& extra_build_options) {
  RunResult result;
  const std::string options = plan.build_options + (extra_build_options.empty() ? "" : " " + extra_build_options);
  const char* text = plan.source.c_str();
  size_t length = plan.source.size();
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(device().context, 1, &text, &length, &err);
  if (clBuildProgram(program, 1, &device().device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    result.error = "build failed:\n" + build_log(program);
    clReleaseProgram(program);
    return result;
  }
  std::map<std::string, cl_mem> memory;
  std::vector<cl_mem> scratch;
  for (const auto& [name, bytes] : buffers)
    memory[name] = clCreateBuffer(device().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes.size(),
                                  const_cast<unsigned char*>(bytes.data()), &err);
  for (const auto& s : plan.scratch) {
    // Zeroed scratch (counts of work-groups) starts at zero, as the runtime fills it.
    std::vector<unsigned char> zeros(s.zeroed ? std::max<uint64_t>(s.bytes, 1) : 0, 0);
    scratch.push_back(clCreateBuffer(device().context, CL_MEM_READ_WRITE | (s.zeroed ? CL_MEM_COPY_HOST_PTR : 0),
                                     std::max<uint64_t>(s.bytes, 1), s.zeroed ? zeros.data() : nullptr, &err));
  }
  for (const auto& launch : plan.kernels) {
    cl_kernel kernel = clCreateKernel(program, launch.kernel_name.c_str(), &err);
    if (err != CL_SUCCESS) {
      result.error = "clCreateKernel(" + launch.kernel_name + ") failed: " + std::to_string(err);
      break;
    }
    for (size_t a = 0; a < launch.args.size() && err == CL_SUCCESS; ++a) {
      const KernelArg& arg = launch.args[a];
      if (arg.kind == KernelArg::Kind::Buffer)
        err = clSetKernelArg(kernel, a, sizeof(cl_mem), &memory.at(arg.name));
      else if (arg.kind == KernelArg::Kind::Scratch)
        err = clSetKernelArg(kernel, a, sizeof(cl_mem), &scratch.at(arg.scratch));
      else
        err = CL_INVALID_ARG_VALUE;  // the test md_homs have no params
      if (err != CL_SUCCESS) result.error = "clSetKernelArg " + std::to_string(a) + ": " + std::to_string(err);
    }
    if (err == CL_SUCCESS) {
      size_t global[3] = {launch.global_size[0], launch.global_size[1], launch.global_size[2]};
      size_t local[3] = {1, 1, 1};
      if (launch.local_size)
        for (int d = 0; d < 3; ++d) local[d] = (*launch.local_size)[d];
      err = clEnqueueNDRangeKernel(device().queue, kernel, launch.work_dims, nullptr, global,
                                   launch.local_size ? local : nullptr, 0, nullptr, nullptr);
      if (err != CL_SUCCESS)
        result.error = "clEnqueueNDRangeKernel(" + launch.kernel_name + "): " + std::to_string(err);
    }
    clReleaseKernel(kernel);
    if (!result.error.empty()) break;
  }
  if (result.error.empty()) {
    const std::string& out = bound.mdh->buffers[bound.mdh->output_buffer()].name;
    result.output.resize(buffers.at(out).size());
    err = clEnqueueReadBuffer(device().queue, memory.at(out), CL_TRUE, 0, result.output.size(), result.output.data(), 0,
                              nullptr, nullptr);
    if (err != CL_SUCCESS) result.error = "clEnqueueReadBuffer: " + std::to_string(err);
  }
  // The kernels leave zeroed scratch as they found it, so that the next launch starts from zero again.
  for (size_t k = 0; k < plan.scratch.size() && result.error.empty(); ++k) {
    if (!plan.scratch[k].zeroed) continue;
    std::vector<unsigned char> after(std::max<uint64_t>(plan.scratch[k].bytes, 1));
    err = clEnqueueReadBuffer(device().queue, scratch[k], CL_TRUE, 0, after.size(), after.data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      result.error = "clEnqueueReadBuffer: " + std::to_string(err);
    else if (std::any_of(after.begin(), after.end(), [](unsigned char b) { return b != 0; })) {
      int32_t first = 0;
      std::memcpy(&first, after.data(), std::min(after.size(), sizeof first));
      result.error = "scratch buffer " + std::to_string(k) + " (" + plan.scratch[k].purpose +
                     ") is not zero after the launch (its first int: " + std::to_string(first) + ")";
    }
  }
  clFinish(device().queue);
  for (auto& [name, mem] : memory) clReleaseMemObject(mem);
  for (cl_mem m : scratch) clReleaseMemObject(m);
  clReleaseProgram(program);
  return result;
}

Bytes reference_output(const BoundMdh& bound, const std::map<std::string, Bytes>& buffers) {
  RunResult r = run_plan_with_scratch(bound, generate_reference_kernel(bound, PreambleOptions{}), buffers);
  if (!r.error.empty()) throw std::runtime_error("reference kernel: " + r.error);
  return r.output;
}

std::optional<std::string> compare_outputs(const BoundMdh& bound, const Bytes& expected, const Bytes& actual) {
  const Mdh& mdh = *bound.mdh;
  if (expected.size() != actual.size()) return std::string("output sizes differ");
  const ElementType& type = mdh.result_type();
  const size_t element = mdh.size_of(type);
  const size_t count = expected.size() / element;
  std::vector<std::pair<ScalarType, size_t>> scalars;  // (type, byte offset) within one element
  if (!type.is_struct()) {
    scalars.push_back({type.scalar, 0});
  } else {
    const StructType& s = mdh.structs.at(mdh.find_struct(type.struct_name));
    for (const auto& f : s.fields)
      for (size_t n = 0; n < scalar_count(f); ++n) scalars.push_back({f.type, f.offset + n * size_of(f.type)});
  }
  // TF32 products: the runtime's term for them (runtime/verify_result.h).
  const double products = product_rounding_tolerance(bound.precision);
  for (const auto& [t, offset] : scalars) {
    const double scale = largest_magnitude(t, expected.data() + offset, count, element);
    for (size_t k = 0; k < count; ++k) {
      std::string why;
      if (!same_scalar(t, expected.data() + k * element + offset, actual.data() + k * element + offset, scale, products,
                       why))
        return "output element " + std::to_string(k) +
               (scalars.size() > 1 ? " (byte " + std::to_string(offset) + ")" : "") + ": " + why;
    }
  }
  return std::nullopt;
}

std::string mismatch_with_reference(const BoundMdh& bound, const KernelConfig& config, const std::string& build_options,
                                    const DeviceLimits& limits, uint64_t seed) {
  const auto buffers = seeded_buffers(bound, seed);
  const auto expected = reference_output(bound, buffers);
  LaunchPlan plan;
  try {
    plan = generate_tunable_kernel(bound, config, limits);
  } catch (const std::exception& e) {
    return std::string("generation failed: ") + e.what();
  }
  const auto run = run_plan_with_scratch(bound, plan, buffers, build_options);
  const std::string where = "\nconfig: " + config_to_json(bound, config).dump();
  if (!run.error.empty()) return run.error + where;
  if (auto why = compare_outputs(bound, expected, run.output)) return *why + where;
  return "";
}

}  // namespace mdh::testing
