// The peer programs end to end at small sizes: each runs on mdh's inputs, validates against mdh's reference on the
// default OpenCL device (PoCL here) and writes its JSON record.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "peers/peer_common.h"
#include "runtime/device.h"
#include "runtime/verify_result.h"

namespace {

namespace fs = std::filesystem;

struct PeerRun {
  int exit_code = -1;
  std::string stderr_text;
  nlohmann::json record;
};

fs::path scratch_dir() {
  fs::path dir = fs::temp_directory_path() / ("mdh_peers_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

/// Runs `program` with `arguments` (and a small run limit), returns its exit code, stderr and JSON record.
PeerRun run_peer(const std::string& program, const std::string& arguments) {
  const fs::path dir = scratch_dir();
  const fs::path json = dir / (program + ".json"), err = dir / (program + ".err");
  fs::remove(json);
  const std::string command = std::string(MDH_PEER_DIR) + "/" + program + " " + arguments +
                              " --warmups 1 --max-runs 6 --json " + json.string() + " > /dev/null 2> " + err.string();
  const int status = std::system(command.c_str());
  PeerRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err_in(err);
  run.stderr_text.assign(std::istreambuf_iterator<char>(err_in), std::istreambuf_iterator<char>());
  if (fs::exists(json)) std::ifstream(json) >> run.record;
  return run;
}

std::string spec(const std::string& name) {
  return std::string(" --spec ") + MDH_SOURCE_DIR + "/apps/" + name;
}

/// A validated record; `steady`: whether the program provides the steady instrument (every peer and mdh's own
/// kernels do; the fake peers of the harness tests may not).
void expect_validated_record(const PeerRun& run, const std::string& peer, const std::string& routine,
                             bool steady = true) {
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  const nlohmann::json& r = run.record;
  EXPECT_EQ(r.at("peer"), peer);
  EXPECT_EQ(r.at("routine"), routine);
  EXPECT_EQ(r.at("label"), "test");
  EXPECT_TRUE(r.at("validation").at("passed").get<bool>());
  EXPECT_GE(r.at("validation").at("max_abs_error").get<double>(), 0.0);
  EXPECT_GE(r.at("runs").get<int>(), 5);
  EXPECT_LE(r.at("runs").get<int>(), 6);
  for (const char* time : {"device_time_ns", "call_time_ns"}) {
    const nlohmann::json& t = r.at(time);
    EXPECT_GT(t.at("median").get<double>(), 0.0) << time;
    EXPECT_LE(t.at("min").get<double>(), t.at("median").get<double>()) << time;
    EXPECT_LE(t.at("median").get<double>(), t.at("max").get<double>()) << time;
  }
  EXPECT_FALSE(r.at("time_includes").at("device").get<std::string>().empty());
  if (steady) {
    const nlohmann::json& t = r.at("steady_time_ns");
    EXPECT_GT(t.at("median").get<double>(), 0.0);
    EXPECT_LE(t.at("min").get<double>(), t.at("median").get<double>());
    const int calls = r.at("steady").at("calls_per_sample").get<int>();
    EXPECT_GE(calls, 1);
    EXPECT_LE(calls, mdh::peers::kSteadyMaxCalls);
    EXPECT_GE(r.at("steady").at("samples").get<int>(), 5);
    EXPECT_EQ(r.at("time_includes").at("steady"), r.at("steady").at("includes"));
  } else {
    EXPECT_FALSE(r.contains("steady_time_ns"));
  }
  EXPECT_FALSE(r.at("library_version").get<std::string>().empty());
  EXPECT_FALSE(r.at("layouts").get<std::string>().empty());
}

struct BlasCase {
  std::string routine, spec_file, sizes;
};
const BlasCase kBlasCases[] = {{"gemm", "gemm.mdh", "I=37,J=29,K=41"},
                               {"gemm_nt", "gemm_nt.mdh", "I=37,J=29,K=41"},
                               {"gemv", "gemv.mdh", "I=53,K=71"},
                               {"dot", "dot.mdh", "K=1000"}};

void run_blas_cases(const std::string& program, const std::string& peer) {
  for (const BlasCase& c : kBlasCases) {
    SCOPED_TRACE(program + " " + c.routine);
    PeerRun run = run_peer(
        program, "--routine " + c.routine + spec(c.spec_file) + " --size " + c.sizes + " --label test --seed 3");
    expect_validated_record(run, peer, c.routine);
    EXPECT_EQ(run.record.at("data_type"), "fp32");
    EXPECT_EQ(run.record.at("seed"), 3);
  }
}

TEST(Peers, OpenBlasValidatesGemmGemvDot) {
  run_blas_cases("peer_openblas", "openblas");
}

TEST(Peers, EigenValidatesGemmGemvDot) {
  run_blas_cases("peer_eigen", "eigen");
}

TEST(Peers, EigenGemmRunsWithTheFasterThreadCountItMeasured) {
  // On a machine with busy cores Eigen's OpenMP GEMM on every core can be 100x slower than on one; the peer times
  // both and keeps the faster, and its record shows the calibration.
  PeerRun run =
      run_peer("peer_eigen", "--routine gemm_nt" + spec("gemm_nt.mdh") + " --size I=32,J=32,K=32 --label test");
  expect_validated_record(run, "eigen", "gemm_nt");
  const nlohmann::json& notes = run.record.at("notes");
  const nlohmann::json& tried = notes.at("median_ns_by_threads");
  const std::string chosen = std::to_string(notes.at("threads").get<int>());
  ASSERT_TRUE(tried.contains(chosen)) << notes.dump();
  for (const auto& [threads, median] : tried.items())
    EXPECT_LE(tried.at(chosen).get<double>(), median.get<double>()) << notes.dump();
  EXPECT_EQ(run.record.at("device"), mdh::peers::host_cpu_name(chosen + " Eigen threads"));
}

TEST(Peers, ClblastValidatesGemmGemvDotAndCountsEveryKernel) {
  for (const BlasCase& c : kBlasCases) {
    SCOPED_TRACE(c.routine);
    PeerRun run =
        run_peer("peer_clblast", "--routine " + c.routine + spec(c.spec_file) + " --size " + c.sizes + " --label test");
    expect_validated_record(run, "clblast", c.routine);
    EXPECT_GE(run.record.at("notes").at("kernels_per_call").get<int>(), 1);
  }
}

TEST(Peers, ClblastAppliesTunerResults) {
  // A tuner output in CLBlast's format for this device: Xdot with work-group sizes other than the shipped ones.
  const std::string device = mdh::select_device("").name;
  const fs::path dir = scratch_dir() / "tuned";
  fs::create_directories(dir);
  for (const auto& [family, kernel, parameter] :
       {std::tuple{"xdot_1", "Xdot", "WGS1"}, std::tuple{"xdot_2", "XdotEpilogue", "WGS2"}}) {
    nlohmann::json file = {
        {"kernel_family", family},
        {"precision", "32"},
        {"device", device},
        {"results",
         {{{"kernel", kernel}, {"time", 1.0}, {"parameters", {{"PRECISION", 32}, {parameter, 32}}}},
          {{"kernel", kernel}, {"time", 2.0}, {"parameters", {{"PRECISION", 32}, {parameter, 64}}}}}}};
    std::ofstream(dir / (std::string("clblast_") + family + "_32.json")) << file.dump();
  }
  PeerRun run = run_peer("peer_clblast",
                         "--routine dot" + spec("dot.mdh") + " --size K=5000 --label test --tuned " + dir.string());
  expect_validated_record(run, "clblast-tuned", "dot");
  EXPECT_EQ(run.record.at("notes").at("tuned_parameters").at("Xdot").at("WGS1"), 32);
  EXPECT_EQ(run.record.at("notes").at("tuned_parameters").at("Xdot").at("WGS2"), 32);

  // Results from another device are refused.
  nlohmann::json other = {
      {"kernel_family", "xdot_1"}, {"device", "some other device"}, {"results", nlohmann::json::array()}};
  std::ofstream(dir / "clblast_xdot_1_32.json") << other.dump();
  PeerRun refused =
      run_peer("peer_clblast", "--routine dot" + spec("dot.mdh") + " --size K=5000 --tuned " + dir.string());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.stderr_text.find("tuned on 'some other device', but the peer runs on '" + device + "'"),
            std::string::npos)
      << refused.stderr_text;
}

TEST(Peers, ClblastAppliesGemvTunerResultsUnderTheFamilyNamesOfDebiansTuners) {
  // Debian 12's clblast_tuner_xgemv writes the families xgemv, xgemv_fast and xgemv_fast_rot (no _1/_2/_3).
  const std::string device = mdh::select_device("").name;
  const fs::path dir = scratch_dir() / "tuned-gemv";
  fs::create_directories(dir);
  using Parameters = std::map<std::string, int>;
  for (const auto& [family, kernel, parameters] :
       {std::tuple{"xgemv", "Xgemv", Parameters{{"WGS1", 64}, {"WPT1", 1}}},
        std::tuple{"xgemv_fast", "XgemvFast", Parameters{{"VW2", 1}, {"WGS2", 32}, {"WPT2", 1}}}}) {
    nlohmann::json file = {{"kernel_family", family},
                           {"precision", "32"},
                           {"device", device},
                           {"results", {{{"kernel", kernel}, {"time", 1.0}, {"parameters", parameters}}}}};
    std::ofstream(dir / (std::string("clblast_") + family + "_32.json")) << file.dump();
  }
  PeerRun run = run_peer(
      "peer_clblast", "--routine gemv" + spec("gemv.mdh") + " --size I=300,K=200 --label test --tuned " + dir.string());
  expect_validated_record(run, "clblast-tuned", "gemv");
  EXPECT_EQ(run.record.at("notes").at("tuned_parameters").at("Xgemv").at("WGS1"), 64);
  EXPECT_EQ(run.record.at("notes").at("tuned_parameters").at("XgemvFast").at("WGS2"), 32);
}

// mdh itself, in a configuration whose work-groups count themselves in and add into accumulators (WG_COMBINE
// atomic): no fill zeroes those between its calls, so its output is checked after the timed calls too.
TEST(Peers, MdhValidatesItsFirstCallAndOneAfterTheTimedCalls) {
  const fs::path config = scratch_dir() / "dot-atomic.json";
  std::ofstream(config) << R"({"spec": "apps/dot.mdh", "sizes": {"K": 20000}, "config": {
      "CMB_RES": "G", "CMB_WI": "shuffle", "DOUBLE_BUFFER": "off", "LOOP_ORDER_G": ["k"], "LOOP_ORDER_L": ["k"],
      "LOOP_ORDER_P": ["k"], "LT_SIZE_k": 1024, "MEM_INP_L_x": "none", "MEM_INP_L_y": "local",
      "MEM_INP_P_x": "private", "MEM_INP_P_y": "none", "MEM_RES_L": "local", "MEM_RES_P": "local", "NUM_WG_k": 4,
      "NUM_WI_k": 16, "ORDER_OCL_G_k": 0, "ORDER_OCL_L_k": 0, "OWNERSHIP_k": "block", "PT_SIZE_k": 1,
      "STRIDED_RUN_k": 1, "UNROLL_STEPS": "on", "UNROLL_TILES": "on", "VECTOR_WIDTH_x": 4, "VECTOR_WIDTH_y": 4,
      "WG_COMBINE": "atomic", "mdh_config": 2}})";
  const PeerRun run = run_peer(
      "peer_mdh", "--routine dot" + spec("dot.mdh") + " --size K=20000 --label test --config " + config.string());
  expect_validated_record(run, "mdh", "dot");
  EXPECT_EQ(run.record.at("validation").at("checked_calls"),
            "the first call and one after the timed calls (the worse shown)");
  // Beside the event times, the steady instrument's time per call (runtime/steady_timing.h), every kernel counted.
  const nlohmann::json& steady = run.record.at("steady_time_ns");
  EXPECT_LE(steady.at("ci_low").get<double>(), steady.at("median").get<double>());
  EXPECT_GE(steady.at("ci_high").get<double>(), steady.at("median").get<double>());
  const std::string kernels = "(" + run.record.at("notes").at("kernels_per_call").dump() + " per call)";
  EXPECT_NE(run.record.at("steady").at("includes").get<std::string>().find(kernels), std::string::npos);
}

// mdh's GEMM of half or bfloat16 inputs: the record names the inputs' type beside the output's, and on a device
// without tensor cores mdh computes in fp32, so a tf32 row is refused rather than recorded in fp32.
TEST(Peers, MdhRecordsTheTypeOfTwoByteInputs) {
  for (const auto& [spec_file, type] : {std::pair{"gemm_half.mdh", "fp16"}, std::pair{"gemm_bfloat16.mdh", "bf16"}}) {
    SCOPED_TRACE(spec_file);
    const PeerRun run =
        run_peer("peer_mdh", "--routine gemm" + spec(spec_file) + " --size I=37,J=29,K=41 --label test");
    expect_validated_record(run, "mdh-default", "gemm");
    EXPECT_EQ(run.record.at("input_type"), type);
    EXPECT_EQ(run.record.at("data_type"), "fp32");
    EXPECT_EQ(run.record.at("precision"), "fp32");
  }
  if (mdh::select_device("").name.find("NVIDIA") != std::string::npos) GTEST_SKIP() << "an NVIDIA device";
  const PeerRun tf32 =
      run_peer("peer_mdh", "--routine gemm" + spec("gemm_half.mdh") + " --size I=4,J=4,K=4 --precision tf32");
  EXPECT_EQ(tf32.exit_code, 2);
  EXPECT_NE(tf32.stderr_text.find("mdh-default computes gemm in fp32 only, not in tf32 (--precision)"),
            std::string::npos)
      << tf32.stderr_text;
}

// A DOT case for a fake peer of run_and_record's tests: no warm-ups, at most `max_runs` timed calls.
mdh::peers::PeerOptions fake_dot_options(int max_runs) {
  mdh::peers::PeerOptions options;
  options.routine = "dot";
  options.spec = std::string(MDH_SOURCE_DIR) + "/apps/dot.mdh";
  options.sizes = "K=1000";
  options.label = "test";
  options.measurement.warmups = 0;
  options.measurement.max_runs = max_runs;
  return options;
}

// run_and_record checks the peer's output again after the timed calls where the peer has a checked_call, and a
// wrong output there fails the record although the first call's was right: a kernel that left its counters stale
// would be timed on them. A peer without one keeps the first call's check.
TEST(Peers, AWrongOutputAfterTheTimedCallsFailsTheRecord) {
  mdh::peers::PeerCase peer_case(fake_dot_options(5));
  for (const bool has_checked_call : {true, false}) {
    bool stale = false;  // the output after the checked call
    mdh::peers::PeerSetup setup;
    setup.peer = "fake";
    setup.run_once = [] { return mdh::RunTimes{1000, 2000}; };
    setup.read_output = [&] {
      mdh::HostBuffer out = peer_case.reference_output();
      if (stale) std::memset(out.bytes.data(), 0xFF, out.bytes.size());  // NaN: what a call that wrote nothing leaves
      return out;
    };
    if (has_checked_call) setup.checked_call = [&] { stale = true; };
    const nlohmann::json record = mdh::peers::run_and_record(peer_case, setup);
    EXPECT_EQ(record.at("validation").at("passed").get<bool>(), !has_checked_call);
    EXPECT_EQ(record.at("validation").at("checked_calls"),
              has_checked_call ? "the first call and one after the timed calls (the worse shown)" : "the first call");
  }
}

// The steady instrument through run_and_record with a fake peer: the record carries the per-call statistics of N calls
// between one timestamp pair, what the pair includes, and the calls per sample; a program without it says so.
TEST(Peers, TheRecordCarriesTheSteadyTimeOfCallsBackToBack) {
  mdh::peers::PeerCase peer_case(fake_dot_options(8));
  for (const bool has_steady : {true, false}) {
    mdh::peers::PeerSetup setup;
    setup.peer = "fake";
    setup.run_once = [] { return mdh::RunTimes{9000, 20000}; };  // one call alone: its launch is not hidden
    setup.read_output = [&] { return peer_case.reference_output(); };
    std::vector<int> requests;
    if (has_steady) {
      setup.steady_calls = [&requests](int n) {
        requests.push_back(n);
        return 4000.0 + 5000.0 * n;  // 5 us per call back to back, 4 us of the first launch
      };
      setup.steady_time_includes = "a fake pair around n calls";
    }
    const nlohmann::json record = mdh::peers::run_and_record(peer_case, setup);
    EXPECT_TRUE(record.at("validation").at("passed").get<bool>());
    EXPECT_EQ(record.at("device_time_ns").at("median").get<double>(), 9000.0);
    if (has_steady) {
      EXPECT_EQ(record.at("steady").at("calls_per_sample"), 100);  // 100 x 5 us < 1 ms: the call cap decides
      EXPECT_DOUBLE_EQ(record.at("steady_time_ns").at("median").get<double>(), 5040.0);
      EXPECT_EQ(record.at("steady").at("samples"), 6);
      EXPECT_EQ(record.at("time_includes").at("steady"), "a fake pair around n calls");
      EXPECT_EQ(requests.back(), 100);
    } else {
      EXPECT_FALSE(record.contains("steady_time_ns"));
      EXPECT_EQ(record.at("time_includes").at("steady"), "not measured: this program provides no steady_calls");
    }
  }
}

// --precision: fp32 unless asked, tf32 on request, any other name a user error naming the two.
TEST(Peers, ThePrecisionOptionTakesFp32OrTf32) {
  auto parse = [](std::vector<const char*> extra) {
    std::vector<const char*> argv = {"peer_x", "--routine", "dot", "--spec", "apps/dot.mdh", "--size", "K=8"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    mdh::peers::PeerOptions options;
    EXPECT_TRUE(mdh::peers::parse_peer_options(static_cast<int>(argv.size()), argv.data(), "peer_x", {}, options));
    return options.precision;
  };
  EXPECT_EQ(parse({}), mdh::ComputePrecision::fp32);
  EXPECT_EQ(parse({"--precision", "fp32"}), mdh::ComputePrecision::fp32);
  EXPECT_EQ(parse({"--precision", "tf32"}), mdh::ComputePrecision::tf32);
  try {
    parse({"--precision", "fp16"});
    ADD_FAILURE() << "fp16 was accepted";
  } catch (const mdh::UserError& e) {
    EXPECT_STREQ(e.what(), "unknown precision 'fp16' (accepted: fp32, tf32)");
  }
}

// A TF32 record validates with the precision's term added to the FP32 tolerance (runtime/verify_result.h): an output
// off by more than the FP32 tolerance but within the TF32 one passes as tf32 and fails as fp32. The record names its
// precision, which the tables show as a column.
TEST(Peers, ATf32RecordIsCheckedWithTheTf32Tolerance) {
  for (const auto precision : {mdh::ComputePrecision::fp32, mdh::ComputePrecision::tf32}) {
    SCOPED_TRACE(mdh::precision_name(precision));
    mdh::peers::PeerOptions options = fake_dot_options(5);
    options.precision = precision;
    mdh::peers::PeerCase peer_case(options);
    const double fp32_tol = mdh::result_tolerance(mdh::ScalarType::Float, 1000);
    mdh::peers::PeerSetup setup;
    setup.peer = "fake";
    setup.precision = precision;
    setup.run_once = [] { return mdh::RunTimes{1000, 2000}; };
    setup.read_output = [&] {
      const mdh::HostBuffer& reference = peer_case.reference_output();
      mdh::HostBuffer out = peer_case.make_output();
      double r = 0;
      if (peer_case.reference_in_double()) {
        std::memcpy(&r, reference.bytes.data(), sizeof r);
      } else {
        float f = 0;
        std::memcpy(&f, reference.bytes.data(), sizeof f);
        r = f;
      }
      // DOT has one output, so |ref| + M = 2|ref|: an error of 2^-8 |ref| is far outside FP32's tolerance and
      // inside TF32's.
      const float off = static_cast<float>(r * (1 + 0x1p-8));
      std::memcpy(out.bytes.data(), &off, sizeof off);
      return out;
    };
    const nlohmann::json record = mdh::peers::run_and_record(peer_case, setup);
    const bool tf32 = precision == mdh::ComputePrecision::tf32;
    EXPECT_EQ(record.at("precision"), tf32 ? "tf32" : "fp32");
    EXPECT_EQ(record.at("validation").at("passed").get<bool>(), tf32);
    EXPECT_EQ(record.at("validation").at("precision_tolerance").get<double>(), tf32 ? 0x1p-7 : 0.0);
    EXPECT_DOUBLE_EQ(record.at("validation").at("tolerance").get<double>(), fp32_tol + (tf32 ? 0x1p-7 : 0.0));
  }
}

// A program without a TF32 path asked for tf32 is a user error, never an FP32 record in a TF32 row.
TEST(Peers, APeerRefusesAPrecisionItDoesNotComputeIn) {
  mdh::peers::PeerOptions options = fake_dot_options(5);
  options.precision = mdh::ComputePrecision::tf32;
  mdh::peers::PeerCase peer_case(options);
  mdh::peers::PeerSetup setup;
  setup.peer = "fake";
  setup.run_once = [] { return mdh::RunTimes{1000, 2000}; };
  setup.read_output = [&] { return peer_case.reference_output(); };
  try {
    mdh::peers::run_and_record(peer_case, setup);
    ADD_FAILURE() << "an fp32 peer ran as tf32";
  } catch (const mdh::UserError& e) {
    EXPECT_STREQ(e.what(), "fake computes dot in fp32 only, not in tf32 (--precision)");
  }
  const PeerRun run =
      run_peer("peer_openblas", "--routine gemm" + spec("gemm.mdh") + " --size I=4,J=4,K=4 --precision tf32");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.stderr_text.find("peer_openblas: error: openblas computes gemm in fp32 only, not in tf32"),
            std::string::npos)
      << run.stderr_text;
}

// experiments.json's repetitions.ci reaches the measurement (--ci): the record states the target it stopped by, and a
// target that no interval can meet is a user error.
TEST(Peers, TheConfidenceTargetComesFromTheCommandLine) {
  const std::string args = "--routine dot" + spec("dot.mdh") + " --size K=1000 --label test";
  const PeerRun loose = run_peer("peer_mdh", args + " --ci 0.5");
  expect_validated_record(loose, "mdh-default", "dot");
  EXPECT_EQ(loose.record.at("ci_target").at("relative").get<double>(), 0.5);
  const PeerRun standard = run_peer("peer_mdh", args);
  expect_validated_record(standard, "mdh-default", "dot");
  EXPECT_EQ(standard.record.at("ci_target").at("relative").get<double>(), 0.02);
  const PeerRun zero = run_peer("peer_mdh", args + " --ci 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.stderr_text.find("the CI target must be positive"), std::string::npos) << zero.stderr_text;
}

TEST(Peers, PrlValidatesAgainstTheReference) {
  PeerRun run = run_peer("peer_prl", "--routine prl" + spec("prl.mdh") + " --size N=64,M=300 --label test");
  expect_validated_record(run, "cpp-threads", "prl");
  EXPECT_GE(run.record.at("notes").at("threads").get<int>(), 1);
  // PRL declares both, so that its rows are judged against the device's limits: a record carries what it declares.
  EXPECT_EQ(run.record.at("flops").get<double>(), 42.0 * 64 * 300);
  EXPECT_EQ(run.record.at("bytes").get<double>(), 14.0 * 64 + 14.0 * 300 + 4.0 * 14 * 256 + 8.0 * 64);
}

// The spec the experiments' PRL rows run: the peer takes its weight tables as they are.
TEST(Peers, PrlTakesTheWeightTablesOfPrlWeights) {
  PeerRun run = run_peer("peer_prl", "--routine prl" + spec("prl_weights.mdh") + " --size N=64,M=300 --label test");
  expect_validated_record(run, "cpp-threads", "prl");
  EXPECT_EQ(run.record.at("flops").get<double>(), 14.0 * 64 * 300);
  EXPECT_EQ(run.record.at("bytes").get<double>(), 14.0 * 64 + 14.0 * 300 + 8.0 * 14 * 256 + 8.0 * 64);
}

// device_peak's limits on the default device (PoCL here), at its quick sizes: positive numbers that follow from
// the recorded work and times, and an FMA result equal to the recurrences recomputed here in double precision, so
// that a compiler folding the chains away (or running fewer iterations) fails the test instead of inflating the peak.
TEST(Peers, DevicePeakMeasuresFmaThroughputAndCopyBandwidthAndChecksBoth) {
  PeerRun run = run_peer("device_peak", "--quick");
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  const nlohmann::json& r = run.record;
  EXPECT_EQ(r.at("program"), "device_peak");
  EXPECT_EQ(r.at("device"), mdh::select_device("").name);
  EXPECT_FALSE(r.at("driver").get<std::string>().empty());
  EXPECT_TRUE(r.at("quick").get<bool>());
  EXPECT_TRUE(r.at("passed").get<bool>());
  // The cache the tables' "partly in cache" rule reads (scripts/percent_of_limit.py): what OpenCL reports.
  EXPECT_EQ(r.at("global_mem_cache_bytes").get<uint64_t>(), mdh::select_device("").global_mem_cache_bytes);

  const nlohmann::json& fma = r.at("fma");
  const double fma_ns = fma.at("device_time_ns").at("median").get<double>();
  EXPECT_GT(r.at("fp32_gflops").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r.at("fp32_gflops").get<double>(), fma.at("flops").get<double>() / fma_ns);
  const int chains = fma.at("chains_per_work_item"), iterations = fma.at("iterations");
  EXPECT_EQ(chains, fma.at("vector_width").get<int>() * fma.at("accumulators").get<int>());
  EXPECT_DOUBLE_EQ(fma.at("flops").get<double>(), 2.0 * fma.at("work_items").get<double>() * chains * iterations);
  EXPECT_GE(fma.at("runs").get<int>(), 5);
  EXPECT_LE(fma.at("runs").get<int>(), 6);
  const nlohmann::json& p = fma.at("parameters");
  const nlohmann::json& sums = fma.at("check").at("first_sums");
  ASSERT_EQ(sums.size(), p.at("item_classes").get<size_t>());
  for (size_t c = 0; c < sums.size(); ++c) {
    double expected = 0;
    for (int j = 0; j < chains; ++j) {
      double x = p.at("start").get<double>() + p.at("chain_step").get<double>() * j +
                 p.at("item_step").get<double>() * static_cast<double>(c);
      for (int i = 0; i < iterations; ++i) x = x * p.at("factor").get<double>() + p.at("addend").get<double>();
      expected += x;
    }
    EXPECT_NEAR(sums[c].get<double>(), expected, 1e-4 * expected) << "work-item class " << c;
  }
  EXPECT_TRUE(fma.at("check").at("passed").get<bool>());
  EXPECT_EQ(fma.at("check").at("mismatches"), 0);

  const nlohmann::json& copy = r.at("copy");
  EXPECT_GT(r.at("copy_gbytes_per_s").get<double>(), 0.0);
  EXPECT_EQ(copy.at("bytes_moved").get<double>(), 2.0 * copy.at("buffer_bytes").get<double>());
  EXPECT_DOUBLE_EQ(r.at("copy_gbytes_per_s").get<double>(),
                   copy.at("bytes_moved").get<double>() / copy.at("device_time_ns").at("median").get<double>());
  EXPECT_EQ(copy.at("buffer_bytes"), 16 << 20);
  EXPECT_TRUE(copy.at("check").at("passed").get<bool>());
}

// The GPU shape (16 scalar chains per work-item) on PoCL, so that its source compiles and its sums are checked here
// too.
TEST(Peers, DevicePeakWithScalarChainsAsOnGpus) {
  PeerRun run = run_peer("device_peak", "--quick --fma-width 1 --fma-accumulators 16 --copy-mib 1");
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  const nlohmann::json& fma = run.record.at("fma");
  EXPECT_EQ(fma.at("vector_width"), 1);
  EXPECT_EQ(fma.at("chains_per_work_item"), 16);
  EXPECT_TRUE(fma.at("check").at("passed").get<bool>());
  EXPECT_GT(run.record.at("fp32_gflops").get<double>(), 0.0);
  EXPECT_EQ(run.record.at("copy").at("buffer_bytes"), 1 << 20);
}

TEST(Peers, DevicePeakRejectsBadOptions) {
  PeerRun width = run_peer("device_peak", "--quick --fma-width 3");
  EXPECT_EQ(width.exit_code, 2);
  EXPECT_NE(width.stderr_text.find("device_peak: error: --fma-width must be 1, 2, 4, 8 or 16, not 3"),
            std::string::npos)
      << width.stderr_text;
  PeerRun copy = run_peer("device_peak", "--quick --copy-mib 100000000");
  EXPECT_EQ(copy.exit_code, 2);
  EXPECT_NE(copy.stderr_text.find("device_peak: error: --copy-mib 100000000 exceeds the device's largest allocation"),
            std::string::npos)
      << copy.stderr_text;
}

TEST(Peers, RoutineAndSpecMustAgree) {
  PeerRun run = run_peer("peer_openblas", "--routine gemm" + spec("gemv.mdh") + " --size I=4,K=4");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.stderr_text.find("peer_openblas: error: routine 'gemm' expects the md_hom 'gemm', but "),
            std::string::npos)
      << run.stderr_text;
  // A GEMM of half inputs is not the float GEMM a CPU library computes.
  PeerRun half = run_peer("peer_openblas", "--routine gemm" + spec("gemm_half.mdh") + " --size I=4,J=4,K=4");
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_NE(half.stderr_text.find("routine 'gemm' expects the md_hom 'gemm', but "), std::string::npos)
      << half.stderr_text;
  PeerRun unknown = run_peer("peer_eigen", "--routine fft" + spec("gemv.mdh") + " --size I=4,K=4");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.stderr_text.find("peer_eigen has no routine 'fft' (it offers gemm, gemm_nt, gemv, dot)"),
            std::string::npos)
      << unknown.stderr_text;
}

// Without a usable CUDA device the CUDA peer says so with exit code 3, which the experiment driver records as "not
// available here" rather than as an error. Only where the CUDA peers are built (MDH_BUILD_CUDA_PEERS).
TEST(Peers, CudaPeerWithoutACudaDeviceIsNotAvailableHere) {
  if (!fs::exists(fs::path(MDH_PEER_DIR) / "peer_cuda")) GTEST_SKIP() << "peer_cuda is not built here";
  const std::tuple<const char*, const char*, const char*, const char*> cases[] = {
      {"cublas", "gemv", "gemv.mdh", "I=4,K=4"},
      {"cublaslt", "gemm", "gemm.mdh", "I=4,J=4,K=4"},
      {"cudnn", "mcc", "mcc.mdh", "N=1,P=3,Q=3,K=4,C=4,R=3,S=3"},
      {"im2col_cublas", "mcc", "mcc.mdh", "N=1,P=3,Q=3,K=4,C=4,R=3,S=3"},
      {"cuda_stencil", "jacobi3d", "jacobi3d.mdh", "I=4,J=4,K=4"},
      {"ttgt_lib", "tc-abcdef-gdab-efgc", "tc/abcdef-gdab-efgc.mdh", "A=2,B=2,C=2,D=2,E=2,F=2,G=2"},
      {"prl_cuda", "prl", "prl.mdh", "N=4,M=8"}};
  for (const auto& [peer, routine, spec_file, sizes] : cases) {
    SCOPED_TRACE(peer);
    PeerRun run = run_peer("peer_cuda", std::string("--peer ") + peer + " --routine " + routine + spec(spec_file) +
                                            " --size " + sizes + " --label test");
    if (run.exit_code == 0) GTEST_SKIP() << "this machine has a CUDA device";
    EXPECT_EQ(run.exit_code, 3) << run.stderr_text;
    EXPECT_NE(run.stderr_text.find("peer_cuda: not available here: "), std::string::npos) << run.stderr_text;
  }
  // The TF32 peers take --precision tf32 (and, without a device, say so as in FP32).
  for (const auto& [peer, routine, spec_file, sizes] : cases) {
    const std::string name = peer;
    if (name == "cuda_stencil" || name == "prl_cuda" || name == "cublas") continue;
    SCOPED_TRACE(name + " tf32");
    PeerRun run = run_peer("peer_cuda", "--peer " + name + " --routine " + routine + spec(spec_file) + " --size " +
                                            sizes + " --label test --precision tf32");
    EXPECT_EQ(run.exit_code, 3) << run.stderr_text;
  }
  PeerRun gemm =
      run_peer("peer_cuda", "--peer cublas --routine gemm" + spec("gemm.mdh") + " --size I=4,J=4,K=4 --precision tf32");
  EXPECT_EQ(gemm.exit_code, 3) << gemm.stderr_text;
  // A peer or routine without a TF32 path refuses it on any machine.
  PeerRun stencil = run_peer("peer_cuda", "--peer cuda_stencil --routine jacobi3d" + spec("jacobi3d.mdh") +
                                              " --size I=4,J=4,K=4 --precision tf32");
  EXPECT_EQ(stencil.exit_code, 2);
  EXPECT_NE(stencil.stderr_text.find("peer_cuda: error: --peer cuda_stencil computes 'jacobi3d' in fp32 only\n"),
            std::string::npos)
      << stencil.stderr_text;
  PeerRun gemv =
      run_peer("peer_cuda", "--peer cublas --routine gemv" + spec("gemv.mdh") + " --size I=4,K=4 --precision tf32");
  EXPECT_EQ(gemv.exit_code, 2);
  EXPECT_NE(gemv.stderr_text.find("--peer cublas computes 'gemv' in fp32 only (tf32: gemm, gemm_nt)"),
            std::string::npos)
      << gemv.stderr_text;
  // GEMMs of half and bfloat16 inputs: cublas and cublaslt take them in fp32 and tf32 alike.
  for (const char* peer : {"cublas", "cublaslt"})
    for (const char* spec_file : {"gemm_half.mdh", "gemm_bfloat16.mdh"})
      for (const char* precision : {"fp32", "tf32"}) {
        SCOPED_TRACE(std::string(peer) + " " + spec_file + " " + precision);
        PeerRun run = run_peer("peer_cuda", std::string("--peer ") + peer + " --routine gemm" + spec(spec_file) +
                                                " --size I=4,J=4,K=4 --label test --precision " + precision);
        EXPECT_EQ(run.exit_code, 3) << run.stderr_text;
      }
  // Every other pairing with 2-byte inputs is refused before a device is looked for.
  PeerRun half_nt =
      run_peer("peer_cuda", "--peer cublaslt --routine gemm_nt" + spec("gemm_half.mdh") + " --size I=4,J=4,K=4");
  EXPECT_EQ(half_nt.exit_code, 2);
  EXPECT_NE(half_nt.stderr_text.find("routine 'gemm_nt' expects the md_hom 'gemm_nt' (or 'gemm_nt_half', "
                                     "'gemm_nt_bfloat16' with inputs of that type), but "),
            std::string::npos)
      << half_nt.stderr_text;
  const fs::path gemv_half = scratch_dir() / "gemv_half.mdh";
  std::ofstream(gemv_half) << "md_hom gemv\nsize I K\ninput A : half[I][K]\ninput x : half[K]\noutput y : float[I]\n"
                              "view (i < I, k < K) : A[i][k], x[k] -> y[i]\nscalar (a, b) = a * b\ncombine (++, +)\n";
  PeerRun gemv_of_half =
      run_peer("peer_cuda", "--peer cublas --routine gemv --spec " + gemv_half.string() + " --size I=4,K=4");
  EXPECT_EQ(gemv_of_half.exit_code, 2);
  EXPECT_NE(gemv_of_half.stderr_text.find(
                "peer_cuda: error: --peer cublas computes 'gemv' on float inputs only (half, bfloat16: gemm, gemm_nt)"),
            std::string::npos)
      << gemv_of_half.stderr_text;
  const fs::path mixed = scratch_dir() / "gemm_mixed.mdh";
  std::ofstream(mixed) << "md_hom gemm\nsize I J K\ninput A : half[I][K]\ninput B : bfloat16[K][J]\n"
                          "output C : float[I][J]\nview (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]\n"
                          "scalar (a, b) = a * b\ncombine (++, ++, +)\n";
  PeerRun mixed_inputs =
      run_peer("peer_cuda", "--peer cublas --routine gemm --spec " + mixed.string() + " --size I=4,J=4,K=4");
  EXPECT_EQ(mixed_inputs.exit_code, 2);
  EXPECT_NE(mixed_inputs.stderr_text.find("a cuBLAS GEMM takes A and B of one scalar type"), std::string::npos)
      << mixed_inputs.stderr_text;
  // A peer asked for a routine it does not compute is a user error on any machine.
  PeerRun wrong = run_peer("peer_cuda", "--peer cublaslt --routine gemv" + spec("gemv.mdh") + " --size I=4,K=4");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.stderr_text.find("--peer cublaslt has no routine 'gemv' (it offers gemm, gemm_nt)"),
            std::string::npos)
      << wrong.stderr_text;
}

}  // namespace
