#!/usr/bin/env bash
# Session 16, call 9 on nvidia-h200, the binary of 12dea1c (DOUBLE_BUFFER local with its barriers out of
# conditionals):
# 1. MCC tuned 120 s (auc_bandit seed 1): the new default (0.068 ms in call 8) beat the committed configuration
#    (0.137), so the committed result is replaced by this run's best (the stored one is evaluated too).
# 2. MCC and GEMM 10x500x64 benchmarked with the peers in one run.
# 3. GPU soak of the md_homs whose random configurations draw DOUBLE_BUFFER local most (local caches and
#    reductions), 260 s.
# Bundle: build/bin/mdh build/bin/peer_mdh build/bin/device_peak build/bin/mdh_codegen_soak_tests
#         build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu9}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
mdh tune apps/mcc.mdh --size N=1,P=7,Q=7,K=512,C=512,R=3,S=3 --device gpu --technique auc_bandit --seed 1 --budget 120s \
  --journal "$out/mcc-RW.json.journal" --out "$out/mcc-RW.json" 2>&1 | grep -E '^(stopped|best)'
cp "$out/mcc-RW.json" results/nvidia-h200/mcc-RW.json && cp "$out/mcc-RW.json.journal" results/nvidia-h200/mcc-RW.json.journal
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 120 mcc:RW gemm:RW \
  2>&1 | grep -vE '^==' | tail -12
tar czf "$out/bench.tar.gz" results/nvidia-h200/records/gemm-RW-* results/nvidia-h200/records/mcc-RW-* \
  results/nvidia-h200/records/device_peak.json* results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh soak --seconds 260 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --filter 'gemm|mcc|prl|contraction4|matrix_chain|tc_abcdef_gdab|tc_abcdef_gfab' --out "$out/soak.tar.gz"
