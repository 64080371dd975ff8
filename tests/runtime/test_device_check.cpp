// DeviceCheck decides as verify_result does: the same values pass and fail, just inside and just outside the
// tolerance, with NaN and infinities, float against double and against float, past one element per work-item.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/context.h"
#include "runtime/device_check.h"
#include "runtime/verify_result.h"

namespace mdh {
namespace {

template <class T>
HostBuffer buffer_from(const std::vector<T>& values) {
  HostBuffer b;
  b.name = "out";
  b.type = ElementType{sizeof(T) == 8 ? ScalarType::Double : ScalarType::Float, ""};
  b.element_size = sizeof(T);
  b.extents = {static_cast<int64_t>(values.size())};
  b.bytes.resize(values.size() * sizeof(T));
  std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
  return b;
}

const Mdh kNoStructs;

class DeviceCheckTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = new Context(select_device("")); }
  static void TearDownTestSuite() {
    delete context_;
    context_ = nullptr;
  }
  // The device's verdict, after checking that the host's is the same.
  static bool passes(const HostBuffer& output, const HostBuffer& reference, int64_t reduction_size) {
    std::optional<DeviceCheck> check = DeviceCheck::make(*context_, reference, output.type, reduction_size);
    EXPECT_TRUE(check.has_value()) << "PoCL has fp64";
    if (!check) return false;
    DeviceBuffer on_device(*context_, output.bytes.size());
    on_device.write(output.bytes);
    const bool device = check->passes(on_device);
    EXPECT_EQ(device, verify_result(output, reference, kNoStructs, reduction_size).passed);
    return device;
  }
  static Context* context_;
};
Context* DeviceCheckTest::context_ = nullptr;

TEST_F(DeviceCheckTest, FloatAgainstDoubleJustInsideAndJustOutside) {
  // R = 1: tol = 2^-16, M = 1, so the bound is 2^-15 (as in VerifyResult's test).
  const HostBuffer reference = buffer_from<double>({1.0, 1.0});
  const float inside = 1.0f + std::ldexp(1.0f, -15), outside = inside + std::ldexp(1.0f, -23);
  EXPECT_TRUE(passes(buffer_from<float>({inside, 1.0f}), reference, 1));
  EXPECT_FALSE(passes(buffer_from<float>({1.0f, outside}), reference, 1));
}

TEST_F(DeviceCheckTest, DoubleBoundScalesWithTheLargestReference) {
  const HostBuffer reference = buffer_from<double>({0.0, 1024.0});
  const double tol = std::ldexp(1.0, -42);  // R = 4096
  EXPECT_TRUE(passes(buffer_from<double>({1024 * tol, 1024.0}), reference, 4096));
  EXPECT_FALSE(passes(buffer_from<double>({std::nextafter(1024 * tol, 1.0), 1024.0}), reference, 4096));
  EXPECT_TRUE(passes(buffer_from<double>({0.0, 1024.0 + 2048 * tol}), reference, 4096));
  EXPECT_FALSE(passes(buffer_from<double>({0.0, 1024.0 + 2049 * tol}), reference, 4096));
}

TEST_F(DeviceCheckTest, NanAndInfinityAgainstFloat) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const HostBuffer reference = buffer_from<float>({nan, inf, 1.0f});
  EXPECT_TRUE(passes(buffer_from<float>({nan, inf, 1.0f}), reference, 1));
  EXPECT_FALSE(passes(buffer_from<float>({1.0f, inf, 1.0f}), reference, 1));
  EXPECT_FALSE(passes(buffer_from<float>({nan, -inf, 1.0f}), reference, 1));
  EXPECT_FALSE(passes(buffer_from<float>({nan, inf, nan}), reference, 1));
}

// More values than work-items (2^20): each work-item checks several, and a single bad one anywhere fails.
TEST_F(DeviceCheckTest, EveryValueCountsPastOnePerWorkItem) {
  const size_t count = (size_t{1} << 20) + 3;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> reference_values(count);
  for (double& v : reference_values) v = value(rng);
  std::vector<float> output_values(reference_values.begin(), reference_values.end());
  const HostBuffer reference = buffer_from(reference_values);
  EXPECT_TRUE(passes(buffer_from(output_values), reference, 1));
  for (const size_t bad : {size_t{0}, count / 2, count - 1}) {
    std::vector<float> off = output_values;
    off[bad] += 0.01f;
    EXPECT_FALSE(passes(buffer_from(off), reference, 1)) << "value " << bad;
  }
}

TEST_F(DeviceCheckTest, IntegerOutputsAreTheHostsToCheck) {
  HostBuffer reference = buffer_from<float>({1.0f});
  reference.type = ElementType{ScalarType::Int, ""};
  EXPECT_EQ(DeviceCheck::make(*context_, reference, reference.type, 1), std::nullopt);
}

}  // namespace
}  // namespace mdh
