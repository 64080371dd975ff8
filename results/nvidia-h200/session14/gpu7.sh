#!/usr/bin/env bash
# Session 14, call 7 on nvidia-h200: a recorded GPU space for tests/perf/tuning_quality and the Kernel Tuner
# comparison (issue 13 items 4 and 5): every configuration of a 2,400-configuration neighbourhood of GEMM 1024^3's
# default (tile sizes, work-items, work-groups, double buffering, ownership of i; recorded_gemm1024.restrict),
# measured by `mdh tune --technique exhaustive`. Resumable: a second call continues the journal.
set -u
out=${OUT:-/tmp/gpu7}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
journal=$out/recorded_gemm1024.journal
[[ -f ${RESUME_FROM:-} ]] && cp "$RESUME_FROM" "$journal"
mdh tune apps/gemm.mdh --size I=1024,J=1024,K=1024 --device gpu --technique exhaustive --budget 540s --no-transfer \
  $(cat results/nvidia-h200/session14/recorded_gemm1024.restrict) --journal "$journal" ${RESUME_FROM:+--resume} \
  --out /tmp/recorded.json 2>&1 | grep -E '^(stopped|time|per eval|compiles of|best)'
