#!/usr/bin/env bash
# Session 9, second device call: the tuner after this session on the H200 (space of sensible shapes, register
# budget, cut and check-only-when-best): GEMM 1024^3 for 90 s and GEMV 4096^2 for 45 s from the default start,
# evaluations per second and the best found; the space sizes; the best re-run with --verify.
set -u
out=${OUT:-/tmp/session9}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
for c in "gemm|apps/gemm.mdh|I=1024,J=1024,K=1024|90s" "gemv|apps/gemv.mdh|I=4096,K=4096|45s"; do
  IFS='|' read -r name spec sizes budget <<< "$c"
  mdh space "$spec" --size "$sizes" --device gpu -q 2>&1 | tail -2 | tee -a "$out/tune.txt"
  mdh tune "$spec" --size "$sizes" --device gpu --budget "$budget" --out "$out/$name-tuned.json" 2>&1 | tail -4 | tee -a "$out/tune.txt"
  mdh run "$spec" --size "$sizes" --device gpu --config "$out/$name-tuned.json" --repeat 50 --warmup 3 --verify 2>&1 | grep -E "kernel time|verify" | tee -a "$out/tune.txt"
done
