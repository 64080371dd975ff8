// A build log as NVIDIA's OpenCL driver writes it with -cl-nv-verbose (recorded on the H200), for the tests that
// read ptxas's report (tests/runtime/test_ptxas_log.cpp) and judge spills by it
// (tests/integration/spill_check_test.cpp): the properties line starts with "ptxas ." and newer ptxas reports barriers;
// shared memory appears only where it is not zero. Two kernels, the second spilling.
#pragma once

namespace mdh::testing {

inline constexpr const char* kNvidiaBuildLogWithASpillingKernel =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'gemm_tunable' for 'sm_90'\n"
    "ptxas info    : Function properties for gemm_tunable\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 128 registers, used 1 barriers, 16384 bytes smem, 380 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'gemm_combine' for 'sm_90'\n"
    "ptxas info    : Function properties for gemm_combine\n"
    "ptxas         .     296 bytes stack frame, 176 bytes spill stores, 312 bytes spill loads\n"
    "ptxas warning : Registers are spilled to local memory in function 'gemm_combine', 176 bytes spill stores, "
    "312 bytes spill loads\n"
    "ptxas info    : Used 255 registers, 380 bytes cmem[0], 8 bytes cmem[2]\n";

}  // namespace mdh::testing
