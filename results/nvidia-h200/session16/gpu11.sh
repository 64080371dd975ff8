#!/usr/bin/env bash
# Session 16, call 11 on nvidia-h200: the cases of experiments.gpu.json not benchmarked in calls 8-9 (same binary
# as the final commit's, 3848a8d), benchmarked with the peers in one run (device_run.sh bench), so that every row
# of tables.md comes from this session's merged main.
# Bundle: build/bin/mdh build/bin/peer_mdh build/bin/device_peak build/bin/peer_clblast build/bin/peer_prl
#         build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu11}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cases="gemm:PC gemm:PC-4096 dot:RW gemv:RW gemv:PC gaussian:RW gaussian:PC jacobi3d:RW jacobi3d:PC
  tc-abcdef-gdac-efgb:RW tc-abcdef-gdbc-efga:RW tc-abcdef-geab-dfgc:RW tc-abcdef-geac-dfgb:RW tc-abcdef-gebc-dfga:RW
  tc-abcdef-gfac-degb:RW tc-abcdef-gfbc-dega:RW"
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 520 $cases 2>&1 |
  grep -vE '^(==|  device peak)' | tail -60
tar czf "$out/bench.tar.gz" results/nvidia-h200/records results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv
