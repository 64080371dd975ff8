#!/usr/bin/env bash
# Session 29, call 2: the new GPU default (volume-stencil shape, STORE_WIDTH, UNROLL_STEPS) of Jacobi 3D 512^3 timed
# beside the old one (session 28s v0, the default until now), then 5 minutes of tuning from it (../session26/gpu_tune.sh: seed 1,
# --no-transfer), for the 1-minute goal.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
mdh tune apps/jacobi3d.mdh --size I=512,J=512,K=512 --device gpu --evals 1 --no-transfer --finalists 0 \
  --out /tmp/new.json --journal /tmp/new.journal >/dev/null 2>&1
cp /tmp/new.json "$OUT/jacobi3d-PC.default.json"
for round in 1 2; do
  for f in /tmp/new.json results/nvidia-h200/session28/jacobi-shapes/v0.json; do
    echo "round $round $f $(mdh run apps/jacobi3d.mdh --size I=512,J=512,K=512 --config "$f" --device gpu --repeat 50 \
      --warmup 3 2>&1 | sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p')" >>"$OUT/defaults.txt"
  done
done
bash results/nvidia-h200/session26/gpu_tune.sh jacobi3d apps/jacobi3d.mdh I=512,J=512,K=512
