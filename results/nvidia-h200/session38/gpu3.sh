#!/usr/bin/env bash
# Session 38, call 3 (nvidia-h200): the GPU soak of the contractions (generator 5), whose draws hold the peeled tile
# loop too. Bundle: as call 2.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
scripts/device_run.sh soak --seconds 540 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(contraction4|tc_.*)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -14
