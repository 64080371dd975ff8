#!/usr/bin/env bash
# Session 19, call 10 on nvidia-h200 (bundle .device-bundle of branch store-width: the STORE_WIDTH family, results
# stored with vstoreN along the output's unit-stride dimension).
# a) Gaussian 4096^2: the committed configuration (4x4 results per work-item, partials through local memory) and
#    call 5's two fastest probes, each with STORE_WIDTH 1 and with vector stores (configs/s-*.json), two rounds.
# b) The GPU soak of the new family: device_run.sh soak (1,000 random valid configurations per md_hom, optimised
#    builds, 8 shards, 15 GPU jobs) for as long as the call allows.
set -u
out=${OUT:-/tmp/gpu6}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
c=results/nvidia-h200/session19/configs
{
for round in 1 2; do
  for f in results/nvidia-h200/gaussian-PC.json $c/s-best-sw4.json $c/g-v4-32x8-4x4.json $c/s-v4-32x8-4x4-sw4.json \
    $c/g-v2-32x8-2x8.json $c/s-v2-32x8-2x8-sw2.json; do
    echo "round $round $(basename "$f"): $(mdh run apps/gaussian.mdh --size I=4096,J=4096 --config "$f" --device gpu \
      --repeat 50 --warmup 3 --verify 2>&1 | grep -E 'kernel time|FAIL|error' | sed 's/ over.*//;s/ max abs.*//' | tr '\n' ' ')"
  done
done
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh soak --seconds 470 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --out "$out/soak.tar.gz" 2>&1 | tail -40
} 2>&1 | tee "$out/log.txt"
