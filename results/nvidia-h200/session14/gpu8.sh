#!/usr/bin/env bash
# Session 14, call 8 on nvidia-h200: re-tune the cases whose committed configuration call 6 measured slower than the
# default (gemm RW: 0.0125 against 0.0104 ms; jacobi3d RW and gemv RW by 3%) or that had almost no tuning behind
# them (prl RW: 3 evaluations; the slowest contraction, gdab-efgc: 9; mcc RW), with this session's tuner, then
# benchmark them beside their peers (scripts/device_run.sh retune). Bundle as gpu6.sh.
set -u
out=${OUT:-/tmp/gpu8}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh retune gpu experiments.gpu.json --tune-seconds 330 \
  --bench-seconds 150 gemm:RW jacobi3d:RW gemv:RW prl:RW tc-abcdef-gdab-efgc:RW mcc:RW 2>&1 | tail -40
tar czf "$out/retune.tar.gz" --exclude='results/nvidia-h200/session*' --exclude='results/nvidia-h200/logs' \
  results/nvidia-h200
