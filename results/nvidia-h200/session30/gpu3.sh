#!/usr/bin/env bash
# Session 30, call 3 (nvidia-h200): what the NVIDIA compiler makes of DOT 2^24's and GEMV 4096^2's committed
# configurations (mdh inspect: PTX, registers, spills), and DOT's configuration with x's private cache in registers.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
mdh inspect apps/dot.mdh --size K=16777216 --config results/nvidia-h200/dot-RW.json --device gpu -o "$OUT/inspect-dot" 2>&1
mdh inspect apps/gemv.mdh --size I=4096,K=4096 --config results/nvidia-h200/gemv-PC.json --device gpu -o "$OUT/inspect-gemv" 2>&1
for round in 1 2; do
  for c in results/nvidia-h200/dot-RW.json results/nvidia-h200/session30/dot-x-private.json; do
    echo "round $round $c: $(mdh run apps/dot.mdh --size K=16777216 --config $c --device gpu --repeat 50 --warmup 3 2>&1 |
      grep -E 'kernel time|error')"
  done
done
