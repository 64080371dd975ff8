// `mdh export` and the header-only runner (runtime/mdh_runner.hpp) as an application uses them: the exported files
// equal `mdh generate`'s output, and kernels exported with several configurations run through the runner (in this
// process and in examples/tuned_gemm) and match host references.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>

#include "codegen/config_json.h"
#include "codegen/default_config.h"
#include "codegen/kernel_config.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "mdh/parser.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/device.h"
#include "runtime/mdh_runner.hpp"
#include "tests/integration/command_runner.h"
#include "tests/integration/scratch_directory.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

using Result = testing::CommandResult;
using testing::run_command;

/// `mdh ARGS` from the source directory (spec paths are repo-relative).
Result mdh_cli(const std::string& args) {
  return run_command("'" MDH_BINARY "' " + args);
}
/// examples/tuned_gemm on an exported directory.
Result tuned_gemm(const fs::path& directory) {
  return run_command("'" MDH_TUNED_GEMM "' '" + directory.string() + "'");
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A fresh directory per test, removed at the end.
class ExportTest : public testing::ScratchDirectoryTest {
 protected:
  ExportTest() : ScratchDirectoryTest("mdh_export_test") {}

  /// Writes `config` (checked valid for the default device first, so a test cannot silently test nothing).
  std::string write_config(const BoundMdh& bound, const KernelConfig& config, const std::string& name) {
    check_config(bound, config, limits());
    const fs::path path = dir_ / name;
    std::ofstream(path) << config_to_json(bound, config).dump(1);
    return path.string();
  }

  static DeviceLimits limits() { return device_limits(select_device("")); }

  /// Exports gemm with split_reduction_config and WG_COMBINE `combine` (its config written as `name`), checks the
  /// directory against `mdh generate`, and returns the exported launch description.
  nlohmann::json export_split_reduction(WorkGroupCombine combine, const std::string& name);
};

constexpr const char* kGemmSize = "I=37,J=29,K=13";

BoundMdh bound_gemm() {
  return bind(parse_spec_file(MDH_SOURCE_DIR "/apps/gemm.mdh"), parse_size_binding(kGemmSize));
}

/// The golden test's configuration (tests/codegen/tunable_kernel_test.cpp) at the prime sizes: A and B cached in
/// local memory, two work-items and two work-groups per reduction, so the plan has a `gemm_combine_wg` kernel
/// folding the work-groups' partial results from a scratch buffer.
KernelConfig split_reduction_config(const BoundMdh& bound) {
  KernelConfig c = default_config(bound, DeviceLimits{});
  c.num_wg = {3, 2, 2};
  c.num_wi = {4, 4, 2};
  c.local_tile_size = {16, 16, 8};
  c.private_tile_size = {4, 4, 2};
  c.input_memory[static_cast<int>(Layer::Local)] = {Memory::Local, Memory::Local};
  c.input_memory[static_cast<int>(Layer::Private)] = {Memory::None, Memory::Private};
  c.cache_dim_order[static_cast<int>(Layer::Local)][0] = {1, 0};
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.combine_layer = Layer::Local;
  return c;
}

/// Exports gemm with `config_option` and checks the directory against `mdh generate` with the same option.
void expect_export_equals_generate(const fs::path& dir, const std::string& config_option) {
  const fs::path out = dir / "export";
  Result r = mdh_cli(std::string("export apps/gemm.mdh --size ") + kGemmSize + config_option + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* file : {"gemm.cl", "gemm.launch.json", "mdh_runner.hpp"})
    ASSERT_TRUE(fs::exists(out / file)) << file;

  const fs::path cl = dir / "generated.cl", launch = dir / "generated.json";
  r = mdh_cli(std::string("generate apps/gemm.mdh --size ") + kGemmSize + config_option + " -o " + cl.string() +
              " --launch " + launch.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_file(out / "gemm.cl"), read_file(cl));
  EXPECT_EQ(read_file(out / "gemm.launch.json"), read_file(launch));
  EXPECT_EQ(read_file(out / "mdh_runner.hpp"), read_file(MDH_SOURCE_DIR "/runtime/mdh_runner.hpp"));
}

TEST_F(ExportTest, GemmWithConfigEqualsGenerateAndPassesInTheExample) {
  const BoundMdh bound = bound_gemm();
  // The device's default configuration, but with A cached in local memory, as a tuned one might be.
  KernelConfig config = default_config(bound, limits());
  config.input_memory[static_cast<int>(Layer::Local)][0] = Memory::Local;
  const std::string path = write_config(bound, config, "best.json");
  expect_export_equals_generate(dir_, " --config " + path);

  const nlohmann::json launch = nlohmann::json::parse(read_file(dir_ / "export/gemm.launch.json"));
  EXPECT_EQ(launch.at("md_hom"), "gemm");
  EXPECT_EQ(launch.at("sizes"), (nlohmann::json{{"I", 37}, {"J", 29}, {"K", 13}}));
  EXPECT_EQ(launch.at("buffers").at(0), (nlohmann::json{{"name", "A"},
                                                        {"kind", "input"},
                                                        {"type", "float"},
                                                        {"element_bytes", 4},
                                                        {"extents", {37, 13}},
                                                        {"bytes", 37 * 13 * 4}}));
  EXPECT_EQ(launch.at("buffers").at(2).at("kind"), "output");

  const Result r = tuned_gemm(dir_ / "export");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("gemm 37x29x13: 1 kernel\\(s\\), .* max error [0-9.e+-]+: PASS")))
      << r.output;
}

TEST_F(ExportTest, WithoutConfigUsesTheDeviceDefault) {
  expect_export_equals_generate(dir_, "");
  const Result r = tuned_gemm(dir_ / "export");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(": PASS"), std::string::npos) << r.output;
}

TEST_F(ExportTest, AnApplicationBuildsWithTheReadmesOneLineCommand) {
  // README: `g++ -std=c++17 app.cpp -I DIR -lOpenCL`, nothing of mdh's build needed.
  const std::string out = (dir_ / "kernel").string(), app = (dir_ / "app").string();
  Result r = mdh_cli("export apps/gemm.mdh --size I=33,J=20,K=17 -o '" + out + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_command("g++ -std=c++17 examples/tuned_gemm.cpp -I '" + out + "' -lOpenCL -o '" + app + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run_command("'" + app + "' '" + out + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("gemm 33x20x17: 1 kernel(s), "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": PASS"), std::string::npos) << r.output;
}

/// A, B random in [-1, 1); returns C from the runner and the host reference in double.
struct GemmRun {
  std::vector<float> c;
  std::vector<double> reference;
  size_t events = 0;
};

/// The application side, in this process: own context, queue and buffers; the runner on top.
// `runs` launches, C set to NaN before each: the last one's C.
// `transposed_b`: the exported md_hom is gemm_nt, B stored as [J][K].
GemmRun run_gemm_through_runner(const fs::path& directory, int runs = 1, bool transposed_b = false) {
  mdh_runner::Plan plan = mdh_runner::Plan::load(directory.string(), transposed_b ? "gemm_nt" : "gemm");
  const size_t I = plan.size("I"), J = plan.size("J"), K = plan.size("K");
  cl_device_id device = select_device("").device;
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  mdh_runner::check(status, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
  mdh_runner::check(status, "clCreateCommandQueue");

  std::vector<float> a(I * K), b(K * J);
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& x : a) x = uniform(random);
  for (float& x : b) x = uniform(random);
  GemmRun run;
  run.c.assign(I * J, std::nanf(""));
  cl_mem A = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * 4, a.data(), &status);
  cl_mem B = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * 4, b.data(), &status);
  // C starts as NaN, so an element the kernels never write cannot pass.
  cl_mem C = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, run.c.size() * 4, run.c.data(), &status);
  {
    mdh_runner::Runner runner(context, device, queue, std::move(plan));
    clReleaseContext(context);  // the runner holds its own references
    for (int r = 0; r < runs; ++r) {
      mdh_runner::check(clEnqueueWriteBuffer(queue, C, CL_TRUE, 0, run.c.size() * 4, run.c.data(), 0, nullptr, nullptr),
                        "writing C");
      mdh_runner::Events events = runner.run({{"A", A}, {"B", B}, {"C", C}});
      run.events = events.events().size();
      events.wait();
    }
    mdh_runner::check(clEnqueueReadBuffer(queue, C, CL_TRUE, 0, run.c.size() * 4, run.c.data(), 0, nullptr, nullptr),
                      "reading C");
  }
  for (cl_mem m : {A, B, C}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);

  run.reference.assign(I * J, 0.0);
  for (size_t i = 0; i < I; ++i)
    for (size_t j = 0; j < J; ++j)
      for (size_t k = 0; k < K; ++k)
        run.reference[i * J + j] += double(a[i * K + k]) * (transposed_b ? b[j * K + k] : b[k * J + j]);
  return run;
}

// C within the tolerance of runtime/README.md (R = 13 < 64) of the double-precision reference, element by element.
void expect_gemm_matches_reference(const GemmRun& run) {
  const double tolerance = 16 * std::ldexp(1.0, -23) * 8;
  double scale = 0;
  for (double x : run.reference) scale = std::max(scale, std::fabs(x));
  for (size_t n = 0; n < run.c.size(); ++n)
    ASSERT_LE(std::fabs(run.c[n] - run.reference[n]), tolerance * (std::fabs(run.reference[n]) + scale))
        << "C[" << n / 29 << "][" << n % 29 << "] = " << run.c[n] << ", expected " << run.reference[n];
}

nlohmann::json ExportTest::export_split_reduction(WorkGroupCombine combine, const std::string& name) {
  const BoundMdh bound = bound_gemm();
  KernelConfig config = split_reduction_config(bound);
  config.work_group_combine = combine;
  expect_export_equals_generate(dir_, " --config " + write_config(bound, config, name));
  return nlohmann::json::parse(read_file(dir_ / "export/gemm.launch.json"));
}

// PACK_INP: the copy kernel runs first through the runner, from the application's B into a scratch buffer that the
// main kernel reads, with the reduction split over work-groups so that both kinds of scratch buffer meet.
TEST_F(ExportTest, APackedInputRunsThroughTheRunner) {
  const BoundMdh bound = bind(parse_spec_file(MDH_SOURCE_DIR "/apps/gemm_nt.mdh"), parse_size_binding(kGemmSize));
  KernelConfig config = split_reduction_config(bound);
  set_label(config, "PACK_INP", "moving_innermost", 1);
  const fs::path out = dir_ / "export";
  const Result r = mdh_cli(std::string("export apps/gemm_nt.mdh --size ") + kGemmSize + " --config " +
                           write_config(bound, config, "packed.json") + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json launch = nlohmann::json::parse(read_file(out / "gemm_nt.launch.json"));
  ASSERT_EQ(launch.at("kernels").size(), 3u) << launch.dump(1);
  EXPECT_EQ(launch.at("kernels").at(0).at("name"), "mdh_pack_B");
  EXPECT_EQ(launch.at("scratch").size(), 2u);
  const GemmRun run = run_gemm_through_runner(out, 1, true);
  EXPECT_EQ(run.events, 3u);
  expect_gemm_matches_reference(run);
}

TEST_F(ExportTest, ReductionSplitOverWorkGroupsRunsThroughTheRunner) {
  const nlohmann::json launch = export_split_reduction(WorkGroupCombine::kernel, "split.json");
  ASSERT_EQ(launch.at("kernels").size(), 2u) << launch.dump(1);
  EXPECT_EQ(launch.at("kernels").at(1).at("name"), "gemm_combine_wg");
  ASSERT_EQ(launch.at("scratch").size(), 1u);
  EXPECT_EQ(launch.at("scratch").at(0).at("bytes"), 2 * 37 * 29 * 4);  // [work-groups along k][output points]

  const GemmRun run = run_gemm_through_runner(dir_ / "export");
  EXPECT_EQ(run.events, 2u);
  expect_gemm_matches_reference(run);

  const Result r = tuned_gemm(dir_ / "export");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("2 kernel(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": PASS"), std::string::npos) << r.output;
}

// WG_COMBINE last: one kernel, whose count buffer the runner creates zero-filled and every launch leaves zero, so
// that the third launch still has a last work-group that writes C.
TEST_F(ExportTest, LastWorkGroupFoldRunsThroughTheRunnerLaunchAfterLaunch) {
  const nlohmann::json launch = export_split_reduction(WorkGroupCombine::last, "last.json");
  ASSERT_EQ(launch.at("kernels").size(), 1u) << launch.dump(1);
  ASSERT_EQ(launch.at("scratch").size(), 2u) << launch.dump(1);
  EXPECT_EQ(launch.at("scratch").at(1).at("bytes"), 3 * 2 * 4);  // an int per work-group of i and j (NUM_WG 3, 2)
  EXPECT_EQ(launch.at("scratch").at(1).at("zeroed"), true);

  const GemmRun run = run_gemm_through_runner(dir_ / "export", 3);
  EXPECT_EQ(run.events, 1u);
  expect_gemm_matches_reference(run);
}

// WG_COMBINE atomic: one kernel and two zero-filled scratch buffers, the counts and the accumulators (a float per
// point of C), which every launch leaves zero, so that the third launch still adds from zero.
TEST_F(ExportTest, AtomicAccumulatorsRunThroughTheRunnerLaunchAfterLaunch) {
  const nlohmann::json launch = export_split_reduction(WorkGroupCombine::atomic, "atomic.json");
  ASSERT_EQ(launch.at("kernels").size(), 1u) << launch.dump(1);
  ASSERT_EQ(launch.at("scratch").size(), 2u) << launch.dump(1);
  EXPECT_EQ(launch.at("scratch").at(0).at("bytes"), 3 * 2 * 4);    // an int per work-group of i and j (NUM_WG 3, 2)
  EXPECT_EQ(launch.at("scratch").at(1).at("bytes"), 37 * 29 * 4);  // a float per point of C
  for (int s = 0; s < 2; ++s) EXPECT_EQ(launch.at("scratch").at(s).at("zeroed"), true);

  const GemmRun run = run_gemm_through_runner(dir_ / "export", 3);
  EXPECT_EQ(run.events, 1u);
  expect_gemm_matches_reference(run);
}

TEST_F(ExportTest, ParamsAreSetByNameAndSize) {
  std::ofstream(dir_ / "axpy.mdh") << "md_hom axpy\nsize N\nparam alpha : float\ninput x : float[N]\n"
                                      "input y : float[N]\noutput z : float[N]\nview (i < N) : x[i], y[i] -> z[i]\n"
                                      "scalar (a, b) = alpha * a + b\ncombine (++)\n";
  const Result r = mdh_cli("export " + (dir_ / "axpy.mdh").string() + " --size N=11 -o " + (dir_ / "axpy").string());
  ASSERT_EQ(r.status, 0) << r.output;

  cl_device_id device = select_device("").device;
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  std::vector<float> x(11), y(11), z(11, std::nanf(""));
  for (int i = 0; i < 11; ++i) x[i] = float(i), y[i] = 100.0f * float(i);
  cl_mem X = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 44, x.data(), &status);
  cl_mem Y = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 44, y.data(), &status);
  cl_mem Z = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 44, nullptr, &status);
  {
    mdh_runner::Runner axpy(context, device, queue, mdh_runner::Plan::load((dir_ / "axpy").string(), "axpy"));
    ASSERT_EQ(axpy.plan().params.size(), 1u);
    EXPECT_EQ(axpy.plan().params[0].type, "float");
    try {
      axpy.run({{"x", X}, {"y", Y}, {"z", Z}});
      ADD_FAILURE() << "ran without alpha";
    } catch (const mdh_runner::Error& e) {
      EXPECT_STREQ(e.what(), "mdh_runner: param 'alpha' is not set (Runner::set_param)");
    }
    try {
      axpy.set_param("alpha", 2.0);
      ADD_FAILURE() << "took a double for a float";
    } catch (const mdh_runner::Error& e) {
      EXPECT_STREQ(e.what(), "mdh_runner: param 'alpha' is a float of 4 bytes, given 8");
    }
    axpy.set_param("alpha", 2.5f);
    axpy.run({{"x", X}, {"y", Y}, {"z", Z}});
    ASSERT_EQ(clEnqueueReadBuffer(queue, Z, CL_TRUE, 0, 44, z.data(), 0, nullptr, nullptr), CL_SUCCESS);
  }
  for (int i = 0; i < 11; ++i) EXPECT_EQ(z[i], 2.5f * float(i) + 100.0f * float(i)) << i;
  for (cl_mem m : {X, Y, Z}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

TEST_F(ExportTest, RunnerRejectsMissingUnknownAndSmallBuffers) {
  ASSERT_EQ(mdh_cli(std::string("export apps/gemm.mdh --size ") + kGemmSize + " -o " + dir_.string()).status, 0);
  cl_device_id device = select_device("").device;
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &status);
  ASSERT_EQ(status, CL_SUCCESS);
  cl_mem big = clCreateBuffer(context, CL_MEM_READ_WRITE, 37 * 29 * 4, nullptr, &status);
  cl_mem small = clCreateBuffer(context, CL_MEM_READ_WRITE, 37 * 13 * 4 - 4, nullptr, &status);
  {
    mdh_runner::Runner gemm(context, device, queue, mdh_runner::Plan::load(dir_.string(), "gemm"));
    const auto error_of = [&](const std::map<std::string, cl_mem>& buffers) -> std::string {
      try {
        gemm.run(buffers);
      } catch (const mdh_runner::Error& e) {
        return e.what();
      }
      return "(no error)";
    };
    EXPECT_EQ(error_of({{"A", big}, {"B", big}}),
              "mdh_runner: buffer 'C' is missing (kernel 'gemm_tunable' takes it; buffers: A, B, C)");
    EXPECT_EQ(error_of({{"A", big}, {"B", big}, {"C", big}, {"D", big}}),
              "mdh_runner: gemm takes no buffer 'D' (buffers: A, B, C)");
    EXPECT_EQ(error_of({{"A", small}, {"B", big}, {"C", big}}),
              "mdh_runner: buffer 'A' has 1920 bytes; gemm needs 1924 (float[37][13])");
  }
  for (cl_mem m : {big, small}) clReleaseMemObject(m);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

TEST_F(ExportTest, UserErrorsExitWith2) {
  struct Case {
    std::string args, message;
  };
  const std::string out = " -o " + (dir_ / "out").string();
  const BoundMdh bound = bound_gemm();
  KernelConfig too_many_groups = default_config(bound, limits());
  too_many_groups.num_wg[0] = 1000;  // more work-groups than I has indices
  const fs::path bad_config = dir_ / "bad.json";
  std::ofstream(bad_config) << config_to_json(bound, too_many_groups).dump();
  const std::vector<Case> cases = {
      {std::string("apps/gemm.mdh --size ") + kGemmSize + " --config no-such.json" + out,
       "no-such.json: error: cannot read the configuration file"},
      {std::string("apps/gemm.mdh --size ") + kGemmSize + " --config " + bad_config.string() + out,
       bad_config.string() + ": error: config: NUM_WG_i: 1000 is outside its range [1, 37]"},
      {"apps/gemm.mdh --size I=37,J=29" + out,
       "apps/gemm.mdh:3:12: error: size 'K' is not bound (use --size K=<value>)"},
      {"apps/gemm.mdh --size I=37,J=x,K=13" + out,
       "error: malformed size binding 'I=37,J=x,K=13': expected an integer value for 'J'"},
      {std::string("apps/gemm.mdh --size ") + kGemmSize, "error: mdh export: missing the output directory (-o DIR)"},
      {std::string("apps/gemm.mdh --size ") + kGemmSize + " --device no-such-device-xyz" + out, "no-such-device-xyz"},
  };
  for (const Case& c : cases) {
    const Result r = mdh_cli("export " + c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));  // nothing is written before the inputs are checked
  const Result help = mdh_cli("export --help");
  EXPECT_EQ(help.status, 0) << help.output;
  EXPECT_NE(help.output.find("usage: mdh export SPEC --size"), std::string::npos) << help.output;
}

// The runner must build in an application that has nothing of mdh: only OpenCL's and nlohmann's headers and the
// standard library. (examples/tuned_gemm links no mdh library; this also keeps includes of mdh headers out.)
TEST(MdhRunner, IncludesOnlyOpenClNlohmannAndStandardHeaders) {
  std::istringstream text(read_file(MDH_SOURCE_DIR "/runtime/mdh_runner.hpp"));
  const std::regex include(R"(^\s*#\s*include\s*(\S+))");
  int count = 0;
  for (std::string line; std::getline(text, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, include)) continue;
    ++count;
    const std::string header = m[1];
    const bool allowed = header == "<CL/cl.h>" || header == "<OpenCL/cl.h>" || header == "<nlohmann/json.hpp>" ||
                         std::regex_match(header, std::regex("<[a-z_]+>"));
    EXPECT_TRUE(allowed) << header;
  }
  EXPECT_GT(count, 3);
}

}  // namespace
}  // namespace mdh
