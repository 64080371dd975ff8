#include "runtime/npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "support/atomic_file.h"
#include "support/error.h"
#include "support/input_file.h"

namespace mdh {

namespace {
const char kMagic[] = "\x93NUMPY";  // 6 bytes, then major and minor version

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t k = 0; k < shape.size(); ++k) out += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::string file_name_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Header and padding of an .npy file beyond its data; NumPy itself refuses headers over 10,000 bytes by default.
constexpr uint64_t kMaxNpyHeaderBytes = uint64_t{1} << 20;

std::string read_file(const std::string& path, const std::string& role, uint64_t max_bytes) {
  InputFile file = read_input_file(path, max_bytes);
  if (!file.ok) throw UserError(role + ": cannot read '" + path + "': " + file.problem);
  return std::move(file.bytes);
}

void write_file(const std::string& path, const std::string& header, const std::vector<unsigned char>& data) {
  std::string bytes = header;
  bytes.append(reinterpret_cast<const char*>(data.data()), data.size());
  write_file_atomically(path, bytes);
}

// The parts of an .npy header mdh reads; the header is a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& where) : text_(text), where_(where) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (skip_space(), peek() != '}') {
      std::string key = quoted();
      expect(':');
      if (key == "descr")
        h.descr = quoted(), seen_descr = true;
      else if (key == "fortran_order")
        h.fortran_order = boolean(), seen_order = true;
      else if (key == "shape")
        h.shape = tuple(), seen_shape = true;
      else
        fail("unexpected key '" + key + "'");
      skip_space();
      if (peek() == ',') ++pos_;
    }
    if (!seen_descr || !seen_order || !seen_shape) fail("the header lacks 'descr', 'fortran_order' or 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw UserError(where_ + " is not a valid .npy file: " + what); }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    if (pos_ >= text_.size()) fail("the header ends early");
    return text_[pos_];
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "' in the header");
    ++pos_;
  }
  std::string quoted() {
    skip_space();
    char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string in the header");
    size_t end = text_.find(q, pos_ + 1);
    if (end == std::string::npos) fail("unterminated string in the header");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  bool boolean() {
    skip_space();
    if (text_.compare(pos_, 4, "True") == 0) return pos_ += 4, true;
    if (text_.compare(pos_, 5, "False") == 0) return pos_ += 5, false;
    fail("expected True or False in the header");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> out;
    expect('(');
    while (skip_space(), peek() != ')') {
      size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (start == pos_ || pos_ - start > 15) fail("expected a dimension in 'shape'");
      out.push_back(std::stoll(text_.substr(start, pos_ - start)));
      skip_space();
      if (peek() == ',')
        ++pos_;
      else if (peek() != ')')
        fail("expected ',' or ')' in 'shape'");
    }
    ++pos_;
    return out;
  }

  const std::string& text_;
  std::string where_;
  size_t pos_ = 0;
};

// How to make the file a half or bfloat16 buffer needs, for the message about a dtype that does not fit.
std::string storage_dtype_hint(ScalarType type) {
  if (type == ScalarType::Half) return "; convert with x.astype(numpy.float16)";
  if (type == ScalarType::Bfloat16)
    return "; NumPy has no bfloat16: give its bit patterns as uint16, the upper 16 bits of each float32 "
           "((x.astype(numpy.float32).view(numpy.uint32) >> 16).astype(numpy.uint16) truncates; mdh's docs round)";
  return "";
}

uint64_t buffer_bytes(const HostBuffer& buffer) {
  return static_cast<uint64_t>(buffer.element_count()) * buffer.element_size;
}

uint32_t little_endian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}
}  // namespace

std::string npy_dtype(ScalarType type) {
  switch (type) {
    case ScalarType::Float:
      return "<f4";
    case ScalarType::Double:
      return "<f8";
    case ScalarType::Char:
      return "|i1";
    case ScalarType::Uchar:
      return "|u1";
    case ScalarType::Short:
      return "<i2";
    case ScalarType::Ushort:
      return "<u2";
    case ScalarType::Int:
      return "<i4";
    case ScalarType::Uint:
      return "<u4";
    case ScalarType::Long:
      return "<i8";
    case ScalarType::Ulong:
      return "<u8";
    case ScalarType::Half:
      return "<f2";
    // NumPy has no bfloat16: its files hold the 16-bit patterns, the upper half of each float32's bits.
    case ScalarType::Bfloat16:
      return "<u2";
  }
  MDH_INTERNAL_ASSERT(false, "unknown scalar type");
  return "";
}

void read_npy(const std::string& path, HostBuffer& buffer, const std::string& role) {
  if (buffer.type.is_struct())
    throw UserError(role + ": " + buffer.name + " is " + buffer.declaration() +
                    ", a struct buffer; give it as a raw .bin file, not .npy");
  parse_npy(read_file(path, role, buffer_bytes(buffer) + kMaxNpyHeaderBytes), buffer, role, path);
}

void parse_npy(const std::string& bytes, HostBuffer& buffer, const std::string& role, const std::string& path) {
  const std::string where = role + ": file " + path;
  if (buffer.type.is_struct())
    throw UserError(role + ": " + buffer.name + " is " + buffer.declaration() +
                    ", a struct buffer; give it as a raw .bin file, not .npy");
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t size = bytes.size();
  if (size < 10 || std::memcmp(data, kMagic, 6) != 0)
    throw UserError(where + " is not a .npy file (no \\x93NUMPY magic)");
  const int major = data[6];
  if (major < 1 || major > 3)
    throw UserError(where + " has .npy format version " + std::to_string(major) + ", not 1, 2 or 3");
  const int length_bytes = major == 1 ? 2 : 4;
  if (size < static_cast<size_t>(8 + length_bytes))
    throw UserError(where + " is not a valid .npy file: truncated header");
  const size_t header_length = little_endian(data + 8, length_bytes);
  const size_t data_offset = 8 + length_bytes + header_length;
  if (size < data_offset) throw UserError(where + " is not a valid .npy file: truncated header");
  const std::string header_text(bytes, 8 + length_bytes, header_length);
  NpyHeader header = HeaderParser(header_text, where).parse();

  const std::string declared = buffer.name + " is " + buffer.declaration();
  if (header.fortran_order)
    throw UserError(where + " is in Fortran order; mdh reads C order (save numpy.ascontiguousarray(x))");
  std::string expected_dtype = npy_dtype(buffer.type.scalar);
  std::string dtype = header.descr;
  if (dtype.size() == 3 && dtype[2] == '1' && dtype[0] == '<') dtype[0] = '|';  // 1-byte types have no byte order
  if (!dtype.empty() && dtype[0] == '>' && dtype.substr(1) == expected_dtype.substr(1))
    throw UserError(where + " is big-endian (" + header.descr + "); mdh reads little-endian .npy files");
  if (dtype != expected_dtype)
    throw UserError(where + " has dtype " + header.descr + " but " + declared + " (dtype " + expected_dtype + ")" +
                    storage_dtype_hint(buffer.type.scalar));
  if (header.shape != buffer.extents)
    throw UserError(where + " has shape " + shape_text(header.shape) + " but " + declared);
  const uint64_t expected_bytes = buffer_bytes(buffer);
  if (size - data_offset != expected_bytes)
    throw UserError(where + " holds " + std::to_string(size - data_offset) + " bytes of data but its header says " +
                    std::to_string(expected_bytes));
  buffer.bytes.assign(data + data_offset, data + size);
}

void write_npy(const std::string& path, const HostBuffer& buffer) {
  MDH_INTERNAL_ASSERT(!buffer.type.is_struct(), buffer.name + " is a struct buffer: write it as .bin");
  MDH_INTERNAL_ASSERT(buffer.bytes.size() == static_cast<size_t>(buffer.element_count()) * buffer.element_size,
                      "buffer size mismatch for " + buffer.name);
  std::string dict = "{'descr': '" + npy_dtype(buffer.type.scalar) +
                     "', 'fortran_order': False, 'shape': " + shape_text(buffer.extents) + ", }";
  // The data starts at a multiple of 64 bytes; the header ends with '\n' (NEP 1).
  int major = dict.size() + 1 + 10 > 65535 ? 2 : 1;
  size_t prefix = major == 1 ? 10 : 12;
  size_t padded = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(padded - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string header(kMagic, 6);
  header += static_cast<char>(major);
  header += '\0';
  for (size_t k = 0; k < prefix - 8; ++k) header += static_cast<char>((dict.size() >> (8 * k)) & 0xff);
  write_file(path, header + dict, buffer.bytes);
}

void read_bin(const std::string& path, HostBuffer& buffer, const std::string& role) {
  const uint64_t expected = buffer_bytes(buffer);
  const std::string data = read_file(path, role, expected + kMaxNpyHeaderBytes);  // room to say how far off it is
  if (data.size() != expected)
    throw UserError(role + ": file " + path + " has " + std::to_string(data.size()) + " bytes but " + buffer.name +
                    " is " + buffer.declaration() + " (" + std::to_string(expected) + " bytes)");
  buffer.bytes.assign(data.begin(), data.end());
}

void write_bin(const std::string& path, const HostBuffer& buffer) {
  write_file(path, "", buffer.bytes);
}

namespace {
std::string extension_of(const std::string& path) {
  std::string name = file_name_of(path);
  size_t dot = name.find_last_of('.');
  return dot == std::string::npos ? "" : name.substr(dot);
}
}  // namespace

void read_buffer_file(const std::string& path, HostBuffer& buffer, const std::string& role) {
  std::string ext = extension_of(path);
  if (ext == ".npy") return read_npy(path, buffer, role);
  if (ext == ".bin") return read_bin(path, buffer, role);
  throw UserError(role + ": file " + path + " is neither .npy nor .bin");
}

void write_buffer_file(const std::string& path, const HostBuffer& buffer) {
  std::string ext = extension_of(path);
  if (ext == ".npy") {
    if (buffer.type.is_struct())
      throw UserError("output " + buffer.name + " is " + buffer.declaration() +
                      ", a struct buffer; write it as .bin, not .npy");
    return write_npy(path, buffer);
  }
  if (ext == ".bin") return write_bin(path, buffer);
  throw UserError("output " + buffer.name + ": file " + path + " is neither .npy nor .bin");
}

}  // namespace mdh
