// The `mdh` command line as a user meets it: exit codes (0 ok, 1 failed check, 2 user error), messages, files.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "mdh/parser.h"
#include "runtime/context.h"
#include "runtime/device.h"
#include "tests/integration/command_runner.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

using Result = mdh::testing::CommandResult;

/// Runs `mdh ARGS` from the source directory (so that spec paths in messages are the repo-relative ones).
Result mdh_cli(const std::string& args, const std::string& environment = "") {
  return mdh::testing::run_command(environment + " '" MDH_BINARY "' " + args);
}

fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("mdh_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(Cli, UsageWithoutCommandIsAnError) {
  Result r = mdh_cli("");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("usage: mdh <command>"), std::string::npos) << r.output;
  r = mdh_cli("frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("error: unknown command 'frobnicate'"), std::string::npos) << r.output;
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* cmd : {"devices", "check", "generate", "run"}) {
    Result r = mdh_cli(std::string(cmd) + " --help");
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_NE(r.output.find(std::string("usage: mdh ") + cmd), std::string::npos) << r.output;
  }
}

TEST(Cli, HelpAndVersionAreCommandsToo) {
  Result r = mdh_cli("help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("\ncommands:\n"), std::string::npos) << r.output;
  r = mdh_cli("help tune");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output.rfind("usage: mdh tune ", 0), 0u) << r.output;
  r = mdh_cli("help frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output.rfind("error: unknown command 'frobnicate'\n", 0), 0u) << r.output;
  r = mdh_cli("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.output.rfind("mdh ", 0), 0u) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

TEST(Cli, CheckBuildsTheUserCodeAndPutsCompilerErrorsAtTheSpecsLines) {
  const fs::path spec = temp_dir() / "undefined_name.mdh";
  std::ofstream(spec) << "md_hom scaled\nsize I\ninput A : float[I]\noutput B : float[I]\nview (i < I) : A[i] -> B[i]\n"
                         "scalar (a) = beta * a\ncombine (++)\n";
  Result r = mdh_cli("check '" + spec.string() + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("undefined_name.mdh:6:14: error: use of undeclared identifier 'beta'"), std::string::npos)
      << r.output;
  r = mdh_cli("check --no-build '" + spec.string() + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("user code"), std::string::npos) << r.output;
  r = mdh_cli("check apps/gaussian.mdh");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\nuser code builds on "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(sizes I=64,J=64)\n"), std::string::npos) << r.output;
}

// Orders are restricted as `mdh space` prints them: elements joined by commas, several orders one after the other.
TEST(Cli, SpaceRestrictsOrdersWrittenAsItPrintsThem) {
  Result r = mdh_cli("space apps/gemm.mdh --size I=16,J=16,K=16 --restrict LOOP_ORDER_G=k,j,i,i,j,k");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("LOOP_ORDER_G in {k,j,i, i,j,k}"), std::string::npos) << r.output;
  r = mdh_cli("space apps/gemm.mdh --size I=16,J=16,K=16 --restrict LOOP_ORDER_G=k,j,x");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("error: --restrict LOOP_ORDER_G: 'k,j,x' is neither a value name nor an integer"),
            std::string::npos)
      << r.output;
}

TEST(Cli, DevicesListsTheDefault) {
  Result r = mdh_cli("devices");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("max work-group size"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("default: "), std::string::npos) << r.output;
}

TEST(Cli, DevicesIcdSaysWhichDriversTheLoaderReadsAndWhetherTheyLoad) {
  // A vendors folder with one driver that exists nowhere, and an OCL_ICD_FILENAMES list naming another.
  const fs::path vendors = temp_dir() / "vendors";
  fs::create_directories(vendors);
  std::ofstream(vendors / "missing.icd") << "libmdh_no_such_driver.so\n";
  Result r = mdh_cli("devices --icd");  // the machine's own set-up: the test suite runs on PoCL, so it loads
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(": loads\n"), std::string::npos) << r.output;
  r = mdh_cli("devices --icd", "OCL_ICD_VENDORS='" + vendors.string() + "' OCL_ICD_FILENAMES=libmdh_other_missing.so");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OCL_ICD_FILENAMES=libmdh_other_missing.so\n  libmdh_other_missing.so: does not load: "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("ICD files (" + vendors.string() +
                          "):\n  missing.icd -> libmdh_no_such_driver.so: does not load: "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("blocked signals: "), std::string::npos) << r.output;
}

// 20 `++` dimensions of extent 2, the most the language allows: `mdh space` estimated "about 0" valid
// configurations (none among 20,000 uniform candidates) and `mdh generate` refused its own default configuration
// (private array bytes). The estimate now draws through sampling blocks (tuner/space/sampling_blocks.h).
TEST(Cli, TwentyDimensionsHaveASpaceAndADefault) {
  std::string view, extents, index, combine;
  for (int d = 0; d < 20; ++d) {
    const std::string name = std::string(1, 'd').append(std::to_string(d));
    if (d > 0) view += ", ", combine += ", ";
    view += name;
    view += " < 2";
    extents += "[2]";
    index += "[";
    index += name;
    index += "]";
    combine += "++";
  }
  const fs::path spec = temp_dir() / "twenty.mdh";
  std::ofstream(spec) << "md_hom twenty\ninput A : float" << extents << "\noutput B : float" << extents << "\nview ("
                      << view << ") : A" << index << " -> B" << index << "\nscalar (a) = a\ncombine (" << combine
                      << ")\n";
  Result r = mdh_cli("space '" + spec.string() + "' -q");
  EXPECT_EQ(r.status, 0) << r.output;
  // Each dimension's OWNERSHIP constraint stays inside its tree: plain uniform samples, a good share of them valid.
  EXPECT_NE(r.output.find(" uniform samples of the "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("about 0 "), std::string::npos) << r.output;
  r = mdh_cli("generate '" + spec.string() + "' -o '" + (temp_dir() / "twenty.cl").string() + "'");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(Cli, CheckDescribesTheSpec) {
  Result r = mdh_cli("check apps/gemm.mdh --size I=4,J=5,K=6");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("gemm"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("every view access is inside its buffer"), std::string::npos) << r.output;
}

TEST(Cli, BrokenSpecGetsLocatedErrorAndStatus2) {
  Result r = mdh_cli("check tests/diagnostics/undeclared_buffer.mdh");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output.rfind("tests/diagnostics/undeclared_buffer.mdh:", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(": error: "), std::string::npos) << r.output;
}

TEST(Cli, MissingSizeIsAUserError) {
  Result r = mdh_cli("run apps/gemm.mdh --size I=4,J=4");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("size 'K' is not bound (use --size K=<value>)"), std::string::npos) << r.output;
}

TEST(Cli, OpenCLBuildFailureSaysWhatFailedBeforeTheDriversOwnLines) {
  // A scalar function the checks let through (unknown functions are OpenCL's to judge) and the compiler rejects.
  // PoCL's compiler prints "2 errors generated." to stderr by itself; the message saying what failed comes first.
  const fs::path spec = temp_dir() / "undeclared_function.mdh";
  std::ofstream(spec) << "md_hom copy\nsize N\ninput x : float[N]\noutput y : float[N]\nview (i < N) : x[i] -> y[i]\n"
                         "scalar (a) = undefined_fn(a) + undefined2(a)\ncombine (++)\n";
  Result r = mdh_cli("run '" + spec.string() + "' --size N=16");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output.rfind("error: OpenCL build failed on device '", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("undeclared_function.mdh:6:14: error: use of undeclared identifier 'undefined_fn'"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("errors generated"), std::string::npos) << r.output;
}

TEST(Cli, BadDeviceListsTheDevices) {
  Result r = mdh_cli("run apps/gemm.mdh --size I=4,J=4,K=4 --device no-such-device-xyz");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no-such-device-xyz"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0:0"), std::string::npos) << r.output;
}

TEST(Cli, BadOptionIsAUserError) {
  Result r = mdh_cli("run apps/gemm.mdh --sizes I=4");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("see mdh run --help"), std::string::npos) << r.output;
}

TEST(Cli, AnUnknownPrecisionIsAUserError) {
  Result r = mdh_cli("run apps/gemm.mdh --size I=4,J=4,K=4 --precision fp16");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.output, "error: unknown precision 'fp16' (accepted: fp32, tf32)\n");
}

// PoCL has no tensor cores: a TF32 request says so once and runs in fp32, verified with fp32's tolerance.
TEST(Cli, Tf32WithoutTensorCoresRunsInFp32WithANote) {
  Result r = mdh_cli("run apps/gemm.mdh --size I=13,J=7,K=5 --precision tf32 --config default --verify");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("note: --precision tf32: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" has no TF32 tensor cores that mdh reaches (NVIDIA's driver, compute capability 8.0 or "
                          "later); running in fp32\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("verify (reference in double): PASS"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("0.0078"), std::string::npos) << "TF32's tolerance in an fp32 run:\n" << r.output;
  Result space = mdh_cli("space apps/gemm.mdh --size I=13,J=7,K=5 --precision tf32 -q");
  EXPECT_EQ(space.status, 0) << space.output;
  EXPECT_NE(space.output.find("running in fp32"), std::string::npos) << space.output;
}

// A GEMM of half inputs asked for tf32 (the tensor cores' FP16 fragments) on PoCL: the same note, then fp32, verified.
TEST(Cli, BenchOfHalfInputsInTf32WithoutTensorCoresRunsInFp32) {
  Result r = mdh_cli("bench apps/gemm_half.mdh --size I=37,J=29,K=41 --precision tf32 --rounds 2");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(" has no TF32 tensor cores that mdh reaches (NVIDIA's driver, compute capability 8.0 or "
                          "later); running in fp32\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  verify: PASS: "), std::string::npos) << r.output;
}

TEST(Cli, RunVerifiesAtPrimeSizes) {
  Result r = mdh_cli("run apps/gemm.mdh --size I=13,J=7,K=5 --repeat 2 --verify");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("GFLOP/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("verify (reference in double): PASS"), std::string::npos) << r.output;
}

// Every app at its real-world size from shared/workloads.md, run with the tunable kernel's default configuration
// and checked against the double-precision reference (PRL: against the reference kernel in float, as records are
// structs). Each takes seconds on PoCL.
TEST(Cli, EveryAppVerifiesAtItsRealWorldSize) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"apps/dot.mdh", "K=16777216"},
      {"apps/gemv.mdh", "I=1000,K=2048"},
      {"apps/gemm.mdh", "I=10,J=500,K=64"},
      {"apps/gemm_nt.mdh", "I=10,J=500,K=64"},
      {"apps/gemm_half.mdh", "I=10,J=500,K=64"},
      {"apps/gemm_bfloat16.mdh", "I=10,J=500,K=64"},
      {"apps/gaussian.mdh", "I=224,J=224"},
      {"apps/jacobi3d.mdh", "I=256,J=256,K=256"},
      {"apps/mcc.mdh", "N=1,P=7,Q=7,K=512,C=512,R=3,S=3"},
      {"apps/prl.mdh", "N=32768,M=1024 --prl-data"},
      {"apps/prl_weights.mdh", "N=32768,M=1024 --prl-data"},
      {"apps/tc/abcdef-gdab-efgc.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24"},
      {"apps/tc/abcdef-gdac-efgb.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24"},
      {"apps/tc/abcdef-gdbc-efga.mdh", "A=24,B=16,C=16,D=16,E=24,F=16,G=24"},
      {"apps/tc/abcdef-geab-dfgc.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24"},
      {"apps/tc/abcdef-geac-dfgb.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24"},
      {"apps/tc/abcdef-gebc-dfga.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24"},
      {"apps/tc/abcdef-gfab-degc.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24"},
      {"apps/tc/abcdef-gfac-degb.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24"},
      {"apps/tc/abcdef-gfbc-dega.mdh", "A=24,B=16,C=16,D=24,E=16,F=16,G=24"},
  };
  for (const auto& [spec, sizes] : cases) {
    Result r = mdh_cli("run " + spec + " --size " + sizes + " --repeat 1 --warmup 0 --verify");
    EXPECT_EQ(r.status, 0) << spec << '\n' << r.output;
    EXPECT_NE(r.output.find(": PASS: "), std::string::npos) << spec << '\n' << r.output;
  }
}

TEST(Cli, RunPrlWithGeneratedRecords) {
  for (const char* spec : {"apps/prl.mdh", "apps/prl_weights.mdh"}) {
    Result r = mdh_cli(std::string("run ") + spec + " --size N=17,M=31 --prl-data --repeat 1 --verify");
    EXPECT_EQ(r.status, 0) << spec << '\n' << r.output;
    EXPECT_NE(r.output.find("PASS"), std::string::npos) << spec << '\n' << r.output;
  }
}

TEST(Cli, ParamsAndNpyFilesRoundTrip) {
  fs::path dir = temp_dir();
  std::ofstream(dir / "axpy.mdh") << "md_hom axpy\nsize N\nparam alpha : float\ninput x : float[N]\n"
                                     "input y : float[N]\noutput z : float[N]\nview (i < N) : x[i], y[i] -> z[i]\n"
                                     "scalar (a, b) = alpha * a + b\ncombine (++)\n";
  const std::string spec = (dir / "axpy.mdh").string(), out = (dir / "z.npy").string();
  Result r = mdh_cli("run " + spec + " --size N=9 --repeat 1 --verify --output z=" + out);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("param 'alpha' needs a value (--param alpha=VALUE)"), std::string::npos) << r.output;

  r = mdh_cli("run " + spec + " --size N=9 --param alpha=2.5 --repeat 1 --verify --output z=" + out);
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_TRUE(fs::exists(out));
  // Feed the result back as x: z2 = 2.5 * z + y, checked by --verify against the reference.
  r = mdh_cli("run " + spec + " --size N=9 --param alpha=2.5 --repeat 1 --verify --input x=" + out);
  EXPECT_EQ(r.status, 0) << r.output;
  r = mdh_cli("run " + spec + " --size N=10 --param alpha=2.5 --repeat 1 --input x=" + out);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("input x"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

// A half output goes to a `<f2` .npy and comes back as the input of a bfloat16 md_hom only through its own dtype:
// a bfloat16 input refuses the half file and says how to give it.
TEST(Cli, HalfAndBfloat16RunVerifiedWithNpyFiles) {
  fs::path dir = temp_dir();
  std::ofstream(dir / "gemv_half.mdh") << "md_hom gemv_half\nsize I K\ninput A : half[I][K]\ninput x : half[K]\n"
                                          "output y : half[I]\nview (i < I, k < K) : A[i][k], x[k] -> y[i]\n"
                                          "scalar (a, b) = a * b\ncombine (++, +)\n";
  std::ofstream(dir / "scale_bf16.mdh") << "md_hom scale_bf16\nsize N\ninput x : bfloat16[N]\noutput y : "
                                           "bfloat16[N]\nview (i < N) : x[i] -> y[i]\nscalar (a) = 2.0f * a\n"
                                           "combine (++)\n";
  const std::string out = (dir / "y.npy").string();
  Result r =
      mdh_cli("run " + (dir / "gemv_half.mdh").string() + " --size I=13,K=300 --repeat 1 --verify --output y=" + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("verify (reference in double): PASS"), std::string::npos) << r.output;
  std::ifstream written(out, std::ios::binary);
  const std::string header((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  EXPECT_NE(header.find("'descr': '<f2'"), std::string::npos);
  r = mdh_cli("run " + (dir / "scale_bf16.mdh").string() + " --size N=13 --repeat 1 --verify");
  EXPECT_EQ(r.status, 0) << r.output;
  r = mdh_cli("run " + (dir / "scale_bf16.mdh").string() + " --size N=13 --repeat 1 --input x=" + out);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("has dtype <f2 but x is bfloat16[13] (dtype <u2); NumPy has no bfloat16"), std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

TEST(Cli, ErrorsInUserCodePointAtSpecLines) {
  fs::path dir = temp_dir();
  std::ofstream(dir / "typo.mdh") << "md_hom typo\nsize N\ninput x : float[N]\noutput y : float[N]\n"
                                     "view (i < N) : x[i] -> y[i]\nscalar (a) = a * bb\ncombine (++)\n";
  Result r = mdh_cli("run " + (dir / "typo.mdh").string() + " --size N=4");
  EXPECT_EQ(r.status, 2) << r.output;
  // f's body starts at line 6, column 14; `bb` is at column 18.
  EXPECT_NE(r.output.find("typo.mdh:6:18: error: use of undeclared identifier 'bb'"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(Cli, GeneratedKernelStandsAlone) {
  fs::path dir = temp_dir();
  const std::string cl = (dir / "gaussian.cl").string(), launch = (dir / "gaussian.json").string();
  Result r = mdh_cli("generate apps/gaussian.mdh --size I=8,J=9 -o " + cl + " --launch " + launch);
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(cl);
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_NE(source.find("__kernel"), std::string::npos);
  // The dumped file builds by itself: sizes and tuning values are macros inside it.
  Context context(select_device(""));
  EXPECT_NE(context.program(source, "-cl-std=CL1.2"), nullptr);
  std::ifstream lj(launch);
  std::string json((std::istreambuf_iterator<char>(lj)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"global_size\""), std::string::npos) << json;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mdh
