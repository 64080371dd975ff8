#!/usr/bin/env bash
# Session 17, call 7 on nvidia-h200 (bundle of call 5): 1. GEMM 1024^3 and 4096^3 tuned 60 s each from their best
# padded configurations of call 5 (--start; the default and the committed result are evaluated too), auc_bandit
# seed 1; the results replace the committed ones. 2. The cases whose committed configuration changed in this session
# benchmarked with the peers in one run (device_run.sh bench).
set -u
out=${OUT:-/tmp/gpu4}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session17/configs
tune() {  # NAME SIZE START
  mdh tune apps/gemm.mdh --size "$2" --device gpu --technique auc_bandit --seed 1 --budget 60s --start "$3" \
    --journal "$out/$1.json.journal" --out "$out/$1.json" 2>&1 | grep -E '^(stopped|best)'
  cp -f "$out/$1.json" "results/nvidia-h200/$1.json" && cp -f "$out/$1.json.journal" "results/nvidia-h200/$1.json.journal"
}
tune gemm-PC I=1024,J=1024,K=1024 $cfg/g1024-A2-B2.json
tune gemm-PC-4096 I=4096,J=4096,K=4096 $cfg/g4096-A2.json
MDH_BIN=$PWD/.device-bundle-pad/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 330 gemm:PC \
  gemm:PC-4096 mcc:RW tc-abcdef-gdbc-efga:RW 2>&1 | grep -vE '^==' | tail -30
tar czf "$out/bench.tar.gz" results/nvidia-h200/records/gemm-PC-* results/nvidia-h200/records/mcc-RW-* \
  results/nvidia-h200/records/tc-abcdef-gdbc-efga-RW-* results/nvidia-h200/records/device_peak.json* \
  results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv 2>/dev/null
