#!/usr/bin/env bash
# Session 14, call 2 on nvidia-h200 (bundle of a34329c: build/bin/mdh, build/bin/mdh_codegen_soak_tests).
# 1. The rest of the GPU soak: call 1's 240 s soak left prl, strided (3 of 8 shards), matrix_chain and the 9
#    contractions unfinished (time, not failures). 300 s for those cases alone.
# 2. Where compile throughput goes (issue 13 item 3): GEMM 1024^3, 40 s tuning runs with 4, 8, 12 and 16 compile
#    workers, and 12 with NVIDIA's compute cache disabled; each prints the mean compile time and evaluations/s.
set -u
out=${OUT:-/tmp/gpu2}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh soak --seconds 300 --shards 8 --gpu-jobs 15 --cpu-jobs 0 \
  --filter 'prl|strided|matrix_chain|tc_' --out "$out/soak_rest.tar.gz" 2>&1 | tail -16
tune() {  # LABEL THREADS [ENV...]
  local label=$1 threads=$2
  shift 2
  echo "== $label: $threads compile workers $*"
  env "$@" mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --budget 40s --no-transfer \
    --compile-threads "$threads" --journal "$out/$label.journal" --out /tmp/$label.json 2>&1 | grep -E '^(stopped|time|per eval)'
}
tune w4 4
tune w8 8
tune w12 12
tune w16 16
tune w12nocache 12 CUDA_CACHE_DISABLE=1
