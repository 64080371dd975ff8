// Context: program cache, build errors with their log, the binary cache and the log kept with each binary, device
// buffers, OpenCL error names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/binary_cache.h"
#include "runtime/context.h"
#include "runtime/opencl_error.h"
#include "support/error.h"
#include "tests/runtime/shared_context_test.h"

namespace mdh {
namespace {

TEST(OpenClError, NamesAndExplanations) {
  EXPECT_STREQ(opencl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_STREQ(opencl_error_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_STREQ(opencl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  EXPECT_STREQ(opencl_error_name(-12345), "CL_UNKNOWN_ERROR");
  EXPECT_EQ(describe_opencl_error(-61),
            "CL_INVALID_BUFFER_SIZE (-61): the buffer size is zero or exceeds the device's maximum allocation size");
  // Every OpenCL 1.2 code from -1 to -19 and -30 to -68 has its own name.
  for (cl_int code = -1; code >= -68; --code) {
    if (code < -19 && code > -30) continue;
    EXPECT_STRNE(opencl_error_name(code), "CL_UNKNOWN_ERROR") << code;
  }
}

TEST(OpenClError, CheckThrowsUserErrorAndPassesSuccess) {
  EXPECT_NO_THROW(check(CL_SUCCESS, "clFinish"));
  try {
    check(CL_OUT_OF_RESOURCES, "clFinish");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(
        e.what(),
        "OpenCL error in clFinish: CL_OUT_OF_RESOURCES (-5): the device ran out of resources (registers, local "
        "memory, or a kernel crashed)");
  }
}

TEST(BuildLog, TrimsBlankAndSummaryLinesOnly) {
  EXPECT_EQ(trim_build_log("\n\ngemm.mdh:7:14: error: use of undeclared identifier 'q'\n  a * q\n      ^\n1 error "
                           "generated.\n\n"),
            "gemm.mdh:7:14: error: use of undeclared identifier 'q'\n  a * q\n      ^");
  EXPECT_EQ(trim_build_log("x.mdh:1:1: warning: w\n2 warnings and 1 error generated.\n"), "x.mdh:1:1: warning: w");
  EXPECT_EQ(
      trim_build_log("error: g.mdh:8:9: use of undeclared identifier 'q'\nDevice cpu failed to build the program\n"),
      "g.mdh:8:9: error: use of undeclared identifier 'q'");  // PoCL's order, turned into the usual one
  EXPECT_EQ(trim_build_log(""), "");
}

using ContextTest = testing::SharedContextTest;

TEST_F(ContextTest, BuildErrorCarriesTheLogWithSpecLines) {
  const std::string source = "#line 7 \"gemm.mdh\"\nkernel void k(global float* x) { x[0] = undeclared_thing; }\n";
  try {
    context_->program(source, "");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    std::string message = e.what();
    EXPECT_EQ(message.rfind("OpenCL build failed on device '" + context_->device().name + "':\n", 0), 0u) << message;
    EXPECT_NE(message.find("gemm.mdh:7:"), std::string::npos) << message;
    EXPECT_NE(message.find("undeclared_thing"), std::string::npos) << message;
    EXPECT_EQ(message.find("generated."), std::string::npos) << message;
    EXPECT_EQ(message.find("failed to build the program"), std::string::npos) << message;
  }
}

TEST_F(ContextTest, ProgramCacheIsKeyedBySourceAndOptions) {
  const std::string source = "kernel void k(global int* x) { x[0] = VALUE; }\n";
  size_t before = context_->cached_program_count();
  cl_program p1 = context_->program(source, "-DVALUE=1");
  cl_program p2 = context_->program(source, "-DVALUE=1");
  cl_program p3 = context_->program(source, "-DVALUE=2");
  EXPECT_EQ(p1, p2);
  EXPECT_NE(p1, p3);
  EXPECT_EQ(context_->cached_program_count(), before + 2);
  EXPECT_EQ(context_->kernel(p1, "k"), context_->kernel(p1, "k"));
  EXPECT_THROW(context_->kernel(p1, "no_such_kernel"), UserError);
}

TEST_F(ContextTest, BadBuildOptionsAreAUserError) {
  EXPECT_THROW(context_->program("kernel void k() {}\n", "-this-is-not-an-option"), UserError);
}

// A folder of its own per test process, removed at the end.
struct TemporaryFolder {
  std::string path =
      (std::filesystem::temp_directory_path() / ("mdh-binary-cache-" + std::to_string(::getpid()))).string();
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

TEST_F(ContextTest, TheBinaryCacheKeepsEachBinaryWithItsBuildLog) {
  TemporaryFolder folder;
  const BinaryCache cache(folder.path);
  const DeviceInfo& device = context_->device();
  cache.store(device, "kernel source", "-DX=1", {{1, 2, 3}, "ptxas info    : Used 40 registers\n"});
  const std::optional<CachedBinary> loaded = cache.load(device, "kernel source", "-DX=1");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->binary, (std::vector<unsigned char>{1, 2, 3}));
  EXPECT_EQ(loaded->build_log, "ptxas info    : Used 40 registers\n");
  EXPECT_FALSE(cache.load(device, "kernel source", "-DX=2"));  // other options: another build
  // A file cut short (a writer killed before the rename cannot leave one, a full disk can) counts as absent.
  const std::filesystem::path file = std::filesystem::directory_iterator(folder.path)->path();
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 3 - 10);  // inside the log
  EXPECT_FALSE(cache.load(device, "kernel source", "-DX=1"));
}

// A program loaded from the binary cache is not compiled, so the driver's log of the load says nothing of the
// compile: the Context gives the log stored with the binary (here replaced, to tell the two apart).
TEST_F(ContextTest, AProgramFromTheBinaryCacheHasTheLogOfTheBuildThatMadeIt) {
  TemporaryFolder folder;
  auto cache = std::make_shared<BinaryCache>(folder.path);
  const std::string source = "kernel void k(global int* x) { x[0] = 42; }\n";
  Context compiler(context_->device());
  compiler.use_binary_cache(cache);
  const cl_program compiled = compiler.program(source, "");
  EXPECT_EQ(compiler.build_log(source, ""), program_build_log(compiled, context_->device().device));
  EXPECT_EQ(compiler.binary_cache_hits(), 0u);
  std::optional<CachedBinary> stored = cache->load(context_->device(), source, "");
  ASSERT_TRUE(stored);
  stored->build_log = "the compile's log";
  cache->store(context_->device(), source, "", *stored);

  Context loader(context_->device());
  loader.use_binary_cache(cache);
  loader.program(source, "");
  EXPECT_EQ(loader.binary_cache_hits(), 1u);
  EXPECT_EQ(loader.build_log(source, ""), "the compile's log");
  EXPECT_THROW(loader.build_log(source, "-DNEVER_BUILT"), InternalError);
}

TEST_F(ContextTest, BufferRoundTrip) {
  std::vector<unsigned char> data(1000);
  for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<unsigned char>(k * 7);
  DeviceBuffer buffer = context_->create_buffer(data.size());
  EXPECT_EQ(buffer.bytes(), data.size());
  buffer.write(data);
  EXPECT_EQ(buffer.read(), data);
  EXPECT_THROW(buffer.write(data.data(), 10), InternalError);
  DeviceBuffer moved = std::move(buffer);
  EXPECT_EQ(moved.read(), data);
  EXPECT_EQ(buffer.get(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is what we check
  EXPECT_EQ(buffer.bytes(), 0u);
}

// A fill on the device replaces every byte, an odd-sized buffer's last one too.
TEST_F(ContextTest, BufferFillSetsEveryByte) {
  std::vector<unsigned char> data(1001);
  for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<unsigned char>(k * 7);
  DeviceBuffer buffer = context_->create_buffer(data.size());
  buffer.write(data);
  buffer.fill(0xFF);
  EXPECT_EQ(buffer.read(), std::vector<unsigned char>(data.size(), 0xFF));
}

TEST_F(ContextTest, BufferLargerThanTheMaximumAllocationIsAUserError) {
  EXPECT_THROW(context_->create_buffer(context_->device().max_alloc_bytes + 1), UserError);
}

}  // namespace
}  // namespace mdh
