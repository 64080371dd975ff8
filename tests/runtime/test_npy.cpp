// .npy and .bin files: round trips for every dtype and shape, headers written by NumPy, and the diagnostics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "runtime/npy.h"
#include "support/error.h"

namespace mdh {
namespace {

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("mdh_npy_test_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write_raw(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  std::filesystem::path dir_;
};

HostBuffer buffer_of(const std::string& name, ScalarType type, std::vector<int64_t> extents) {
  HostBuffer b;
  b.name = name;
  b.type = ElementType{type, ""};
  b.element_size = size_of(type);
  b.extents = std::move(extents);
  b.bytes.resize(static_cast<size_t>(b.element_count()) * b.element_size);
  for (size_t k = 0; k < b.bytes.size(); ++k) b.bytes[k] = static_cast<unsigned char>(k * 37 + 11);
  return b;
}

std::string read_error(const std::string& path, HostBuffer b, const std::string& role = "input A") {
  try {
    read_buffer_file(path, b, role);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// An .npy file as NumPy writes it: version 1.0 header padded to 64 bytes, then the data.
std::string numpy_file(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  for (size_t k = 0; k < prefix - 8; ++k) out += static_cast<char>((header.size() >> (8 * k)) & 0xff);
  return out + header + data;
}

TEST_F(NpyTest, RoundTripEveryDtypeAndShape) {
  const ScalarType types[] = {ScalarType::Float, ScalarType::Double, ScalarType::Char, ScalarType::Uchar,
                              ScalarType::Short, ScalarType::Ushort, ScalarType::Int,  ScalarType::Uint,
                              ScalarType::Long,  ScalarType::Ulong};
  const std::vector<std::vector<int64_t>> shapes = {{7}, {3, 4}, {2, 3, 5}, {1, 1, 1, 2}};
  for (ScalarType type : types)
    for (const auto& shape : shapes) {
      HostBuffer out = buffer_of("A", type, shape);
      write_npy(path("a.npy"), out);
      HostBuffer in = buffer_of("A", type, shape);
      std::fill(in.bytes.begin(), in.bytes.end(), 0);
      read_npy(path("a.npy"), in, "input A");
      EXPECT_EQ(in.bytes, out.bytes) << opencl_name(type) << " " << shape.size();
      // The data starts at a multiple of 64 bytes, as NEP 1 asks.
      EXPECT_EQ(std::filesystem::file_size(path("a.npy")) % 64, out.bytes.size() % 64);
    }
  EXPECT_EQ(npy_dtype(ScalarType::Uchar), "|u1");
  EXPECT_EQ(npy_dtype(ScalarType::Ushort), "<u2");
}

// half is NumPy's float16; bfloat16, which NumPy lacks, travels as its bit patterns in uint16 arrays.
TEST_F(NpyTest, HalfAndBfloat16RoundTripAndSayWhatTheyNeed) {
  for (ScalarType type : {ScalarType::Half, ScalarType::Bfloat16}) {
    HostBuffer out = buffer_of("A", type, {3, 5});
    write_npy(path("a.npy"), out);
    HostBuffer in = buffer_of("A", type, {3, 5});
    std::fill(in.bytes.begin(), in.bytes.end(), 0);
    read_npy(path("a.npy"), in, "input A");
    EXPECT_EQ(in.bytes, out.bytes) << opencl_name(type);
  }
  EXPECT_EQ(npy_dtype(ScalarType::Half), "<f2");
  EXPECT_EQ(npy_dtype(ScalarType::Bfloat16), "<u2");
  // The header as NumPy writes it for numpy.float16 (1.0 and -2.0).
  HostBuffer h = buffer_of("A", ScalarType::Half, {2});
  const std::string one_minus_two("\x00\x3c\x00\xc0", 4);
  write_raw("h.npy", numpy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", one_minus_two));
  read_npy(path("h.npy"), h, "input A");
  EXPECT_EQ(std::string(h.bytes.begin(), h.bytes.end()), one_minus_two);

  write_npy(path("f.npy"), buffer_of("A", ScalarType::Float, {3, 5}));
  EXPECT_EQ(read_error(path("f.npy"), buffer_of("A", ScalarType::Half, {3, 5})),
            "input A: file " + path("f.npy") +
                " has dtype <f4 but A is half[3][5] (dtype <f2); convert with x.astype(numpy.float16)");
  EXPECT_EQ(read_error(path("f.npy"), buffer_of("A", ScalarType::Bfloat16, {3, 5})),
            "input A: file " + path("f.npy") +
                " has dtype <f4 but A is bfloat16[3][5] (dtype <u2); NumPy has no bfloat16: give its bit patterns as "
                "uint16, the upper 16 bits of each float32 ((x.astype(numpy.float32).view(numpy.uint32) >> "
                "16).astype(numpy.uint16) truncates; mdh's docs round)");
}

TEST_F(NpyTest, ReadsHeadersAsNumpyWritesThem) {
  HostBuffer b = buffer_of("A", ScalarType::Char, {2, 3});
  std::string data = "\x01\x02\x03\xfd\xfe\xff";
  write_raw("v1.npy", numpy_file("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }", data));
  read_npy(path("v1.npy"), b, "input A");
  EXPECT_EQ(std::string(b.bytes.begin(), b.bytes.end()), data);
  // Format 2.0 and '<i1' (NumPy accepts either byte-order mark for 1-byte types).
  write_raw("v2.npy", numpy_file("{\"descr\":\"<i1\",\"fortran_order\":False,\"shape\":(2,3)}", data, 2));
  read_npy(path("v2.npy"), b, "input A");
  EXPECT_EQ(std::string(b.bytes.begin(), b.bytes.end()), data);
}

TEST_F(NpyTest, Diagnostics) {
  HostBuffer a = buffer_of("A", ScalarType::Float, {4, 4});
  write_npy(path("a.npy"), buffer_of("A", ScalarType::Float, {3, 4}));
  EXPECT_EQ(read_error(path("a.npy"), a), "input A: file " + path("a.npy") + " has shape (3, 4) but A is float[4][4]");
  write_npy(path("v.npy"), buffer_of("A", ScalarType::Float, {16}));
  EXPECT_EQ(read_error(path("v.npy"), a), "input A: file " + path("v.npy") + " has shape (16,) but A is float[4][4]");
  write_npy(path("d.npy"), buffer_of("A", ScalarType::Double, {4, 4}));
  EXPECT_EQ(read_error(path("d.npy"), a),
            "input A: file " + path("d.npy") + " has dtype <f8 but A is float[4][4] (dtype <f4)");
  write_raw("f.npy", numpy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (4, 4), }", std::string(64, '\0')));
  EXPECT_EQ(
      read_error(path("f.npy"), a),
      "input A: file " + path("f.npy") + " is in Fortran order; mdh reads C order (save numpy.ascontiguousarray(x))");
  write_raw("b.npy", numpy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (4, 4), }", std::string(64, '\0')));
  EXPECT_EQ(read_error(path("b.npy"), a),
            "input A: file " + path("b.npy") + " is big-endian (>f4); mdh reads little-endian .npy files");
  write_raw("t.npy", numpy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", std::string(60, '\0')));
  EXPECT_EQ(read_error(path("t.npy"), a),
            "input A: file " + path("t.npy") + " holds 60 bytes of data but its header says 64");
  write_raw("x.npy", "hello");
  EXPECT_EQ(read_error(path("x.npy"), a),
            "input A: file " + path("x.npy") + " is not a .npy file (no \\x93NUMPY magic)");
  write_raw("h.npy", numpy_file("{'descr': '<f4', 'shape': (4, 4), }", std::string(64, '\0')));
  EXPECT_EQ(read_error(path("h.npy"), a),
            "input A: file " + path("h.npy") +
                " is not a valid .npy file: the header lacks 'descr', 'fortran_order' or 'shape'");
  EXPECT_EQ(read_error(path("missing.npy"), a),
            "input A: cannot read '" + path("missing.npy") + "': No such file or directory");
  // Issue 15 item 2: a directory threw std::ios_base::failure, a device such as /dev/zero was read without end.
  std::filesystem::create_directories(path("dir.npy"));
  EXPECT_EQ(read_error(path("dir.npy"), a), "input A: cannot read '" + path("dir.npy") + "': it is a directory");
  HostBuffer zero = a;
  EXPECT_THROW(read_npy("/dev/zero", zero, "input A"), UserError);
  try {
    read_npy("/dev/zero", zero, "input A");
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "input A: cannot read '/dev/zero': it holds more than the limit of " +
                                         std::to_string(64 + (1 << 20)) + " bytes");
  }
  EXPECT_EQ(read_error(path("a.txt"), a), "input A: file " + path("a.txt") + " is neither .npy nor .bin");
}

TEST_F(NpyTest, StructBuffersUseBin) {
  HostBuffer records;
  records.name = "a";
  records.type = ElementType{ScalarType::Float, "record"};
  records.element_size = 14;
  records.extents = {3};
  records.bytes.assign(42, 7);
  EXPECT_EQ(read_error(path("a.npy"), records, "input a"),
            "input a: a is record[3], a struct buffer; give it as a raw .bin file, not .npy");
  EXPECT_THROW(write_buffer_file(path("a.npy"), records), UserError);
  write_buffer_file(path("a.bin"), records);
  HostBuffer in = records;
  in.bytes.assign(42, 0);
  read_buffer_file(path("a.bin"), in, "input a");
  EXPECT_EQ(in.bytes, records.bytes);
  records.extents = {4};
  EXPECT_EQ(read_error(path("a.bin"), records, "input a"),
            "input a: file " + path("a.bin") + " has 42 bytes but a is record[4] (56 bytes)");
}

}  // namespace
}  // namespace mdh
