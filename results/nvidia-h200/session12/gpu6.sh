#!/usr/bin/env bash
# Session 12, H200 call 6: the soak of the three md_homs call 4 left unfinished (DOUBLE_BUFFER and the other
# families, 1,000 random valid configurations each in 8 shards), and the benchmark of the contraction call 5's
# deadline stopped.
set -u
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh bench gpu experiments.gpu.json --seconds 90 --run-timeout 30 \
  tc-abcdef-gfbc-dega:RW 2>&1 | tail -8
tar czf "$OUT/results.tar.gz" results/nvidia-h200
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh soak --seconds ${SOAK_SECONDS:-300} --shards 8 --gpu-jobs 15 \
  --cpu-jobs 0 --filter 'tc_abcdef_gf' --out "$OUT/soak15b.tar.gz" 2>&1 | tail -8
