#include "runtime/device.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "runtime/opencl_error.h"
#include "support/error.h"

namespace mdh {

namespace {

// From cl_nv_device_attribute_query (CL/cl_ext.h names it only where the NVIDIA headers are installed).
constexpr cl_device_info kDeviceWarpSizeNv = 0x4003;
constexpr cl_device_info kDeviceComputeCapabilityMajorNv = 0x4000;
// From cl_amd_device_attribute_query: the work-items of one wavefront, AMD's warp.
constexpr cl_device_info kDeviceWavefrontWidthAmd = 0x4043;
std::string to_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// OpenCL strings carry a trailing NUL and sometimes padding; strip both.
std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  check(clGetPlatformInfo(p, what, 0, nullptr, &size), "clGetPlatformInfo");
  std::string s(size, '\0');
  check(clGetPlatformInfo(p, what, size, s.data(), nullptr), "clGetPlatformInfo");
  return trim(s.c_str());
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &size), "clGetDeviceInfo");
  std::string s(size, '\0');
  check(clGetDeviceInfo(d, what, size, s.data(), nullptr), "clGetDeviceInfo");
  return trim(s.c_str());
}

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T value{};
  check(clGetDeviceInfo(d, what, sizeof(T), &value, nullptr), "clGetDeviceInfo");
  return value;
}

DeviceInfo query_device(int platform_index, cl_platform_id platform, int device_index, cl_device_id device) {
  DeviceInfo info;
  info.platform_index = platform_index;
  info.device_index = device_index;
  info.platform = platform;
  info.device = device;
  info.platform_name = platform_string(platform, CL_PLATFORM_NAME);
  info.platform_version = platform_string(platform, CL_PLATFORM_VERSION);
  info.name = device_string(device, CL_DEVICE_NAME);
  info.vendor = device_string(device, CL_DEVICE_VENDOR);
  info.device_version = device_string(device, CL_DEVICE_VERSION);
  info.driver_version = device_string(device, CL_DRIVER_VERSION);
  info.opencl_c_version = device_string(device, CL_DEVICE_OPENCL_C_VERSION);
  info.type = device_value<cl_device_type>(device, CL_DEVICE_TYPE);
  info.compute_units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  info.max_clock_mhz = device_value<cl_uint>(device, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  info.max_work_group_size = device_value<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  cl_uint dims = device_value<cl_uint>(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  std::vector<size_t> item_sizes(dims);
  check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), item_sizes.data(), nullptr),
        "clGetDeviceInfo");
  info.max_work_item_sizes.assign(item_sizes.begin(), item_sizes.end());
  info.local_mem_bytes = device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  info.local_mem_dedicated = device_value<cl_device_local_mem_type>(device, CL_DEVICE_LOCAL_MEM_TYPE) == CL_LOCAL;
  info.global_mem_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.global_mem_cache_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  info.max_alloc_bytes = device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  // CL_DEVICE_DOUBLE_FP_CONFIG is 0 exactly when doubles are unsupported (OpenCL 1.2 §4.2).
  info.fp64 = device_value<cl_device_fp_config>(device, CL_DEVICE_DOUBLE_FP_CONFIG) != 0 ||
              device_string(device, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos;
  info.preferred_float_vector_width = device_value<cl_uint>(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT);
  const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS);
  if (extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
    info.warp_size = device_value<cl_uint>(device, kDeviceWarpSizeNv);
    info.nvidia_compute_capability_major = device_value<cl_uint>(device, kDeviceComputeCapabilityMajorNv);
  } else if (extensions.find("cl_amd_device_attribute_query") != std::string::npos)
    info.warp_size = device_value<cl_uint>(device, kDeviceWavefrontWidthAmd);
  return info;
}

bool is_platform_device_selector(const std::string& s, int& platform, int& device) {
  size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size()) return false;
  auto all_digits = [](const std::string& t) {
    return t.size() <= 6 &&
           std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  std::string p = s.substr(0, colon), d = s.substr(colon + 1);
  if (!all_digits(p) || !all_digits(d)) return false;
  platform = std::stoi(p);
  device = std::stoi(d);
  return true;
}

std::string short_device_list(const std::vector<DeviceInfo>& devices) {
  std::ostringstream out;
  out << "available devices:";
  for (const auto& d : devices)
    out << "\n  " << d.selector() << "  " << d.name << " [" << d.type_name() << "] on " << d.platform_name;
  return out.str();
}

[[noreturn]] void no_device_matches(const std::vector<DeviceInfo>& devices, const std::string& selector) {
  throw UserError("no OpenCL device matches '" + selector + "'; " + short_device_list(devices));
}

// Words PoCL's device names start with before the CPU's own name ("pthread-skylake-avx512-AMD EPYC"): the
// driver and the LLVM CPU name, always lower-case, while vendors' model names carry capitals.
std::string drop_lowercase_prefix(const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    size_t dash = name.find('-', start);
    if (dash == std::string::npos) break;
    std::string token = name.substr(start, dash - start);
    if (std::any_of(token.begin(), token.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); }))
      break;
    start = dash + 1;
  }
  std::string rest = name.substr(start);
  bool has_upper =
      std::any_of(rest.begin(), rest.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  return has_upper ? rest : name;
}

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) value /= 1024.0, ++unit;
  std::ostringstream out;
  out.precision(value < 10 && unit > 0 ? 2 : 4);
  out << value << ' ' << units[unit];
  return out.str();
}
}  // namespace

std::string DeviceInfo::selector() const {
  return std::to_string(platform_index) + ":" + std::to_string(device_index);
}

std::string DeviceInfo::type_name() const {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (type & CL_DEVICE_TYPE_CUSTOM) return "custom";
  return "default";
}

std::vector<DeviceInfo> list_devices() {
  cl_uint platform_count = 0;
  cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR (-1001) when no vendor driver is installed.
  if (status == -1001 || platform_count == 0) return {};
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");

  std::vector<DeviceInfo> devices;
  for (cl_uint p = 0; p < platform_count; ++p) {
    cl_uint device_count = 0;
    status = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (status == CL_DEVICE_NOT_FOUND || device_count == 0) continue;
    check(status, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(device_count);
    check(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, device_count, ids.data(), nullptr), "clGetDeviceIDs");
    for (cl_uint d = 0; d < device_count; ++d)
      devices.push_back(query_device(static_cast<int>(p), platforms[p], static_cast<int>(d), ids[d]));
  }
  return devices;
}

std::vector<DeviceInfo> matching_devices(const std::vector<DeviceInfo>& devices, const std::string& selector_text) {
  if (devices.empty())
    throw UserError(
        "no OpenCL device found: no OpenCL platform with a device is installed (on a CPU-only machine, "
        "install PoCL)");
  const std::string selector = trim(selector_text);
  auto of_type = [&](cl_device_type type) {
    std::vector<DeviceInfo> matches;
    for (const auto& d : devices)
      if (d.type & type) matches.push_back(d);
    return matches;
  };
  auto nonempty = [&](std::vector<DeviceInfo> matches) {
    if (matches.empty()) no_device_matches(devices, selector);
    return matches;
  };

  if (selector.empty()) {
    if (auto gpus = of_type(CL_DEVICE_TYPE_GPU); !gpus.empty()) return gpus;
    if (auto cpus = of_type(CL_DEVICE_TYPE_CPU); !cpus.empty()) return cpus;
    return devices;
  }

  int platform = 0, device = 0;
  if (is_platform_device_selector(selector, platform, device)) {
    for (const auto& d : devices)
      if (d.platform_index == platform && d.device_index == device) return {d};
    no_device_matches(devices, selector);
  }

  const std::string lower = to_lower(selector);
  const std::pair<const char*, cl_device_type> kTypeSelectors[] = {
      {"gpu", CL_DEVICE_TYPE_GPU}, {"cpu", CL_DEVICE_TYPE_CPU}, {"accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
  for (const auto& [word, type] : kTypeSelectors)
    if (lower == word) return nonempty(of_type(type));

  std::vector<DeviceInfo> by_name, by_platform;
  for (const auto& d : devices) {
    if (to_lower(d.name).find(lower) != std::string::npos) by_name.push_back(d);
    if (to_lower(d.platform_name).find(lower) != std::string::npos) by_platform.push_back(d);
  }
  return nonempty(by_name.empty() ? by_platform : by_name);
}

DeviceInfo select_device(const std::vector<DeviceInfo>& devices, const std::string& selector) {
  return matching_devices(devices, selector).front();
}

DeviceInfo select_device(const std::string& selector) {
  return select_device(list_devices(), selector);
}

std::string device_slug(const DeviceInfo& device) {
  std::string platform = to_lower(device.platform_name);
  bool pocl =
      platform.find("portable computing language") != std::string::npos || platform.find("pocl") != std::string::npos;
  std::string text =
      pocl ? "pocl " + to_lower(device.type_name()) + " " + drop_lowercase_prefix(device.name) : device.name;
  text = to_lower(text.substr(0, text.find('@')));  // "... CPU @ 3.20GHz": the clock is not part of the model
  for (const char* mark : {"(r)", "(tm)", "(c)"})
    for (size_t at; (at = text.find(mark)) != std::string::npos;) text.erase(at, std::string(mark).size());

  // Split into alphanumeric words and drop the ones that do not tell models apart.
  std::vector<std::string> words;
  std::string word;
  for (size_t k = 0; k <= text.size(); ++k) {
    char c = k < text.size() ? text[k] : ' ';
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += c;
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  std::string slug;
  for (size_t k = 0; k < words.size(); ++k) {
    const std::string& w = words[k];
    bool noise = w == "processor" || (w == "cpu" && k > 0 && !pocl) || w == "core" ||
                 (k + 1 < words.size() && words[k + 1] == "core" && std::all_of(w.begin(), w.end(), [](char c) {
                    return std::isdigit(static_cast<unsigned char>(c)) != 0;
                  }));
    if (noise) continue;
    if (!slug.empty()) slug += '-';
    slug += w;
  }
  if (slug.size() > 48) slug.resize(slug.find_last_of('-', 48) == std::string::npos ? 48 : slug.find_last_of('-', 48));
  if (slug.empty()) slug = "opencl-device";
  // A CPU's name often says only the family ("Intel(R) Xeon(R) Processor" on a 2-core VM and on a 16-core host
  // alike), and its tuned configurations depend on the cores it has: the core count keeps their results apart.
  if ((device.type & CL_DEVICE_TYPE_CPU) && device.compute_units > 0)
    slug += "-" + std::to_string(device.compute_units) + "c";
  return slug;
}

std::string format_device_list(const std::vector<DeviceInfo>& devices) {
  if (devices.empty()) return "No OpenCL devices found (no platform installed; on a CPU-only machine, install PoCL).\n";
  std::string default_selector = select_device(devices, "").selector();
  std::ostringstream out;
  int last_platform = -1;
  for (const auto& d : devices) {
    if (d.platform_index != last_platform) {
      out << "Platform " << d.platform_index << ": " << d.platform_name << " (" << d.platform_version << ")\n";
      last_platform = d.platform_index;
    }
    out << "  " << d.selector() << "  " << d.name << "  [" << d.type_name()
        << (d.selector() == default_selector ? ", default" : "") << "]\n";
    out << "       vendor " << d.vendor << "; " << d.device_version << "; driver " << d.driver_version << "; "
        << d.opencl_c_version << '\n';
    out << "       compute units " << d.compute_units << ", max clock " << d.max_clock_mhz << " MHz\n";
    out << "       max work-group size " << d.max_work_group_size << ", max work-item sizes ";
    for (size_t k = 0; k < d.max_work_item_sizes.size(); ++k) out << (k ? " x " : "") << d.max_work_item_sizes[k];
    out << '\n';
    out << "       local memory " << human_bytes(d.local_mem_bytes)
        << (d.local_mem_dedicated ? " (dedicated)" : " (in global memory)") << ", global memory "
        << human_bytes(d.global_mem_bytes) << ", max allocation " << human_bytes(d.max_alloc_bytes) << '\n';
    out << "       fp64 " << (d.fp64 ? "yes" : "no") << ", preferred float vector width "
        << d.preferred_float_vector_width << (d.warp_size ? ", warp " + std::to_string(d.warp_size) : std::string())
        << ", slug " << device_slug(d) << '\n';
  }
  return out.str();
}

}  // namespace mdh
