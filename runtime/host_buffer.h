// Host-side buffer contents for a spec buffer: typed bytes with extents, seeded random inputs, float <-> double
// widening for the reference run, and `--param` values as kernel-argument bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mdh/bind.h"
#include "mdh/ir.h"

namespace mdh {

/// The contents of one spec buffer, row-major, exactly as the kernel sees them (struct padding included).
struct HostBuffer {
  std::string name;  // the spec buffer's name, for messages
  ElementType type;
  size_t element_size = 0;
  std::vector<int64_t> extents;
  std::vector<unsigned char> bytes;

  int64_t element_count() const;
  /// "float[4][4]", "record[8]" (with the struct's name).
  std::string declaration() const;
};

/// Contents of a spec buffer in the caller's memory (an API caller's array, e.g. numpy's), laid out as HostBuffer's
/// bytes; read where it lies, without a copy. Valid while the call that is given it runs.
struct HostBufferView {
  HostBuffer shape;  // name, type, element size and extents; no bytes
  const unsigned char* data = nullptr;
  size_t size = 0;  // bytes
};

/// A zero-filled buffer shaped like spec buffer `buffer` of `bound`.
HostBuffer make_host_buffer(const BoundMdh& bound, int buffer);

/// Fills `buffer` with deterministic values, identical on every platform:
///   floating: uniform in [0, 1) (half and bfloat16: a uniform float rounded to them); signed integers: uniform in [-8,
///   8]; unsigned: uniform in [0, 16]; structs: field by field (and element by element of array fields) by the field's
///   type, padding zero.
/// The generator for a buffer is seeded from (seed, buffer name), so adding a buffer changes no other.
void fill_random(HostBuffer& buffer, const Mdh& mdh, uint64_t seed);

/// The seed fill_random uses for buffer `name`: a mix of seed and a 64-bit FNV-1a hash of the name.
uint64_t buffer_seed(uint64_t seed, const std::string& name);

/// A scalar float, half or bfloat16 buffer as double (for the reference run in double precision), and a double buffer
/// as float (rounding to nearest).
HostBuffer float_to_double(const HostBuffer& buffer);
HostBuffer double_to_float(const HostBuffer& buffer);

/// The bytes of `--param NAME=TEXT`, parsed by the param's scalar type (decimal integers within the type's range,
/// or a floating-point literal). Throws UserError for an unknown param, a struct param, or text that does not fit.
std::vector<unsigned char> param_bytes(const Mdh& mdh, const std::string& name, const std::string& text);

}  // namespace mdh
