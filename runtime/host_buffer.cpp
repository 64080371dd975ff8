#include "runtime/host_buffer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "support/english.h"
#include "support/error.h"
#include "support/storage_float.h"

namespace mdh {

namespace {
template <class T>
void store(unsigned char* at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

template <class T>
T load(const unsigned char* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

// The standard distributions are implementation-defined; these are not, so inputs are the same everywhere.
float uniform_float(std::mt19937_64& rng) {
  return static_cast<float>(rng() >> 40) * 0x1p-24f;
}
double uniform_double(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1p-53;
}
int64_t small_signed(std::mt19937_64& rng) {
  return static_cast<int64_t>(rng() % 17) - 8;
}
uint64_t small_unsigned(std::mt19937_64& rng) {
  return rng() % 17;
}

void store_random(ScalarType type, std::mt19937_64& rng, unsigned char* at) {
  switch (type) {
    case ScalarType::Float:
      store(at, uniform_float(rng));
      return;
    case ScalarType::Double:
      store(at, uniform_double(rng));
      return;
    case ScalarType::Int:
      store(at, static_cast<int32_t>(small_signed(rng)));
      return;
    case ScalarType::Uint:
      store(at, static_cast<uint32_t>(small_unsigned(rng)));
      return;
    case ScalarType::Long:
      store(at, static_cast<int64_t>(small_signed(rng)));
      return;
    case ScalarType::Ulong:
      store(at, static_cast<uint64_t>(small_unsigned(rng)));
      return;
    case ScalarType::Short:
      store(at, static_cast<int16_t>(small_signed(rng)));
      return;
    case ScalarType::Ushort:
      store(at, static_cast<uint16_t>(small_unsigned(rng)));
      return;
    case ScalarType::Char:
      store(at, static_cast<int8_t>(small_signed(rng)));
      return;
    case ScalarType::Uchar:
      store(at, static_cast<uint8_t>(small_unsigned(rng)));
      return;
    // Uniform floats in [0, 1) rounded to the storage type: products and sums of them stay far from half's largest
    // value (65504) at every size a buffer can have.
    case ScalarType::Half:
      store(at, float_to_half(uniform_float(rng)));
      return;
    case ScalarType::Bfloat16:
      store(at, float_to_bfloat16(uniform_float(rng)));
      return;
  }
  MDH_INTERNAL_ASSERT(false, "unknown scalar type");
}

// splitmix64's finaliser: spreads a combined seed over all 64 bits.
uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<unsigned char> parse_floating(const std::string& name, ScalarType type, const std::string& text) {
  const char* type_name = opencl_name(type);
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    throw UserError("param '" + name + "' is " + indefinite_article(type_name) + " " + type_name + ": '" + text +
                    "' is not a number");
  bool too_big = errno == ERANGE && std::isinf(value);
  if (type == ScalarType::Float && std::isfinite(value) && std::fabs(value) > FLT_MAX) too_big = true;
  if (too_big)
    throw UserError("param '" + name + "' is " + indefinite_article(type_name) + " " + type_name + ": '" + text +
                    "' is out of its range");
  std::vector<unsigned char> bytes(size_of(type));
  if (type == ScalarType::Float)
    store(bytes.data(), static_cast<float>(value));
  else
    store(bytes.data(), value);
  return bytes;
}

template <class T>
std::vector<unsigned char> integer_bytes(T value) {
  std::vector<unsigned char> bytes(sizeof(T));
  store(bytes.data(), value);
  return bytes;
}

std::vector<unsigned char> parse_integer(const std::string& name, ScalarType type, const std::string& text) {
  const std::string prefix = "param '" + name + "' is " + indefinite_article(opencl_name(type)) + " " +
                             opencl_name(type) + ": '" + text + "' ";
  bool digits = !text.empty();
  for (size_t k = 0; k < text.size(); ++k)
    if (!(std::isdigit(static_cast<unsigned char>(text[k])) ||
          (k == 0 && text.size() > 1 && (text[k] == '-' || text[k] == '+'))))
      digits = false;
  if (!digits) throw UserError(prefix + "is not a decimal integer");

  auto out_of_range = [&](auto lo, auto hi) {
    return UserError(prefix + "is out of its range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  errno = 0;
  if (is_signed(type)) {
    long long value = std::strtoll(text.c_str(), nullptr, 10);
    auto check_range = [&](auto lo, auto hi) {
      if (errno == ERANGE || value < lo || value > hi) throw out_of_range(lo, hi);
    };
    switch (type) {
      case ScalarType::Char:
        check_range(INT8_MIN, INT8_MAX);
        return integer_bytes(static_cast<int8_t>(value));
      case ScalarType::Short:
        check_range(INT16_MIN, INT16_MAX);
        return integer_bytes(static_cast<int16_t>(value));
      case ScalarType::Int:
        check_range(INT32_MIN, INT32_MAX);
        return integer_bytes(static_cast<int32_t>(value));
      default:
        check_range(INT64_MIN, INT64_MAX);
        return integer_bytes(static_cast<int64_t>(value));
    }
  }
  if (text[0] == '-') throw UserError(prefix + "is negative, but " + opencl_name(type) + " is unsigned");
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  auto check_range = [&](auto hi) {
    if (errno == ERANGE || value > static_cast<unsigned long long>(hi)) throw out_of_range(0, hi);
  };
  switch (type) {
    case ScalarType::Uchar:
      check_range(UINT8_MAX);
      return integer_bytes(static_cast<uint8_t>(value));
    case ScalarType::Ushort:
      check_range(UINT16_MAX);
      return integer_bytes(static_cast<uint16_t>(value));
    case ScalarType::Uint:
      check_range(UINT32_MAX);
      return integer_bytes(static_cast<uint32_t>(value));
    default:
      check_range(UINT64_MAX);
      return integer_bytes(static_cast<uint64_t>(value));
  }
}
}  // namespace

int64_t HostBuffer::element_count() const {
  int64_t count = 1;
  for (int64_t e : extents) count *= e;
  return count;
}

std::string HostBuffer::declaration() const {
  std::string out = type.is_struct() ? type.struct_name : opencl_name(type.scalar);
  for (int64_t e : extents) out.append("[").append(std::to_string(e)).append("]");
  return out;
}

HostBuffer make_host_buffer(const BoundMdh& bound, int buffer) {
  MDH_INTERNAL_ASSERT(bound.mdh && buffer >= 0 && static_cast<size_t>(buffer) < bound.mdh->buffers.size() &&
                          static_cast<size_t>(buffer) < bound.buffer_extents.size(),
                      "buffer index " + std::to_string(buffer) + " out of range");
  const Buffer& declared = bound.mdh->buffers[buffer];
  HostBuffer out;
  out.name = declared.name;
  out.type = declared.type;
  out.element_size = bound.mdh->size_of(declared.type);
  out.extents = bound.buffer_extents[buffer];
  // A buffer larger than the machine's memory cannot be held on the host: say which one, before trying.
  const double bytes = static_cast<double>(out.element_count()) * static_cast<double>(out.element_size);
  const double memory = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  if (memory > 0 && bytes > memory) {
    char text[160];
    std::snprintf(text, sizeof text, " takes %.4g bytes, more than this machine's memory (%.4g bytes)", bytes, memory);
    throw UserError("buffer " + out.name + " (" + out.declaration() + ")" + text + "; choose smaller sizes");
  }
  out.bytes.assign(static_cast<size_t>(out.element_count()) * out.element_size, 0);
  return out;
}

uint64_t buffer_seed(uint64_t seed, const std::string& name) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a, 64 bit
  for (unsigned char c : name) hash = (hash ^ c) * 0x100000001b3ull;
  return mix64(seed ^ mix64(hash));
}

void fill_random(HostBuffer& buffer, const Mdh& mdh, uint64_t seed) {
  std::mt19937_64 rng(buffer_seed(seed, buffer.name));
  std::fill(buffer.bytes.begin(), buffer.bytes.end(), 0);
  const int64_t count = buffer.element_count();
  MDH_INTERNAL_ASSERT(buffer.bytes.size() == static_cast<size_t>(count) * buffer.element_size, "buffer size mismatch");
  if (!buffer.type.is_struct()) {
    for (int64_t e = 0; e < count; ++e)
      store_random(buffer.type.scalar, rng, buffer.bytes.data() + e * buffer.element_size);
    return;
  }
  int s = mdh.find_struct(buffer.type.struct_name);
  MDH_INTERNAL_ASSERT(s >= 0, "unknown struct " + buffer.type.struct_name);
  const StructType& st = mdh.structs[s];
  MDH_INTERNAL_ASSERT(st.size == buffer.element_size, "struct size mismatch for " + st.name);
  for (int64_t e = 0; e < count; ++e) {
    unsigned char* element = buffer.bytes.data() + e * buffer.element_size;
    for (const StructField& field : st.fields) {
      int64_t entries = 1;
      for (int64_t x : field.array_extents) entries *= x;
      for (int64_t k = 0; k < entries; ++k)
        store_random(field.type, rng, element + field.offset + k * size_of(field.type));
    }
  }
}

HostBuffer float_to_double(const HostBuffer& buffer) {
  MDH_INTERNAL_ASSERT(!buffer.type.is_struct() && compute_type(buffer.type.scalar) == ScalarType::Float,
                      buffer.name + " is not a float, half or bfloat16 buffer");
  const ScalarType from = buffer.type.scalar;
  HostBuffer out = buffer;
  out.type.scalar = ScalarType::Double;
  out.element_size = sizeof(double);
  out.bytes.assign(static_cast<size_t>(buffer.element_count()) * sizeof(double), 0);
  for (int64_t e = 0; e < buffer.element_count(); ++e) {
    const unsigned char* at = buffer.bytes.data() + e * buffer.element_size;
    const float value = from == ScalarType::Half       ? half_to_float(load<uint16_t>(at))
                        : from == ScalarType::Bfloat16 ? bfloat16_to_float(load<uint16_t>(at))
                                                       : load<float>(at);
    store(out.bytes.data() + e * sizeof(double), static_cast<double>(value));
  }
  return out;
}

HostBuffer double_to_float(const HostBuffer& buffer) {
  MDH_INTERNAL_ASSERT(!buffer.type.is_struct() && buffer.type.scalar == ScalarType::Double,
                      buffer.name + " is not a double buffer");
  HostBuffer out = buffer;
  out.type.scalar = ScalarType::Float;
  out.element_size = sizeof(float);
  out.bytes.assign(static_cast<size_t>(buffer.element_count()) * sizeof(float), 0);
  for (int64_t e = 0; e < buffer.element_count(); ++e)
    store(out.bytes.data() + e * sizeof(float),
          static_cast<float>(load<double>(buffer.bytes.data() + e * sizeof(double))));
  return out;
}

std::vector<unsigned char> param_bytes(const Mdh& mdh, const std::string& name, const std::string& text_in) {
  int p = mdh.find_param(name);
  if (p < 0) {
    std::string declared;
    for (const auto& param : mdh.params) declared += (declared.empty() ? "" : ", ") + param.name;
    throw UserError("unknown param '" + name + "'; " +
                    (declared.empty() ? std::string("the spec declares no params") : "the spec declares: " + declared));
  }
  const Param& param = mdh.params[p];
  if (param.type.is_struct())
    throw UserError("param '" + name + "' has struct type '" + param.type.struct_name +
                    "'; struct params are not supported on the command line");
  const std::string text = trim(text_in);
  return is_floating(param.type.scalar) ? parse_floating(name, param.type.scalar, text)
                                        : parse_integer(name, param.type.scalar, text);
}

}  // namespace mdh
