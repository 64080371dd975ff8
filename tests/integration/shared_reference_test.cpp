// The reference output shared by a tuning run's workers through a file (pipeline/shared_reference.h): it round-trips
// in the spec's types and widened to double, a worker started later adopts exactly what an earlier one computed from
// the same seed, and a file for another output or no reference at all is refused with the reason.
#include "pipeline/shared_reference.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "pipeline/md_hom_run.h"
#include "pipeline/pipeline.h"
#include "pipeline/tuning_request.h"
#include "runtime/device.h"
#include "support/error.h"
#include "tests/integration/command_runner.h"

namespace mdh {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mdh_shared_reference_" + std::to_string(::getpid()) + name))
      .string();
}

BoundMdh small_gemm(const std::string& sizes = "I=24,J=16,K=8") {
  return load_and_bind(std::string(MDH_SOURCE_DIR) + "/apps/gemm.mdh", sizes);
}

TEST(SharedReference, AWorkerStartedLaterAdoptsWhatTheFirstComputed) {
  const std::string path = temp_path("adopt");
  const BoundMdh bound = small_gemm();
  const HostBuffer shape = make_host_buffer(bound, bound.output.buffer);
  EXPECT_EQ(load_shared_reference(path, shape), std::nullopt) << "no file yet";
  const DeviceInfo device = select_device("");
  Context first_context{device};
  MdHomRun first{first_context, bound, {}, {}, 7};
  save_shared_reference(path, first.reference_output(), first.reference_in_double());
  // A later worker: the same seed gives the same inputs, so its own reference is the one in the file.
  Context later_context{device};
  MdHomRun later{later_context, bound, {}, {}, 7};
  const std::optional<SharedReference> shared = load_shared_reference(path, shape);
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->in_double, later.reference_in_double());
  EXPECT_EQ(shared->output.bytes, later.reference_output().bytes);
  EXPECT_EQ(shared->output.element_size, later.reference_output().element_size);
  MdHomRun adopting{later_context, bound, {}, {}, 7};
  adopting.adopt_reference(shared->output, shared->in_double);
  EXPECT_EQ(adopting.reference_output().bytes, later.reference_output().bytes);
  std::remove(path.c_str());
}

TEST(SharedReference, RoundTripsInTheSpecsTypesAndInDouble) {
  const std::string path = temp_path("types");
  const BoundMdh bound = small_gemm();
  HostBuffer output = make_host_buffer(bound, bound.output.buffer);
  for (size_t k = 0; k < output.bytes.size(); ++k) output.bytes[k] = static_cast<unsigned char>(k * 7);
  save_shared_reference(path, output, false);
  std::optional<SharedReference> loaded = load_shared_reference(path, make_host_buffer(bound, bound.output.buffer));
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(loaded->in_double);
  EXPECT_EQ(loaded->output.bytes, output.bytes);
  const HostBuffer wide = float_to_double(output);
  save_shared_reference(path, wide, true);
  loaded = load_shared_reference(path, make_host_buffer(bound, bound.output.buffer));
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(loaded->in_double);
  EXPECT_EQ(loaded->output.element_size, sizeof(double));
  EXPECT_EQ(loaded->output.type.scalar, ScalarType::Double);
  EXPECT_EQ(loaded->output.bytes, wide.bytes);
  std::remove(path.c_str());
}

TEST(SharedReference, AFileForAnotherOutputOrNoReferenceIsRefused) {
  const std::string path = temp_path("other");
  const BoundMdh bound = small_gemm();
  save_shared_reference(path, make_host_buffer(bound, bound.output.buffer), false);
  const BoundMdh other = small_gemm("I=32,J=16,K=8");
  try {
    load_shared_reference(path, make_host_buffer(other, other.output.buffer));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "the shared reference output '" + path + "' is for another output than " +
                                         make_host_buffer(other, other.output.buffer).declaration());
  }
  { std::ofstream(path) << "C,0.5\n"; }
  try {
    load_shared_reference(path, make_host_buffer(bound, bound.output.buffer));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "'" + path + "' is not a shared reference output");
  }
  std::remove(path.c_str());
}

// `mdh tune-worker` twice on one request, as a worker and its restart after a timeout: the first computes the
// reference and saves it, the second reads it. Each says so among its start-up stages in its "ready" line.
TEST(SharedReference, TheTuningRunsWorkersComputeItOnce) {
  TuningRequest request;
  request.spec_path = std::string(MDH_SOURCE_DIR) + "/apps/gemm.mdh";
  request.sizes = "I=24,J=16,K=8";
  request.shared_reference = temp_path("workers");
  const std::string request_path = temp_path("request.json");
  request.write(request_path);
  auto start_worker = [&] {
    return testing::run_command(std::string(MDH_BINARY) + " tune-worker --request " + request_path + " < /dev/null");
  };
  const testing::CommandResult first = start_worker();
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("[\"reference\","), std::string::npos) << first.output;
  EXPECT_TRUE(std::filesystem::exists(request.shared_reference));
  const testing::CommandResult restarted = start_worker();
  ASSERT_EQ(restarted.status, 0) << restarted.output;
  EXPECT_NE(restarted.output.find("[\"reference (shared)\","), std::string::npos) << restarted.output;
  EXPECT_EQ(restarted.output.find("[\"reference\","), std::string::npos) << restarted.output;
  std::remove(request.shared_reference.c_str());
  std::remove(request_path.c_str());
}

}  // namespace
}  // namespace mdh
