// Spilling candidates (pipeline/spill_check.h): the verdict on ptxas's report in NVIDIA's build log, in the form the
// driver writes it with -cl-nv-verbose; which tuning runs ask for the report (NVIDIA's driver only, not with
// --allow-spills); and a journal resumes only with the treatment it was recorded with.
#include "pipeline/spill_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "pipeline/tune.h"
#include "pipeline/tuning_request.h"
#include "support/error.h"
#include "tests/nvidia_build_log.h"
#include "tuner/journal/journal.h"

namespace mdh {
namespace {

TEST(SpillCheck, EachSpillingKernelIsNamedWithItsSpillsAndRegisters) {
  EXPECT_EQ(spill_rejection(testing::kNvidiaBuildLogWithASpillingKernel),
            "kernel 'gemm_combine' spills: 176 bytes spill stores, 312 bytes spill loads (ptxas, 255 registers)");
  // Loads without stores count too (either direction is a spill); two kernels are both named, in build order.
  const std::string both =
      "ptxas info    : Compiling entry function 'mcc_tunable' for 'sm_90'\n"
      "ptxas info    : Function properties for mcc_tunable\n"
      "ptxas         .     96 bytes stack frame, 96 bytes spill stores, 96 bytes spill loads\n"
      "ptxas info    : Used 255 registers, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'mcc_combine' for 'sm_90'\n"
      "ptxas info    : Function properties for mcc_combine\n"
      "ptxas         .     24 bytes stack frame, 0 bytes spill stores, 24 bytes spill loads\n"
      "ptxas info    : Used 40 registers, 380 bytes cmem[0]\n";
  EXPECT_EQ(spill_rejection(both),
            "kernel 'mcc_tunable' spills: 96 bytes spill stores, 96 bytes spill loads (ptxas, 255 registers); "
            "kernel 'mcc_combine' spills: 0 bytes spill stores, 24 bytes spill loads (ptxas, 40 registers)");
  // A log cut before the "Used" line: the spills are known, the registers are not.
  EXPECT_EQ(spill_rejection("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                            "ptxas info    : Function properties for k\n"
                            "ptxas         .     24 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads\n"),
            "kernel 'k' spills: 24 bytes spill stores, 16 bytes spill loads (ptxas)");
}

TEST(SpillCheck, KernelsWithoutSpillsAndLogsWithoutAReportAreTimed) {
  // The GEMM 1024^3 default on the H200 (128 registers, no spills).
  EXPECT_EQ(spill_rejection("ptxas info    : Compiling entry function 'gemm_tunable' for 'sm_90'\n"
                            "ptxas info    : Function properties for gemm_tunable\n"
                            "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                            "ptxas info    : Used 128 registers, used 1 barriers, 16384 bytes smem\n"),
            std::nullopt);
  // Spills of at most kToleratedSpillBytes each way are timed: the contraction abcdef-gfbc-dega's default on the H200
  // spills 8 bytes each way.
  EXPECT_EQ(kToleratedSpillBytes, 16);
  EXPECT_EQ(spill_rejection("ptxas info    : Compiling entry function 'tc_abcdef_gfbc_dega_tunable' for 'sm_90'\n"
                            "ptxas info    : Function properties for tc_abcdef_gfbc_dega_tunable\n"
                            "ptxas         .     8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
                            "ptxas info    : Used 64 registers\n"),
            std::nullopt);
  EXPECT_EQ(spill_rejection("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                            "ptxas info    : Function properties for k\n"
                            "ptxas         .     16 bytes stack frame, 16 bytes spill stores, 20 bytes spill loads\n"
                            "ptxas info    : Used 64 registers\n"),
            "kernel 'k' spills: 16 bytes spill stores, 20 bytes spill loads (ptxas, 64 registers)");
  // A stack frame alone (private arrays indexed at run time) is not a spill.
  EXPECT_EQ(spill_rejection("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                            "ptxas info    : Function properties for k\n"
                            "ptxas         .     64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                            "ptxas info    : Used 32 registers\n"),
            std::nullopt);
  // No report: PoCL's log, and NVIDIA's without -cl-nv-verbose or after a hit in its compute cache.
  EXPECT_EQ(spill_rejection(""), std::nullopt);
  EXPECT_EQ(spill_rejection("<source>:12:5: warning: unused variable 'x'\n1 warning generated.\n"), std::nullopt);
}

TEST(SpillCheck, OnlyTuningRunsOnNvidiasDriverBuildWithThePtxasReportAndRejectSpills) {
  TuningRequest request;
  request.warmup = 2;
  request.repeat = 5;
  request.cut_factor = 4;
  DeviceLimits pocl, nvidia;
  nvidia.nvidia_driver = true;
  const CostSettings on_pocl = tuning_cost_settings(request, pocl);
  EXPECT_EQ(on_pocl.extra_build_options, "");
  EXPECT_FALSE(on_pocl.reject_spills);
  EXPECT_EQ(tuning_build_options("-DX=1", on_pocl), "-DX=1");  // the plan's options, as before
  const CostSettings on_nvidia = tuning_cost_settings(request, nvidia);
  EXPECT_EQ(on_nvidia.warmups, 2);
  EXPECT_EQ(on_nvidia.repetitions, 5);
  EXPECT_EQ(on_nvidia.cut_factor, 4);
  EXPECT_EQ(on_nvidia.extra_build_options, "-cl-nv-verbose");
  EXPECT_TRUE(on_nvidia.reject_spills);
  EXPECT_EQ(tuning_build_options("-DX=1", on_nvidia), "-DX=1 -cl-nv-verbose");
  EXPECT_EQ(tuning_build_options("", on_nvidia), "-cl-nv-verbose");
  request.allow_spills = true;  // --allow-spills: built and timed as the plan says
  const CostSettings allowed = tuning_cost_settings(request, nvidia);
  EXPECT_EQ(allowed.extra_build_options, "");
  EXPECT_FALSE(allowed.reject_spills);
  // The workers read the request from its file: the choice and the run's compute cache travel with it.
  request.nvidia_compute_cache = "/tmp/x.nvidia-compute-cache";
  const TuningRequest read = TuningRequest::from_json(request.to_json());
  EXPECT_TRUE(read.allow_spills);
  EXPECT_EQ(read.nvidia_compute_cache, "/tmp/x.nvidia-compute-cache");
}

// A journal recorded on NVIDIA says what its run did with spilling candidates; one written before spills were
// checked timed them. Elsewhere (PoCL) neither run records anything and the check does not apply.
TEST(SpillCheck, AJournalResumesOnlyWithTheTreatmentOfSpillsItWasRecordedWith) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("mdh-spill-journal-" + std::to_string(::getpid()))).string();
  auto record = [&](const nlohmann::json& metadata) {
    tuner::JournalHeader header;
    header.technique = "random";
    header.space_size = "10";
    header.metadata = metadata;
    tuner::JournalWriter(path, header, false, true);
  };
  const nlohmann::json base = {
      {"spec_hash", "0123456789abcdef"}, {"sizes", "I=8"}, {"device", "H200"}, {"driver", "570.00"}, {"generator", 9}};
  nlohmann::json rejected = base, timed = base;
  rejected[kSpillingCandidatesKey] = "rejected";
  timed[kSpillingCandidatesKey] = "timed";
  auto refusal = [&](const nlohmann::json& now) -> std::string {
    try {
      check_journal_resumable(path, now);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  };
  record(base);  // before spills were checked
  EXPECT_EQ(refusal(rejected), "error: cannot resume journal '" + path +
                                   "': it was recorded with spilling_candidates \"timed\", this run has \"rejected\" "
                                   "(--allow-spills times them, without it they are rejected)");
  EXPECT_EQ(refusal(timed), "");
  EXPECT_EQ(refusal(base), "");  // PoCL
  record(rejected);
  EXPECT_EQ(refusal(rejected), "");
  EXPECT_EQ(refusal(timed), "error: cannot resume journal '" + path +
                                "': it was recorded with spilling_candidates \"rejected\", this run has \"timed\" "
                                "(--allow-spills times them, without it they are rejected)");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace mdh
