#!/usr/bin/env bash
# Session 34, call 8 (nvidia-h200): (a) `mdh tune` of DOT 2^24 for 150 s from the stored results, the search with
# WG_OWNERSHIP (new); (b) the GPU soak of the md_homs whose reductions commute (where WG_OWNERSHIP exists), first
# part: dot, gemv, gemm, gemm_nt, prl, max1d, minplus, strided. Bundle: mdh, mdh_codegen_soak_tests, peer_mdh,
# device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0 MDH_TUNABLE_VERBOSE=1
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
mdh tune apps/dot.mdh --size K=16777216 --device gpu --seed 1 --evals 10000000 --budget 150s \
  --out "$OUT/dot-RW.json" >"$OUT/tune.log" 2>&1
tail -25 "$OUT/tune.log"
scripts/device_run.sh soak --seconds 330 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(dot|gemv|gemm|gemm_nt|prl|max1d|minplus|strided)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -30
