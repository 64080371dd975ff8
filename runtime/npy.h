// Buffer files: NumPy .npy (format 1.0/2.0/3.0, little-endian, C order) for numeric buffers, raw .bin for
// struct buffers. Reading checks the file against the buffer declaration and says what does not fit.
#pragma once

#include <string>

#include "runtime/host_buffer.h"

namespace mdh {

/// The NumPy dtype string of a scalar type: "<f4", "<f8", "|i1", "|u1", "<i2", ... (1-byte types use '|'); half is
/// "<f2", and bfloat16, which NumPy lacks, "<u2": its bit patterns, the upper 16 bits of the float32 values.
std::string npy_dtype(ScalarType type);

/// Reads `path` into `buffer.bytes`; buffer's type and extents say what the file must hold. `role` names the
/// buffer in messages ("input A: file a.npy has shape (3, 4) but A is float[4][4]"). Accepts '<' or '|' for
/// 1-byte dtypes. Throws UserError for an unreadable or malformed file, a Fortran-order or big-endian array, a
/// dtype or shape that differs from the declaration. Struct buffers are refused (use .bin).
void read_npy(const std::string& path, HostBuffer& buffer, const std::string& role);
/// The same for the bytes of an .npy file; `path` names it in messages.
void parse_npy(const std::string& bytes, HostBuffer& buffer, const std::string& role, const std::string& path);
/// Writes a numeric buffer as .npy (format 1.0, or 2.0 when the header needs it).
void write_npy(const std::string& path, const HostBuffer& buffer);

/// Raw bytes, exactly buffer.bytes (for struct buffers); the file's size must match the buffer's.
void read_bin(const std::string& path, HostBuffer& buffer, const std::string& role);
void write_bin(const std::string& path, const HostBuffer& buffer);

/// read_npy or read_bin by the file's extension (".npy" or ".bin"); anything else is a UserError.
void read_buffer_file(const std::string& path, HostBuffer& buffer, const std::string& role);
void write_buffer_file(const std::string& path, const HostBuffer& buffer);

}  // namespace mdh
