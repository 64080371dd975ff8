#!/usr/bin/env bash
# Session 18, call 2 on nvidia-h200 (bundle of call 1).
# a) Jacobi 3D 512^3 5-minute reference run (auc_bandit seed 1, --no-transfer).
# b) GEMM 1024^3 tuned 150 s from the committed configuration (no probe variant of call 1 beat it), transfer on.
set -u
out=${OUT:-/tmp/gpu2}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
log=$out/log.txt
stamp() { echo "## $(date -u +%T) $*"; }
{
stamp "a) Jacobi3D 512^3 300 s"
mdh tune apps/jacobi3d.mdh --size I=512,J=512,K=512 --device gpu --technique auc_bandit --seed 1 --evals 10000000 \
  --budget 300s --no-transfer --journal $out/jacobi3d-PC-300s.journal --out $out/jacobi3d-PC-300s.json 2>&1 |
  grep -vE '^ ' | tail -12
stamp "b) GEMM 1024^3 150 s from the committed"
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --technique auc_bandit --seed 1 --budget 150s \
  --start results/nvidia-h200/gemm-PC.json --journal $out/gemm-PC.json.journal --out $out/gemm-PC.json 2>&1 |
  grep -vE '^ ' | tail -12
stamp done
} 2>&1 | tee -a "$log"
