// KernelConfig: JSON round trip, pinned messages for malformed configs, the default config, check_config.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codegen/kernel_config.h"
#include "codegen/tuning_space.h"
#include "tests/codegen/codegen_test_support.h"

namespace mdh {
namespace {

using nlohmann::json;
using testing::bind_app;

DeviceLimits small_gpu() {
  DeviceLimits l;
  l.max_work_group_size = 256;
  l.max_work_item_sizes = {256, 256, 64};
  l.local_mem_bytes = 48 * 1024;
  return l;
}

std::string error_of(const BoundMdh& bound, const json& j) {
  try {
    config_from_json(bound, j);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(KernelConfig, DefaultIsValidAndRoundTripsThroughJson) {
  for (const char* app : {"apps/gemm.mdh", "apps/gaussian.mdh", "apps/prl.mdh", "apps/mcc.mdh", "apps/dot.mdh"}) {
    const std::string sizes = std::string(app) == "apps/mcc.mdh"      ? "N=1,P=7,Q=7,K=64,C=32,R=3,S=3"
                              : std::string(app) == "apps/prl.mdh"    ? "N=100,M=50"
                              : std::string(app) == "apps/dot.mdh"    ? "K=1000"
                              : std::string(app) == "apps/gaussian.mdh" ? "I=224,J=224"
                                                                        : "I=64,J=48,K=32";
    const BoundMdh bound = bind_app(app, sizes);
    const KernelConfig c = default_config(bound, small_gpu());
    EXPECT_NO_THROW(check_config(bound, c, small_gpu())) << app;
    EXPECT_EQ(config_from_json(bound, config_to_json(*bound.mdh, c)), c) << app;
  }
}

TEST(KernelConfig, JsonFormIsReadable) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=64,J=48,K=32");
  const json j = config_to_json(*bound.mdh, default_config(bound, small_gpu()));
  EXPECT_EQ(j["NUM_WI"].dump(), R"({"i":16,"j":16,"k":1})");
  EXPECT_EQ(j["LOOP_ORDER"]["G"].dump(), R"(["i","j","k"])");
  EXPECT_EQ(j["MEM_INP"]["L"].dump(), R"({"A":"none","B":"none"})");
  EXPECT_EQ(j["MEM_RES"].dump(), R"({"G":"global","L":"private","P":"private"})");
  EXPECT_EQ(j["CMB_RES"], "P");
}

TEST(KernelConfig, MalformedConfigsAreUserErrors) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  const json good = config_to_json(*bound.mdh, default_config(bound, small_gpu()));
  EXPECT_EQ(error_of(bound, json::array()), "error: config: expected a JSON object with the parameter families");
  json j = good;
  j.erase("NUM_WG");
  EXPECT_EQ(error_of(bound, j), "error: config: top level: missing 'NUM_WG'");
  j = good;
  j["VECTOR_WIDTH"] = 4;
  EXPECT_EQ(error_of(bound, j),
            "error: config: top level: unknown key 'VECTOR_WIDTH' (expected NUM_WG, NUM_WI, LT_SIZE, PT_SIZE, MEM_INP, "
            "MEM_RES, ORDER_OCL, BUF_ORDER, LOOP_ORDER, CMB_RES)");
  j = good;
  j["LT_SIZE"]["x"] = 4;
  EXPECT_EQ(error_of(bound, j), "error: config: LT_SIZE: unknown key 'x' (expected i, j, k)");
  j = good;
  j["PT_SIZE"]["k"] = "four";
  EXPECT_EQ(error_of(bound, j), "error: config: PT_SIZE.k: expected an integer");
  j = good;
  j["NUM_WG"]["i"] = 0;
  EXPECT_EQ(error_of(bound, j), "error: config: NUM_WG.i: must be at least 1, got 0");
  j = good;
  j["MEM_INP"]["L"]["A"] = "shared";
  EXPECT_EQ(error_of(bound, j),
            "error: config: MEM_INP.L.A: unknown memory region 'shared' (expected none, private, local or global)");
  j = good;
  j["LOOP_ORDER"]["P"] = {"i", "i", "k"};
  EXPECT_EQ(error_of(bound, j), "error: config: LOOP_ORDER.P: not a permutation of the dimensions (i, j, k)");
  j = good;
  j["LOOP_ORDER"]["P"] = {"i", "q", "k"};
  EXPECT_EQ(error_of(bound, j), "error: config: LOOP_ORDER.P: '\"q\"' is not a dimension of gemm");
  j = good;
  j["BUF_ORDER"]["L"]["B"] = {0, 2};
  EXPECT_EQ(error_of(bound, j), "error: config: BUF_ORDER.L.B: not a permutation of the buffer's dimensions 0..1");
  j = good;
  j["ORDER_OCL"]["G"]["j"] = 3;
  EXPECT_EQ(error_of(bound, j), "error: config: ORDER_OCL.G.j: OpenCL dimension must be 0, 1 or 2, got 3");
  j = good;
  j["CMB_RES"] = "X";
  EXPECT_EQ(error_of(bound, j), "error: config: CMB_RES: expected \"G\", \"L\" or \"P\"");
}

TEST(KernelConfig, CheckConfigNamesTheViolatedConstraint) {
  const BoundMdh bound = bind_app("apps/gemm.mdh", "I=8,J=8,K=8");
  KernelConfig c = default_config(bound, small_gpu());
  c.private_tile_size[0] = 8;
  c.local_tile_size[0] = 4;
  c.num_wi[0] = 1;
  c.num_wg[0] = 2;
  try {
    check_config(bound, c, small_gpu());
    FAIL() << "accepted PT_SIZE > LT_SIZE";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: config: violates PT_SIZE_i <= LT_SIZE_i (LT_SIZE_i = 4, PT_SIZE_i = 8)");
  }
  c = default_config(bound, small_gpu());
  c.input_memory[0][1] = Memory::Local;
  try {
    check_config(bound, c, small_gpu());
    FAIL() << "accepted caching on the global layer";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "error: config: MEM_INP.G.B: the global layer reads inputs through (only \"none\" is supported)");
  }
  c = default_config(bound, small_gpu());
  c.num_wi = {16, 16, 2};
  c.local_tile_size = {8, 8, 8};
  c.private_tile_size = {1, 1, 1};
  EXPECT_THROW(check_config(bound, c, small_gpu()), UserError);  // NUM_WI_i > ceil(LT/PT) and 512 > 256
}

TEST(KernelConfig, AccessNamesDistinguishRepeatedBuffers) {
  const auto mdh = parse_spec("md_hom sq\nsize N\ninput x : float[N]\noutput r : float[1]\n"
                              "view (k < N) : x[k], x[k] -> r[0]\nscalar (a, b) = a * b\ncombine (+)\n",
                              "sq.mdh");
  EXPECT_EQ(input_access_name(*mdh, 0), "x@a");
  EXPECT_EQ(input_access_name(*mdh, 1), "x@b");
}

}  // namespace
}  // namespace mdh
