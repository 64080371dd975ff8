#!/usr/bin/env bash
# Session 30, call 7 (nvidia-h200): the two cases whose default was above 1.5x of the best known in session 29 (GEMM
# 10x500x64 and the contraction abcdef-gdab-efgc), benchmarked again, default and peers in the same run; twice each.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
for round in 1 2; do
  scripts/device_run.sh bench gpu experiments.gpu.json --seconds 100 gemm:RW tc-abcdef-gdab-efgc:RW >"$OUT/bench$round.txt" 2>&1
  grep -E "^nvidia-h200,(gemm,RW|tc-abcdef-gdab-efgc)" results/nvidia-h200/benchmark.csv >"$OUT/bench$round.csv"
done
tar czf "$OUT/records.tar.gz" -C results/nvidia-h200/records $(cd results/nvidia-h200/records && ls gemm-RW-* tc-abcdef-gdab-efgc-RW-* device_peak*)
cat "$OUT"/bench?.txt
