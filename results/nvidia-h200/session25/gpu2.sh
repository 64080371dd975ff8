#!/usr/bin/env bash
# Session 25, call 2 (nvidia-h200): the GPU soak of the 8 md_homs last soaked before WG_COMBINE `last` had its
# device-wide fence (session 23), then call 1's compile split again with the PTX file found.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
S=results/nvidia-h200/session25
scripts/device_run.sh soak --seconds 430 --gpu-jobs 16 --cpu-jobs 0 --filter 'dot|gemv|gemm|gaussian|jacobi|mcc|max1d' \
  --out "$OUT/soak.tar.gz" >"$OUT/soak.txt" 2>&1
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --seed 1 --evals 200 --no-transfer --out /tmp/t1.json \
  --journal /tmp/t1.journal >/dev/null 2>&1
ls /tmp/split 2>/dev/null | head -2 >"$OUT/split.txt"
MDH=mdh timeout 120 python3 $S/compile_split.py /tmp/t1.journal apps/gemm.mdh I=1024,J=1024,K=1024 /tmp/split 16 16 >>"$OUT/split.txt" 2>&1
ls /tmp/split/s0 >>"$OUT/split.txt"
