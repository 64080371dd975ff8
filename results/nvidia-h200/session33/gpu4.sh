#!/usr/bin/env bash
# Session 33, call 6 (nvidia-h200): issue 13's tuning rate again since UNROLL_TILES (session 31) and WG_COMBINE
# atomic (session 32) joined the space: GEMM 1024^3 for 120 s from the default, seed 1, no transfer, as
# ../session26/gpu_tune.sh ran it for session 30 (21.7 evaluations/s over its first 120 s). Bundle: mdh.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --seed 1 --no-transfer --evals 10000000 \
  --budget 120s --out /tmp/gemm.json --journal /tmp/gemm.journal 2>&1 | grep -vE '^evaluations [0-9]+ \(' | tail -8 \
  | tee "$OUT/log.txt"
gzip -9 -c /tmp/gemm.journal >"$OUT/gemm.journal.gz"
cp /tmp/gemm.json "$OUT/gemm.json"
