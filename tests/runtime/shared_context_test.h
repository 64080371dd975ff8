// A fixture whose tests share one Context on the default device, made once per test suite (a context, its queue
// and its program cache cost more than most of the tests that use them).
#pragma once

#include <gtest/gtest.h>

#include "runtime/context.h"
#include "runtime/device.h"

namespace mdh::testing {

class SharedContextTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = new Context(select_device("")); }
  static void TearDownTestSuite() {
    delete context_;
    context_ = nullptr;
  }
  static inline Context* context_ = nullptr;
};

}  // namespace mdh::testing
