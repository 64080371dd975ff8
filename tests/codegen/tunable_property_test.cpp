// CI property tests: 50 random valid configurations per md_hom against the reference kernel on PoCL, built with
// -cl-opt-disable to keep the suite fast (the soak run, tunable_soak_test.cpp, builds them as generated).
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/codegen/tunable_property_support.h"

namespace mdh::testing {
namespace {

class TunableProperty : public ::testing::TestWithParam<PropertyCase> {};

// MDH_TUNABLE_BUILD_OPTIONS replaces -cl-opt-disable (e.g. set it to " " to run these optimised).
TEST_P(TunableProperty, RandomValidConfigurationsMatchTheReference) {
  const char* options = std::getenv("MDH_TUNABLE_BUILD_OPTIONS");
  run_property_case(GetParam(), 50, 20261122, options ? options : "-cl-opt-disable");
}

INSTANTIATE_TEST_SUITE_P(AllMdHoms, TunableProperty, ::testing::ValuesIn(property_cases()),
                         [](const ::testing::TestParamInfo<PropertyCase>& info) { return info.param.name; });

}  // namespace
}  // namespace mdh::testing
