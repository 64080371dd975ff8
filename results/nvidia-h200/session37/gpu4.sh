#!/usr/bin/env bash
# Session 37, call 4 (nvidia-h200): the GPU soak's rest for generator 4 (call 3's 230 s left strided and matrix_chain
# unfinished): those two, then PRL, MCC and the contractions. Bundle: as call 3.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
scripts/device_run.sh soak --seconds 130 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(strided|matrix_chain)$' --out "$OUT/soak1.tar.gz" 2>&1 | tail -6
scripts/device_run.sh soak --seconds 420 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(prl|mcc|contraction4|tc_.*)$' --out "$OUT/soak2.tar.gz" 2>&1 | tail -20
