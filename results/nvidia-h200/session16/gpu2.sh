#!/usr/bin/env bash
# Session 16, call 2 on nvidia-h200: Nsight Compute on mdh's kernels (OpenCL through NVIDIA's driver) and cuBLAS:
# GEMM 1024^3 (hand configuration g1024-c of session 15 = the default's shape), cuBLAS GEMM 1024^3, DOT 2^24 and
# GEMV 4096^2 (committed). Sections: speed of light, memory tables (shared-memory bank conflicts), warp stalls,
# occupancy. Reports in $OUT/ncu-*.txt.
# Bundle: build/bin/mdh build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json results/nvidia-h200/session15/configs
set -u
out=${OUT:-/tmp/gpu2}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section SourceCounters"
prof() {  # NAME COMMAND...
  local name=$1; shift
  timeout 120 ncu $sections --launch-skip 2 --launch-count 1 "$@" > "$out/ncu-$name.txt" 2>&1
  echo "$name: rc $? $(wc -l < "$out/ncu-$name.txt") lines"; grep -E "Duration|Bank|ERR|error" "$out/ncu-$name.txt" | head -8
}
prof gemm1024 mdh run apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --config results/nvidia-h200/session15/configs/g1024-c.json --repeat 3 --warmup 2
prof cublas1024 peer_cuda --routine gemm --spec apps/gemm.mdh --size I=1024,J=1024,K=1024 --warmups 2 --min-runs 3 --max-runs 3
prof dot mdh run apps/dot.mdh --size K=16777216 --device gpu --config results/nvidia-h200/dot-RW.json --repeat 3 --warmup 2
prof gemv mdh run apps/gemv.mdh --size I=4096,K=4096 --device gpu --config results/nvidia-h200/gemv-PC.json --repeat 3 --warmup 2
prof gemm4096 mdh run apps/gemm.mdh --size I=4096,J=4096,K=4096 --device gpu --config results/nvidia-h200/gemm-PC-4096.json --repeat 3 --warmup 2
prof cublas4096 peer_cuda --routine gemm --spec apps/gemm.mdh --size I=4096,J=4096,K=4096 --warmups 2 --min-runs 3 --max-runs 3
