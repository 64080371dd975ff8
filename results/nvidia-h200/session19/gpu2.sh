#!/usr/bin/env bash
# Session 19, call 2 on nvidia-h200 (bundle .device-bundle).
# Issue 12, Gaussian 4096^2 at 59% of the copy bandwidth (target 70%): the default (32x8 work-items of 1x8, loads
# straight from global memory), the committed configuration (32 work-items of 1x32, a private cache of 36x5 scalars)
# and variants whose work-items own 4 (or 2) columns and move their private cache in float4 (float2) loads
# (configs/g-*.json: work-items along j x along i, elements per work-item j x i); `mdh run --repeat 50 --verify`,
# two rounds in turn.
set -u
out=${OUT:-/tmp/gpu2}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
{
for round in 1 2; do
  for c in default results/nvidia-h200/gaussian-PC.json results/nvidia-h200/session19/configs/g-*.json; do
    echo "round $round $(basename "$c"): $(mdh run apps/gaussian.mdh --size I=4096,J=4096 --config "$c" --device gpu \
      --repeat 50 --warmup 3 --verify 2>&1 | grep -E 'kernel time|FAIL|error' | sed 's/ over.*//' | tr '\n' ' ')"
  done
done
} 2>&1 | tee -a "$log"
