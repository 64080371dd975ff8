#!/usr/bin/env bash
# Session 14, call 10 on nvidia-h200: re-tune GEMM 4096^3 (PC-4096) with the float4-copy configuration of call 9 as a
# start (--start, recorded in the journal) within the case's budget (60 s), then benchmark it beside its default and
# the peers in one run, so the committed configuration and its table row come from tuning, not from a hand edit.
set -u
out=${OUT:-/tmp/gpu10}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
r=results/nvidia-h200/gemm-PC-4096.json
rm -f "$r" "$r.journal"
mdh tune apps/gemm.mdh --size I=4096,J=4096,K=4096 --device gpu --technique auc_bandit --seed 1 --evals 400 \
  --budget 60s --start results/configs/gemm4096-h200-vector4.json --out "$r" --journal "$r.journal" 2>&1 |
  grep -E '^(stopped|time|best|compiles of)'
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 150 gemm:PC-4096 \
  2>&1 | tail -8
tar czf "$out/gemm4096.tar.gz" "$r" "$r.journal" results/nvidia-h200/records/gemm-PC-4096-* \
  results/nvidia-h200/records/device_peak.json results/nvidia-h200/benchmark.json results/nvidia-h200/benchmark.csv
