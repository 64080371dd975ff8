// parse_ptxas_log and parse_ptx_entries on recorded text: NVIDIA's OpenCL build log form ("ptxas ." before the
// properties line), nvcc's form with a callee's properties between, logs without ptxas lines, and the PTX the H200's
// driver produced for tests/repro/nvidia-ptxas.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runtime/ptx_resources.h"
#include "runtime/ptxas_log.h"
#include "tests/nvidia_build_log.h"

namespace mdh {
namespace {

TEST(PtxasLog, ReadsEveryKernelOfAnOpenClBuildLog) {
  const std::vector<PtxasKernelReport> reports = parse_ptxas_log(testing::kNvidiaBuildLogWithASpillingKernel);
  ASSERT_EQ(reports.size(), 2u);
  const PtxasKernelReport& a = reports[0];
  EXPECT_EQ(a.kernel_name, "gemm_tunable");
  EXPECT_EQ(a.arch, "sm_90");
  EXPECT_EQ(a.registers, 128u);
  EXPECT_EQ(a.barriers, 1u);
  EXPECT_EQ(a.shared_bytes, 16384u);
  EXPECT_EQ(a.constant_bytes, 380u);
  EXPECT_EQ(a.stack_frame_bytes, 0u);
  EXPECT_EQ(a.spill_store_bytes, 0u);
  EXPECT_EQ(a.spill_load_bytes, 0u);
  EXPECT_FALSE(a.spills());
  const PtxasKernelReport& b = reports[1];
  EXPECT_EQ(b.kernel_name, "gemm_combine");
  EXPECT_EQ(b.registers, 255u);
  EXPECT_EQ(b.barriers, std::nullopt);  // not printed
  EXPECT_EQ(b.shared_bytes, 0u);        // left out of the "Used" line: none
  EXPECT_EQ(b.constant_bytes, 388u);    // both banks
  EXPECT_EQ(b.stack_frame_bytes, 296u);
  EXPECT_EQ(b.spill_store_bytes, 176u);  // from the properties line; the warning repeats it and changes nothing
  EXPECT_EQ(b.spill_load_bytes, 312u);
  EXPECT_TRUE(b.spills());
}

TEST(PtxasLog, CalleePropertiesAreNotTheKernelsAndCrLfAndPrefixesAreRead) {
  // nvcc's form (no "ptxas ." before the numbers), as Visual Studio prints it ("1>  "), with CRLF endings.
  const std::string log =
      "1>  ptxas info    : Compiling entry function 'jacobi' for 'sm_80'\r\n"
      "1>  ptxas info    : Function properties for helper\r\n"
      "1>      8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\r\n"
      "1>  ptxas info    : Function properties for jacobi\r\n"
      "1>      16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\r\n"
      "1>  ptxas info    : Used 40 registers, 360 bytes cmem[0]\r\n";
  const std::vector<PtxasKernelReport> reports = parse_ptxas_log(log);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kernel_name, "jacobi");
  EXPECT_EQ(reports[0].arch, "sm_80");
  EXPECT_EQ(reports[0].registers, 40u);
  EXPECT_EQ(reports[0].stack_frame_bytes, 16u);
  EXPECT_EQ(reports[0].spill_store_bytes, 0u);
  EXPECT_EQ(reports[0].constant_bytes, 360u);
  EXPECT_FALSE(reports[0].spills());
}

TEST(PtxasLog, LogsWithoutPtxasLinesGiveNothing) {
  EXPECT_TRUE(parse_ptxas_log("").empty());
  // PoCL's log of a build with a warning.
  EXPECT_TRUE(parse_ptxas_log("<source>:12:5: warning: unused variable 'x'\n1 warning generated.\n").empty());
}

TEST(PtxasLog, UsedLineWithoutItsEntryIsKeptUnnamed) {
  const std::vector<PtxasKernelReport> reports = parse_ptxas_log("ptxas info    : Used 32 registers, 4 bytes smem\n");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kernel_name, "");
  EXPECT_EQ(reports[0].registers, 32u);
  EXPECT_EQ(reports[0].shared_bytes, 4u);
  EXPECT_EQ(reports[0].spill_store_bytes, std::nullopt);
}

TEST(PtxEntries, RecordedH200PtxOfTheRepro) {
  std::ifstream in(MDH_SOURCE_DIR "/tests/repro/nvidia-ptxas/tc_geab_dfgc_398.ptx");
  ASSERT_TRUE(in) << "the recorded PTX is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<PtxEntryResources> entries = parse_ptx_entries(text.str());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].kernel_name, "tc_abcdef_geab_dfgc_tunable");
  EXPECT_EQ(entries[0].virtual_registers, 140u + 57u + 371u + 92u);  // %p, %f, %r, %rd
  EXPECT_EQ(entries[0].shared_bytes, 32u + 32u + 64u);               // the three demoted __local arrays
  EXPECT_EQ(entries[0].local_bytes, 0u);
}

TEST(PtxEntries, LocalDepotsNestedScopesAndSeveralEntries) {
  const std::string ptx =
      ".version 8.0\n"
      ".target sm_90\n"
      ".shared .align 4 .b8 module_scope[4096];\n"  // not inside an entry: attributed to none
      ".entry first(\n"
      "\t.param .u64 .ptr .global .align 4 first_param_0\n"
      ")\n"
      "{\n"
      "\t.local .align 16 .b8 \t__local_depot0[64];\n"
      "\t.reg .b64 \t%SP, %SPL;\n"
      "\t.reg .f32 \t%f<10>;\n"
      "\t{ // inline scope\n"
      "\t.reg .b32 \ttemp;\n"
      "\t}\n"
      "\t.shared .align 4 .f32 first_$_tile[256];\n"
      "\tret;\n"
      "}\n"
      ".entry second()\n"
      "{\n"
      "\t.reg .pred \t%p<3>;\n"
      "\tret;\n"
      "}\n";
  const std::vector<PtxEntryResources> entries = parse_ptx_entries(ptx);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].kernel_name, "first");
  EXPECT_EQ(entries[0].virtual_registers, 2u + 10u + 1u);
  EXPECT_EQ(entries[0].local_bytes, 64u);
  EXPECT_EQ(entries[0].shared_bytes, 256u * 4u);
  EXPECT_EQ(entries[1].kernel_name, "second");
  EXPECT_EQ(entries[1].virtual_registers, 3u);
  EXPECT_EQ(entries[1].shared_bytes, 0u);
}

TEST(PtxEntries, ABinaryThatIsNotPtxHasNoEntries) {
  EXPECT_TRUE(parse_ptx_entries(std::string("\x7f"
                                            "ELF\x02\x01\x01",
                                            7))
                  .empty());
}

// NVIDIA's program binary is the PTX text and its C-string terminator: `mdh inspect` writes the text, which ptxas
// assembles (with the NUL bytes it stopped: "ptxas fatal : Unexpected EOF encountered on line 652").
TEST(PtxText, NulBytesAtTheEndOfTheBinaryAreDropped) {
  const std::string ptx = ".version 9.0\n.target sm_90\n} // end of .metadata_section\n\n";
  std::vector<unsigned char> binary(ptx.begin(), ptx.end());
  binary.push_back('\0');
  binary.push_back('\0');
  EXPECT_EQ(ptx_text_of_binary(binary), ptx);
  EXPECT_EQ(ptx_text_of_binary(std::vector<unsigned char>(ptx.begin(), ptx.end())), ptx);
  EXPECT_EQ(ptx_text_of_binary({}), "");
}

}  // namespace
}  // namespace mdh
