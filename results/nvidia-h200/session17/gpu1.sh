#!/usr/bin/env bash
# Session 17, calls 1-4 on nvidia-h200: the 30-minute reference run of GEMM 1024^3 (issue 13 item 5), auc_bandit
# seed 1, no transfer, 8 compile threads (the default on 16 cores), from the default start, made of four device
# runs of 450 s through --resume: `bash gpu1.sh K` continues the journal in this folder to K*450 s of tuning.
# Bundle: build/bin/mdh -- apps experiments.json experiments.gpu.json (main at 267ca9d)
set -u
k=${1:?call number 1-4}
out=${OUT:-/tmp/gpu1}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
dir=results/nvidia-h200/session17
resume=
[ "$k" -gt 1 ] && resume=--resume
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --technique auc_bandit --seed 1 --evals 10000000 \
  --budget $((k * 450))s --no-transfer --journal "$dir/gemm1024-1800s.journal" --out "$dir/gemm1024-1800s.json" \
  $resume 2>&1 | grep -vE '^ ' | tail -12
wc -l "$dir/gemm1024-1800s.journal"
cp "$dir/gemm1024-1800s.journal" "$dir/gemm1024-1800s.json" "$out/"
